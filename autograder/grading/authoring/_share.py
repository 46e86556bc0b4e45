"""How each graded test of the course is verified: outside the kernel (by what), or in it (and why).

`jax-course verified` prints it; `autograder/INTEGRITY.md` holds the same table (`jax-course verified --update`
rewrites it there), kept current by a test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..._verified import Problem, in_the_kernel, problems
from .._cells import grade_id_if_test

START, END = "<!-- verified: begin (jax-course verified --update) -->", "<!-- verified: end -->"


@dataclass(frozen=True)
class Test:
    assignment: str
    grade_id: str
    points: float
    outside: bool
    how: str


def _how(problem: Problem) -> str:
    calls = problem.calls
    parts = [f"values on {len(calls)} hidden input{'s' if len(calls) > 1 else ''}"]
    if problem.exact_dtype:  # elsewhere a 64-bit result of jax_enable_x64 is compared by value
        parts[0] += " and their dtype (a float64 result of jax_enable_x64 fails)"
    if any(c.requires or c.forbids or c.max_ops or c.max_elements for c in calls):
        parts.append("structure read from StableHLO")
    if any(c.sharding for c in calls):
        parts.append("the result's layout over the devices")
    if any(c.speedup for c in calls):
        parts.append("speed against the course's baseline")
    if any(c.within for c in calls):
        parts.append("a random estimate within its standard error")
    how = ", ".join(parts)
    # The verifier decides the test, but a kernel whose checks were disarmed passes this rule: the table says so.
    return f"{how}; rule kept only in the kernel: {problem.kernel_rule}" if problem.kernel_rule else how


def graded_tests(source: Path) -> list[Test]:
    """Every graded test cell of the notebooks in `source/*/`, and how it is verified."""
    found = []
    for notebook in sorted(source.glob("*/*.ipynb")):
        assignment = notebook.parent.name
        verified, kept = problems(assignment), in_the_kernel(assignment)
        for cell in json.loads(notebook.read_text())["cells"]:
            if (grade_id := grade_id_if_test(cell)) is None:
                continue
            points = float(cell["metadata"]["nbgrader"].get("points", 0))
            if grade_id in verified:
                found.append(Test(assignment, grade_id, points, True, _how(verified[grade_id])))
            else:
                found.append(Test(assignment, grade_id, points, False, kept.get(grade_id, "not yet verified outside")))
    return found


def share_table(found: list[Test]) -> str:
    """Markdown: each set's share of points verified outside the kernel, then each test."""
    sets = sorted({t.assignment for t in found})
    lines = ["| set | points verified outside the kernel | share |", "|---|---|---|"]
    for assignment in sets:
        mine = [t for t in found if t.assignment == assignment]
        outside, total = sum(t.points for t in mine if t.outside), sum(t.points for t in mine)
        lines.append(f"| {assignment} | {outside:g} of {total:g} | {outside / total:.0%} |")
    lines += ["", "| set | test | points | where | how, or why it stays in the kernel |", "|---|---|---|---|---|"]
    for t in found:
        where = "verifier" if t.outside else "kernel"
        lines.append(f"| {t.assignment} | `{t.grade_id}` | {t.points:g} | {where} | {t.how} |")
    return "\n".join(lines)


def in_integrity(text: str) -> str:
    """The table as `autograder/INTEGRITY.md`'s text holds it, between its two markers."""
    return text.split(START, 1)[1].split(END, 1)[0].strip()


def update_integrity(path: Path, table: str) -> None:
    """Write `table` between the markers of `path`."""
    text = path.read_text()
    before, rest = text.split(START, 1)
    path.write_text(f"{before}{START}\n{table}\n{END}{rest.split(END, 1)[1]}")
