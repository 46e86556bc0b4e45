"""A passing test cell says so, in one line: which test, and its points.

Without it a pass is silence, and a learner cannot tell a test that passed from a cell that did not run. The
kernel knows a cell only by its source: a test cell is found among the course's own (`passes.json` beside each
set's references, written with its `tests.json`), as the release shows it (the visible tests: a pass there
says the hidden tests are still to come) or as grading runs it (hidden tests included). It imports neither side.
"""

from __future__ import annotations

import json
from functools import cache

PASSES_FILE = "passes.json"
# What starts the line: the grader takes it out again where the verifier fails a test the kernel passed.
MARK = "✓ "
# nbgrader's, around a test cell's hidden tests (both sides read them).
HIDDEN_MARKERS = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")


def normal(source: str) -> str:
    """A cell's source as compared: no hidden-test markers, no trailing spaces, no blank lines at either end."""
    lines = [line.rstrip() for line in source.splitlines() if line.strip() not in HIDDEN_MARKERS]
    return "\n".join(lines).strip("\n")


@cache
def _cells() -> list[tuple[str, str, float, str, str]]:
    """Each test cell of the course's sets: `(set, grade_id, points, released source, graded source)`."""
    from ._config import PACKAGE_REFERENCES

    found = []
    for path in sorted(PACKAGE_REFERENCES.glob(f"*/{PASSES_FILE}")):
        try:
            tests = json.loads((path.parent / "tests.json").read_text())
            cells = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        for grade_id, cell in cells.items():
            found.append((path.parent.name, grade_id, float(cell["points"]), cell["visible"], tests.get(grade_id, "")))
    return found


@cache
def _known() -> dict[str, tuple[str, float, bool]]:
    """Each test cell of the course's sets by its compared source: `(grade_id, points, hidden tests ran)`."""
    found: dict[str, tuple[str, float, bool]] = {}
    for _, grade_id, points, visible, graded in _cells():
        found.setdefault(normal(visible), (grade_id, points, False))
        if graded:
            found.setdefault(normal(graded), (grade_id, points, True))
    return found


@cache
def _tests() -> dict[str, tuple[str, str]]:
    """Each test cell of the course's sets by its compared source, released or graded: `(set, grade_id)`."""
    found: dict[str, tuple[str, str]] = {}
    for assignment, grade_id, _, visible, graded in _cells():
        for source in (visible, graded):
            found.setdefault(normal(source), (assignment, grade_id))
    found.pop("", None)
    return found


def which_test(source: str) -> tuple[str, str] | None:
    """`(set, grade_id)` of the course's test cell with this source (None for any other cell)."""
    return _tests().get(normal(source))


def line(source: str) -> str | None:
    """What a test cell with this source says when it passes (None for any other cell)."""
    known = _known().get(normal(source))
    if known is None:
        return None
    grade_id, points, whole = known
    worth = f"{points:g} point{'' if points == 1 else 's'}"
    return (
        f"{MARK}{grade_id} passed ({worth})"
        if whole
        else f"{MARK}{grade_id} passed ({worth} once the hidden tests pass too)"
    )


def _after_cell(result) -> None:
    info = getattr(result, "info", None)
    if info is None or getattr(info, "silent", False) or not result.success:
        return
    if said := line(getattr(info, "raw_cell", "") or ""):
        print(said)


def say_passes(shell=None) -> None:
    """In an IPython kernel, have every passing test cell say so (once per shell)."""
    if shell is None:
        import sys

        shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    if shell is None or _after_cell in shell.events.callbacks.get("post_run_cell", []):
        return
    shell.events.register("post_run_cell", _after_cell)
