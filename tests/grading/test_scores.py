"""A test cell's score comes from its error or its own last value, never from what the student's code showed."""

from __future__ import annotations

import nbformat
import pytest
from nbgrader.utils import determine_grade

from autograder.grading.plugins._scores import own_results_only

pytestmark = pytest.mark.unit


def _test_cell(source: str, *outputs) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "t", "points": 2, "locked": True}
    cell.outputs = list(outputs)
    return cell


def _shown(value: str, count: int = 3) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("execute_result", data={"text/plain": value}, execution_count=count)


_ERROR = nbformat.v4.new_output("error", ename="CheckFailed", evalue="off by 2", traceback=[])


def _graded(cell) -> float:
    nb = nbformat.v4.new_notebook(cells=[cell])
    own_results_only(nb)
    return determine_grade(nb.cells[0])[0]


@pytest.mark.parametrize("value", ["'all tests passed'", "1.5", "100.0"])
def test_a_value_the_answer_shows_before_its_error_scores_nothing(value):
    cell = _test_cell("ag.check_close(f(x), expected)", _shown(value), _ERROR)
    assert _graded(cell) == 0
    assert cell.outputs[0].output_type == "display_data" and cell.outputs[0].data == {"text/plain": value}


def test_a_shown_value_with_no_text_neither_scores_nor_stops_grading():
    cell = _test_cell("check(f)", nbformat.v4.new_output("execute_result", data={"text/html": "<b>ok</b>"}), _ERROR)
    assert _graded(cell) == 0


def test_an_error_the_verifier_put_first_still_decides():
    cell = _test_cell("check(f)", _ERROR, _shown("'passed'"))
    assert _graded(cell) == 0


def test_an_instructors_partial_credit_on_the_cells_last_line_still_counts():
    assert (
        _graded(_test_cell("score = grade(f)\nscore", nbformat.v4.new_output("stream", text="hi\n"), _shown("1.5")))
        == 1.5
    )


def test_only_the_last_value_can_be_the_cells_own():
    cell = _test_cell("score = grade(f)\nscore", _shown("2"), _shown("0.5"))
    assert _graded(cell) == 0.5 and cell.outputs[0].output_type == "display_data"


@pytest.mark.parametrize("source", ["grade(f)\nx = 1", "grade(f);", "for _ in range(1):\n    grade(f)"])
def test_a_value_shown_where_the_cell_ends_with_no_expression_is_the_students(source):
    assert _graded(_test_cell(source, _shown("0.5"))) == 2


def test_answers_and_ungraded_cells_are_left_alone():
    answer = nbformat.v4.new_code_cell("x")
    answer.metadata["nbgrader"] = {"grade": True, "solution": True, "grade_id": "a", "points": 1}
    answer.outputs = [_shown("1")]
    plain = nbformat.v4.new_code_cell("y", outputs=[_shown("2")])
    nb = nbformat.v4.new_notebook(cells=[answer, plain])
    assert own_results_only(nb) == []
    assert [c.outputs[0].output_type for c in nb.cells] == ["execute_result", "execute_result"]
