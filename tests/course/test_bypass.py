"""The tables on docs/guide/tables.md are the ones tests/variants/ and the exercise sets give (tests/bypass.py)."""

from __future__ import annotations

import bypass
import pytest

from support import ROOT
from variants import VARIANTS

pytestmark = pytest.mark.unit


def test_the_bypass_table_is_current():
    found = bypass.BYPASS_BLOCK.search(bypass.TABLES.read_text())
    assert found, f"{bypass.TABLES.relative_to(ROOT)} has no <!-- bypass table --> block"
    assert found[0].split("\n", 1)[1].rsplit("\n", 1)[0] + "\n" == bypass.markdown(bypass.rows()), (
        "stale: run `python tests/bypass.py`"
    )


def test_every_problem_of_every_set_has_a_row_and_each_set_one_for_the_answers_that_do_nothing():
    table = bypass.rows()
    for assignment in ("01_arrays", "09_capstone"):
        problems = {row[1] for row in table if row[0] == assignment and row[3] != bypass.NOTHING_TRIED}
        assert problems == {h for h, _ in bypass.problems(assignment)}
        assert [row[1] for row in table if row[0] == assignment and row[3] == bypass.NOTHING_TRIED] == ["every problem"]


def test_the_variants_table_has_a_row_for_every_test_each_wrong_variant_fails():
    rows = {(row[0], row[1].strip("`"), row[2]) for row in bypass.variant_rows({})}
    assert set(bypass.table_caught()) == rows, "stale: run `python tests/bypass.py`"
    assert set(bypass.table_caught().values()) <= {"visible", "hidden", "?"}


def test_correct_alternatives_fail_nothing_in_every_set():
    for assignment, variants in VARIANTS.items():
        alternatives = [v for v in variants.values() if "alternative" in v]
        assert alternatives, f"{assignment} has no correct answer written another way in tests/variants/"
        assert all(v["loses"] == set() and "bypass" not in v for v in alternatives), assignment
