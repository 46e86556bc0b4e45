"""The two tables of what the declared answers prove, on the course's page docs/guide/tables.md.

The bypass table: for every problem, the skill it grades, the shortcut tried (a declared answer with a "bypass"
entry), and whether it was caught; and for every set, whether the answers that do nothing scored nothing. The
variants table: for every wrong answer and each test it fails, whether a visible test already fails it (what a
student sees before submitting) or only a hidden one. `jax-course prove SET` rewrites the set's rows.
"""

from __future__ import annotations

import re
from pathlib import Path

from ._sets import ExerciseSet

PAGE = Path("docs") / "guide" / "tables.md"
BYPASS_BLOCK = re.compile(r"(<!-- bypass table -->\n).*?(<!-- /bypass table -->)", re.S)
VARIANTS_BLOCK = re.compile(r"(<!-- variants table -->\n).*?(<!-- /variants table -->)", re.S)
NOTHING = "nothing"
NOTHING_TRIED = "answers that do nothing (made by `jax-course prove`)"
_BYPASS_HEADER = ["| set | problem | skill graded | bypass tried | caught |", "|---|---|---|---|---|"]
_VARIANTS_HEADER = ["| set | variant | test it fails | caught by |", "|---|---|---|---|"]


def bypass_rows(
    exercise: ExerciseSet, variants: dict[str, dict], caught: dict[str, bool] | None = None
) -> list[list[str]]:
    """One row per problem: set, problem, skill, bypass tried, caught (by name in `caught`; "yes" without it)."""

    def verdict(name: str) -> str:
        return "yes" if caught is None or caught.get(name) else "NO"

    table = []
    for heading, tests in exercise.problems:
        tried = [(n, v) for n, v in variants.items() if "bypass" in v and set(v["loses"]) & set(tests)]
        if not tried:
            table.append([exercise.name, heading, "", "none yet", ""])
        for name, variant in tried:
            table.append([exercise.name, heading, variant["bypass"], f"`{name}`", verdict(name)])
    table.append([exercise.name, "every problem", "an answer that computes something", NOTHING_TRIED, verdict(NOTHING)])
    return table


def variant_rows(exercise: ExerciseSet, variants: dict[str, dict], caught: dict[tuple[str, str], str]) -> list:
    """One row per wrong answer and test it fails: set, answer, test, where it is caught ("?" if unknown)."""
    return [
        [exercise.name, f"`{name}`", test, caught.get((name, test), "?")]
        for name, variant in variants.items()
        for test in sorted(variant["loses"])
    ]


def markdown(header: list[str], table: list[list[str]]) -> str:
    return "\n".join([*header, *("| " + " | ".join(row) + " |" for row in table)]) + "\n"


def _rows(block: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in block.splitlines()[2:]]


def written(root: Path) -> tuple[list[list[str]], list[list[str]]] | None:
    """The bypass and the variants tables' rows as the course's page has them (None: the course has no page)."""
    page = root / PAGE
    if not page.is_file():
        return None
    text = page.read_text()
    found = BYPASS_BLOCK.search(text), VARIANTS_BLOCK.search(text)
    if not all(found):
        return None
    return _rows(found[0][0].split("\n", 1)[1].rsplit("\n", 1)[0]), _rows(  # type: ignore[index]
        found[1][0].split("\n", 1)[1].rsplit("\n", 1)[0]  # type: ignore[index]
    )


def table_caught(root: Path) -> dict[tuple[str, str, str], str]:
    """`(set, variant, test) -> "visible" | "hidden" | "?"`, as the course's variants table says."""
    tables = written(root)
    return {(row[0], row[1].strip("`"), row[2]): row[3] for row in (tables[1] if tables else [])}


def rewrite(root: Path, assignment: str, bypass: list[list[str]], variants: list[list[str]]) -> bool:
    """Put a set's rows in both tables of the course's page, in place of its old ones (sets in name order);
    False when the course has no such page."""
    tables = written(root)
    if tables is None:
        return False
    text = (root / PAGE).read_text()
    for block, header, old, new in (
        (BYPASS_BLOCK, _BYPASS_HEADER, tables[0], bypass),
        (VARIANTS_BLOCK, _VARIANTS_HEADER, tables[1], variants),
    ):
        rows = sorted([row for row in old if row[0] != assignment] + new, key=lambda row: row[0])  # stable
        text = block.sub(lambda m, h=header, r=rows: m[1] + markdown(h, r) + m[2], text)
    (root / PAGE).write_text(text)
    return True
