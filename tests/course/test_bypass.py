"""The tables on docs/guide/tables.md are the ones tests/variants/ and the exercise sets give (proving/_tables.py)."""

from __future__ import annotations

import pytest

from autograder.grading.proving import _tables
from autograder.grading.proving._sets import ExerciseSet

from support import ASSIGNMENTS, ROOT
from variants import VARIANTS

pytestmark = pytest.mark.unit


def _written() -> tuple[list[list[str]], list[list[str]]]:
    tables = _tables.written(ROOT)
    assert tables, f"{_tables.PAGE} has no <!-- bypass table --> or <!-- variants table --> block"
    return tables


def test_the_bypass_table_is_current():
    expected = [row for a in ASSIGNMENTS for row in _tables.bypass_rows(ExerciseSet(ROOT, a), VARIANTS[a])]
    assert _written()[0] == expected, "stale: run `jax-course prove SET` for each set whose declared answers changed"


def test_every_problem_of_every_set_has_a_row_and_each_set_one_for_the_answers_that_do_nothing():
    for assignment in ("01_arrays", "09_capstone"):
        exercise = ExerciseSet(ROOT, assignment)
        table = _tables.bypass_rows(exercise, VARIANTS[assignment])
        problems = {row[1] for row in table if row[3] != _tables.NOTHING_TRIED}
        assert problems == {heading for heading, _ in exercise.problems}
        assert [row[1] for row in table if row[3] == _tables.NOTHING_TRIED] == ["every problem"]


def test_the_variants_table_has_a_row_for_every_test_each_wrong_variant_fails():
    rows = {
        (row[0], row[1].strip("`"), row[2])
        for a in ASSIGNMENTS
        for row in _tables.variant_rows(ExerciseSet(ROOT, a), VARIANTS[a], {})
    }
    assert set(_tables.table_caught(ROOT)) == rows, "stale: run `jax-course prove SET` for each set that changed"
    assert set(_tables.table_caught(ROOT).values()) <= {"visible", "hidden", "?"}


def test_correct_alternatives_fail_nothing_in_every_set():
    for assignment, variants in VARIANTS.items():
        alternatives = [v for v in variants.values() if "alternative" in v]
        assert alternatives, f"{assignment} has no correct answer written another way in tests/variants/"
        assert all(v["loses"] == set() and "bypass" not in v for v in alternatives), assignment
