"""The two tables of what the variants prove, on the site's page docs/guide/tables.md.

The bypass table: for every problem, the skill it grades, the shortcut tried (a variant in
tests/variants/ with a "bypass" entry), and whether it was caught; and for every set, whether the
answers that do nothing (nothing.py) scored nothing. The variants table: for every
wrong variant and each test it fails, whether a visible test already fails it (what a student
sees before submitting) or only a hidden one.

The autograde test (course/test_autograde.py) grades every variant with the real nbgrader,
asserts what these tables say, and records what it saw in test-artifacts/; `python
tests/bypass.py` rewrites both tables (the variants table from the latest recorded run of
each set), and tests/course/test_bypass.py keeps them in step with tests/variants/.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat

from support import ASSIGNMENTS, ROOT
from variants import VARIANTS

_HEADING = re.compile(r"^## (Problem \d+[^\n]*?)\s*(\(\d+ points?\))?\s*$", re.M)
# The page that holds both tables, between these markers ("What each exercise set catches").
TABLES = ROOT / "docs" / "guide" / "tables.md"
BYPASS_BLOCK = re.compile(r"(<!-- bypass table -->\n).*?(<!-- /bypass table -->)", re.S)
VARIANTS_BLOCK = re.compile(r"(<!-- variants table -->\n).*?(<!-- /variants table -->)", re.S)
CAUGHT_ARTIFACTS = ROOT / "test-artifacts" / "caught"
# Where a test cell raised: IPython's frame line, or the line a CheckFailed names (checks/_tracebacks.py).
_CELL_LINE = re.compile(r"Cell In\[\d+\], line (\d+)|\(in the test cell, line (\d+):")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def problems(assignment: str) -> list[tuple[str, list[str]]]:
    """`(heading, [test grade_ids])` for each problem of an assignment, in order."""
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    found: list[tuple[str, list[str]]] = []
    for cell in nb.cells:
        heading = _HEADING.search(cell.source) if cell.cell_type == "markdown" else None
        meta = cell.metadata.get("nbgrader", {})
        if heading:
            found.append((heading[1], []))
        elif found and meta.get("grade") and not meta.get("solution"):
            found[-1][1].append(meta["grade_id"])
    return found


def rows(caught: dict[tuple[str, str], bool] | None = None) -> list[list[str]]:
    """One row per problem: set, problem, skill, bypass tried, caught (from `caught`, else from the suite)."""
    table = []
    for assignment in ASSIGNMENTS:
        for heading, tests in problems(assignment):
            tried = [(n, v) for n, v in VARIANTS[assignment].items() if "bypass" in v and set(v["loses"]) & set(tests)]
            if not tried:
                table.append([assignment, heading, "", "none yet", ""])
            for name, variant in tried:
                verdict = "yes" if caught is None else ("yes" if caught.get((assignment, name)) else "NO")
                table.append([assignment, heading, variant["bypass"], f"`{name}`", verdict])
        # tests/nothing.py: every function returns its input, a constant, zeros or None.
        verdict = "yes" if caught is None else ("yes" if caught.get((assignment, NOTHING)) else "NO")
        table.append([assignment, "every problem", "an answer that computes something", NOTHING_TRIED, verdict])
    return table


NOTHING = "nothing"
NOTHING_TRIED = "answers that do nothing (`tests/nothing.py`)"


def markdown(table: list[list[str]]) -> str:
    lines = ["| set | problem | skill graded | bypass tried | caught |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in table]
    return "\n".join(lines) + "\n"


def table_caught() -> dict[tuple[str, str, str], str]:
    """`(set, variant, test) -> "visible" | "hidden"`, as the variants table (in `TABLES`) says."""
    found = VARIANTS_BLOCK.search(TABLES.read_text())
    table = {}
    for line in found[0].splitlines()[3:-1] if found else []:
        assignment, name, test, where = (cell.strip().strip("`") for cell in line.strip("|").split("|"))
        table[(assignment, name, test)] = where
    return table


def hidden_from(source: str) -> int:
    """The line number (from 1) where a test cell's hidden tests begin (past its end if it has none)."""
    lines = source.splitlines()
    return next((n for n, line in enumerate(lines, 1) if "BEGIN HIDDEN TESTS" in line), len(lines) + 1)


def where_caught(course: Path, assignment: str, student: str) -> dict[str, str]:
    """For each test cell that failed: "visible" if a line above its hidden tests raised, else "hidden"."""
    nb = json.loads((course / "autograded" / student / assignment / f"{assignment}.ipynb").read_text())
    found = {}
    for cell in nb["cells"]:
        error = next((o for o in cell.get("outputs", []) if o["output_type"] == "error"), None)
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if error is None or not grade_id:
            continue
        raised = _CELL_LINE.search(strip_ansi("\n".join(error["traceback"])))
        line = int(raised[1] or raised[2]) if raised else None
        found[grade_id] = "visible" if line and line < hidden_from("".join(cell["source"])) else "hidden"
    return found


def failures_shown(nb: dict) -> dict[str, str]:
    """What each failed test cell of a graded notebook shows a student: its printed text and its error line."""
    found = {}
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        outputs = cell.get("outputs", [])
        error = next((o for o in outputs if o["output_type"] == "error"), None)
        if error is None or not grade_id:
            continue
        printed = "".join("".join(o.get("text", "")) for o in outputs if o["output_type"] == "stream")
        found[grade_id] = _ANSI.sub("", f"{printed}{error['ename']}: {error['evalue']}")
    return found


def recorded_caught() -> dict[tuple[str, str, str], str]:
    """What the latest autograde run of each set recorded (test-artifacts/caught/<set>.json)."""
    table = {}
    for path in sorted(CAUGHT_ARTIFACTS.glob("*.json")):
        for name, tests in json.loads(path.read_text()).items():
            table.update({(path.stem, name, test): where for test, where in tests.items()})
    return table


def variant_rows(caught: dict[tuple[str, str, str], str]) -> list[list[str]]:
    """One row per wrong variant and test it fails: set, variant, test, where it is caught ("?" if unknown)."""
    return [
        [assignment, f"`{name}`", test, caught.get((assignment, name, test), "?")]
        for assignment in ASSIGNMENTS
        for name, variant in VARIANTS[assignment].items()
        for test in sorted(variant["loses"])
    ]


def variants_markdown(table: list[list[str]]) -> str:
    lines = ["| set | variant | test it fails | caught by |", "|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in table]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    text = TABLES.read_text()
    for block in (BYPASS_BLOCK, VARIANTS_BLOCK):
        if not block.search(text):
            sys.exit(f"{TABLES.relative_to(ROOT)} has no {block.pattern[1:22]} ... block")
    caught = {**table_caught(), **recorded_caught()}
    text = BYPASS_BLOCK.sub(lambda m: m[1] + markdown(rows()) + m[2], text)
    text = VARIANTS_BLOCK.sub(lambda m: m[1] + variants_markdown(variant_rows(caught)) + m[2], text)
    TABLES.write_text(text)
    print(f"rewrote the bypass and variants tables in {TABLES.relative_to(ROOT)}")
