"""Which test cells a changed answer can affect: those that read a name it binds, directly or through other cells."""

from __future__ import annotations

import ast
from functools import cache

import nbformat

from support import ROOT, solution_sources


def cell_grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def is_test_cell(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


def _names(source: str) -> tuple[set[str], set[str]]:
    """The names a cell binds at top level, and every name it reads (all of them, if it does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(), {"*"}
    bound = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        else:
            bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return bound, {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


@cache
def _code_cells(assignment: str) -> tuple[tuple[str | None, bool, str], ...]:
    """`(grade_id, is a test, source)` of each code cell of the solution notebook, in order."""
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    return tuple((cell_grade_id(c), is_test_cell(c), c.source) for c in nb.cells if c.cell_type == "code")


@cache
def _reference(assignment: str) -> dict[str, str]:
    return solution_sources(assignment)


def cells_reading_changed_names(assignment: str, changed: dict[str, str]) -> set[str]:
    """The test cells that read a name the `changed` answer cells bind, directly or through other cells."""
    reference = _reference(assignment)
    tainted: set[str] = set()
    for grade_id, source in changed.items():
        tainted |= _names(source)[0] | _names(reference.get(grade_id, ""))[0]
    tests = set()
    for grade_id, is_test, source in _code_cells(assignment):  # in order: a helper calling an answer passes it on
        if grade_id in changed:
            continue
        bound, read = _names(source)
        if read & tainted or "*" in read:
            if is_test:
                tests.add(grade_id)
            else:
                tainted |= bound
    return tests
