"""A set's declared answers are read from tests/variants/SET.py, and what is wrong with them is said."""

from __future__ import annotations

import pytest

from autograder._verified import problems
from autograder.grading.proving._declared import declared, problems_with
from autograder.grading.proving._sets import ExerciseSet

from support import ROOT
from variants import VARIANTS

pytestmark = pytest.mark.unit


def test_every_set_of_the_course_declares_answers_with_nothing_wrong_with_them():
    for assignment, variants in VARIANTS.items():
        assert variants, assignment
        verified = set(problems(assignment))
        assert problems_with(ExerciseSet(ROOT, assignment), variants, verified) == [], assignment


def test_a_set_without_a_file_declares_nothing(tmp_path):
    assert declared(tmp_path, "17_mine") == {}


@pytest.mark.parametrize(
    ("variant", "said"),
    [
        ({"answers": {"no_such_cell": "x = 1\n"}, "loses": set()}, "not answer cells"),
        ({"answers": {"pairwise": "x = 1\n"}, "loses": {"test_nothing"}, "says": ["x"]}, "not test cells"),
        ({"answers": {"pairwise": "x = 1\n"}, "loses": {"test_pairwise"}}, "says nothing"),
        ({"answers": {"pairwise": "x = 1\n"}, "loses": {"test_pairwise"}, "says": "words"}, "not a list of words"),
        ({"answers": {"pairwise": "x = 1\n"}, "loses": ["test_pairwise"], "says": ["x"]}, "not a set"),
        (
            {"answers": {"pairwise": "x = 1\n"}, "loses": {"test_pairwise"}, "says": ["x"], "alternative": True},
            "correct",
        ),
        ({"answers": {"pairwise": "x = 1\n"}, "loses": set(), "says": ["x"], "typo": 1}, "unknown keys"),
    ],
)
def test_what_is_wrong_with_a_declaration_is_said(variant, said):
    wrong = problems_with(ExerciseSet(ROOT, "05_vmap"), {"mine": variant}, set())
    assert len(wrong) >= 1 and any(said in why for why in wrong), wrong


@pytest.mark.parametrize("assignment", sorted(VARIANTS))
def test_every_test_cell_of_the_course_is_lost_by_some_wrong_answer(assignment):
    """A test cell no wrong answer fails is a check no one has seen fail (`jax-course prove` calls it a gap)."""
    lost = set().union(*(variant["loses"] for variant in VARIANTS[assignment].values()))
    assert set(ExerciseSet(ROOT, assignment).points) - lost == set()
