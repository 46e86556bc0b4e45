"""What nbgrader may read as a test cell's score: its error, or a value the cell itself shows, never the student's.

nbgrader scores a graded code cell by its outputs in order: an error (or anything on stderr) gives 0, but
an `execute_result` met first is read as partial credit, and one that is not a number counts as full marks.
The student's code runs inside a test cell when the test calls it, and it can show a value there too
(`sys.displayhook(...)`), ahead of the error its wrong answer causes. So before nbgrader reads a test cell,
every value shown in it becomes a plain display (kept for feedback, read as no score) unless it is the
cell's own: the last output, shown by the cell's last line, an expression, in a cell that raised nothing.
An instructor's partial credit written that way (`score` as a test cell's last line) still counts.
"""

from __future__ import annotations

import ast
from typing import Any

from .._cells import grade_id_if_test


def _ends_with_an_expression(source: str) -> bool:
    """Whether the cell's last statement is an expression IPython would show (no trailing `;`)."""
    # IPython's magics and shell escapes are not Python: read without them.
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        body = ast.parse("\n".join(lines)).body
    except SyntaxError:
        return False
    return bool(body) and isinstance(body[-1], ast.Expr) and not "\n".join(lines).rstrip().endswith(";")


def _failed(output: Any) -> bool:
    kind = output.get("output_type")
    return kind == "error" or (kind == "stream" and output.get("name") == "stderr")


def own_results_only(nb: Any) -> list[str]:
    """Turn each graded test cell's `execute_result` that is not the cell's own into a `display_data`, in
    place (see the module's docstring). Returns the grade ids of the cells where one was turned."""
    changed = []
    for cell in nb.cells:
        if (test := grade_id_if_test(cell)) is None:
            continue
        outputs = cell.get("outputs", [])
        own = (
            len(outputs) - 1
            if outputs
            and outputs[-1].get("output_type") == "execute_result"
            and not any(_failed(output) for output in outputs)
            and _ends_with_an_expression(cell.get("source", ""))
            else None
        )
        for index, output in enumerate(outputs):
            if output.get("output_type") == "execute_result" and index != own:
                output["output_type"] = "display_data"
                output.pop("execution_count", None)
                output.setdefault("data", {})
                output.setdefault("metadata", {})
                changed.append(test)
    return sorted(set(changed))
