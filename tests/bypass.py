"""The bypass table: for every problem, the skill it grades, the shortcut tried, and whether it was caught.

A bypass is a variant in variants.py with a "bypass" entry naming the skill it skips. The
autograde test (course/test_autograde.py) asserts that each loses exactly its points under the
real nbgrader, and records what it saw; the README carries the same table (`python
tests/bypass.py` rewrites it, tests/course/test_bypass.py keeps it current).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat

from support import ASSIGNMENTS, ROOT
from variants import VARIANTS

_HEADING = re.compile(r"^## (Problem \d+[^\n]*?)\s*(\(\d+ points?\))?\s*$", re.M)
README_BLOCK = re.compile(r"(<!-- bypass table -->\n).*?(<!-- /bypass table -->)", re.S)


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
    return table


def markdown(table: list[list[str]]) -> str:
    lines = ["| set | problem | skill graded | bypass tried | caught |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in table]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    readme = ROOT / "README.md"
    text = readme.read_text()
    if not README_BLOCK.search(text):
        sys.exit("README.md has no <!-- bypass table --> ... <!-- /bypass table --> block")
    readme.write_text(README_BLOCK.sub(lambda m: m[1] + markdown(rows()) + m[2], text))
    print(
        f"rewrote the bypass table in {readme.relative_to(Path.cwd()) if readme.is_relative_to(Path.cwd()) else readme}"
    )
