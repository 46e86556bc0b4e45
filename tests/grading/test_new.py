"""`jax-course new` starts a set, or a problem in one, with the cells, metadata and files the course needs."""

from __future__ import annotations

import shutil
import tomllib

import nbformat
import pytest

from autograder.grading._cli import main
from autograder.grading.proving._declared import declared
from autograder.grading.proving._new import NewError, new_problem
from autograder.grading.proving._sets import ExerciseSet

from support import ROOT

pytestmark = pytest.mark.unit


@pytest.fixture
def course(tmp_path):
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    (tmp_path / "solutions").mkdir()
    (tmp_path / "autograder" / "verified").mkdir(parents=True)
    (tmp_path / "autograder" / "checks").mkdir(parents=True)
    (tmp_path / "autograder" / "checks" / "hints.toml").write_text("# hints\n")
    return tmp_path


def test_a_new_set_has_a_problem_heading_an_answer_a_test_with_hidden_tests_a_verifier_entry_and_a_place_for_answers(
    course,
):
    written = new_problem(course, "17_mine", "relu", "negatives to zero", "05#Manual batching and vmap")
    notebook = course / "solutions" / "17_mine" / "17_mine.ipynb"
    assert written[0] == notebook
    exercise = ExerciseSet(course, "17_mine")
    assert exercise.problems == [("Problem 1: negatives to zero", ["test_relu"])]
    assert exercise.points == {"test_relu": 1.0}
    assert "raise NotImplementedError" in exercise.reference["relu"]
    test = exercise.test_source("test_relu")
    assert "### BEGIN HIDDEN TESTS" in test and 'section="05#Manual batching and vmap"' in test
    assert exercise.sections["test_relu"] == {("05", "Manual batching and vmap")}
    nbformat.validate(nbformat.read(notebook, as_version=4))
    verified = tomllib.loads((course / "autograder" / "verified" / "17_mine.toml").read_text())
    assert verified["test_relu"]["function"] == "relu" and verified["test_relu"]["call"][0]["args"] == [[50]]
    assert declared(course, "17_mine") == {}
    hints = tomllib.loads((course / "autograder" / "checks" / "hints.toml").read_text())
    assert set(hints["17_mine"]["relu"]) == {"fix"} and 'hint="@17_mine/relu.fix"' in test


def test_a_second_problem_is_numbered_after_the_first_and_a_name_in_use_is_refused(course):
    new_problem(course, "17_mine", "relu", None, "")
    new_problem(course, "17_mine", "square", None, "")
    exercise = ExerciseSet(course, "17_mine")
    assert [heading for heading, _ in exercise.problems] == ["Problem 1: relu", "Problem 2: square"]
    assert set(tomllib.loads((course / "autograder" / "verified" / "17_mine.toml").read_text())) == {
        "test_relu",
        "test_square",
    }
    with pytest.raises(NewError, match="already has cells"):
        new_problem(course, "17_mine", "relu", None, "")


@pytest.mark.parametrize(("assignment", "name"), [("17 mine", "relu"), ("17_mine", "not-a-name")])
def test_a_name_nbgrader_or_python_cannot_take_is_refused_by_the_command(course, monkeypatch, capsys, assignment, name):
    monkeypatch.chdir(course)
    assert main(["new", assignment, "--problem", name]) == 2
    assert "jax-course new:" in capsys.readouterr().err
    assert not (course / "solutions" / assignment).exists()
