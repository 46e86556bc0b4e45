"""A self-check's results say why each test lost its points, a cell stopped by the time limit included."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from autograder.grading.selfcheck._selfreport import read_results

pytestmark = pytest.mark.unit


def cell(grade_id, *, test, error=None, source=""):
    meta = {"grade": test, "solution": not test, "grade_id": grade_id, "points": 1 if test else 0}
    outputs = [{"output_type": "error", "ename": error[0], "evalue": error[1], "traceback": []}] if error else []
    return {"cell_type": "code", "source": source, "metadata": {"nbgrader": meta}, "outputs": outputs}


def notebook(*cells):
    heading = {"cell_type": "markdown", "source": "## Problem 1: a loop (1 point)", "metadata": {}}
    return {"cells": [heading, *cells]}


def test_a_test_cell_stopped_by_the_limit_names_the_limit():
    nb = notebook(cell("answer", test=False), cell("test_answer", test=True, error=("KeyboardInterrupt", "")))
    (result,) = read_results(nb, None, cell_timeout=120)
    assert not result.passed
    assert "ran longer than the limit of 120 s per cell" in result.message and "never finishes" in result.message


def test_an_answer_cell_stopped_by_the_limit_is_named_in_the_tests_that_need_it():
    nb = notebook(
        cell("answer", test=False, error=("KeyboardInterrupt", "")),
        cell("test_answer", test=True, error=("NameError", "name 'loop' is not defined")),
    )
    (result,) = read_results(nb, None, cell_timeout=30)
    assert "cell answer was stopped after running longer than the limit of 30 s per cell" in result.message
    assert "name 'loop' is not defined" in result.message


def test_a_name_error_without_a_stopped_cell_says_to_run_the_answer():
    nb = notebook(
        cell("answer", test=False), cell("test_answer", test=True, error=("NameError", "name 'f' is not defined"))
    )
    (result,) = read_results(nb, None)
    assert "run the cell with your answer first" in result.message and "stopped" not in result.message


def test_the_name_error_of_an_unanswered_class_is_not_answered_yet():
    said = "Ledger is not answered yet: its cell still raises NotImplementedError(); write your answer there"
    nb = notebook(cell("answer", test=False), cell("test_answer", test=True, error=("NameError", said)))
    (result,) = read_results(nb, None)
    assert result.message.startswith("not answered yet") and "run the cell with your answer first" not in result.message


def test_the_name_error_after_a_stub_that_names_nothing_is_shown_as_the_kernel_says_it():
    said = (
        "name 'recurrence' is not defined: an answer cell above still raises NotImplementedError() (not answered "
        "yet). If recurrence is its answer, write it there and run that cell; otherwise check the spelling."
    )
    nb = notebook(cell("answer", test=False), cell("test_answer", test=True, error=("NameError", said)))
    (result,) = read_results(nb, None)
    assert result.message == said


def test_the_report_shows_the_whole_message_the_test_name_and_what_ran():
    from autograder.grading.selfcheck._selfreport import SelfCheck

    message = "softmax differs at 2 of 4 positions.\nTry: subtract the maximum first.\nReread: course/01_arrays.ipynb#x"
    nb = notebook(cell("answer", test=False), cell("test_softmax", test=True, error=("CheckFailed", message)))
    report = SelfCheck(Path("01_arrays.ipynb"), read_results(nb, None), False, "advisory", "a laptop").report()
    assert "(test_softmax)" in report
    for line in message.splitlines():
        assert f"          {line}" in report
    assert "Score: 0/1 (visible tests only: the hidden tests did not run)." in report


def test_timing_is_mentioned_only_where_a_test_measures_speed_and_the_object_echoes_one_line():
    from autograder.grading.selfcheck._selfreport import SelfCheck

    untimed = notebook(cell("answer", test=False), cell("test_answer", test=True, source="ag.check_close(f(x), y)"))
    timed = notebook(cell("answer", test=False), cell("test_speed", test=True, source="ag.check_speedup(f, g, (x,))"))
    for nb, said in ((untimed, False), (timed, True)):
        check = SelfCheck(Path("04_jit.ipynb"), read_results(nb, None), True, "advisory", "a shared machine")
        assert ("Timing checks: advisory (a shared machine)." in check.report()) == said, check.report()
        # One verdict per problem: the timed test's own row says its timing was not judged.
        assert ("(test_speed); timing not judged: a shared machine" in check.report()) == said, check.report()
    assert repr(check) == "<self-check of 04_jit.ipynb: 1/1>"


def test_in_a_notebook_the_report_is_a_table_with_each_failure_under_its_row_and_reread_a_link(tmp_path):
    from autograder.grading.selfcheck._selfreport import SelfCheck

    clone = tmp_path / "clone"
    (clone / "course").mkdir(parents=True)
    (clone / "course" / "01_arrays.ipynb").write_text("{}")
    (clone / "exercises" / "01_arrays").mkdir(parents=True)
    message = "softmax <x> differs.\nTry: subtract the maximum first.\nReread: course/01_arrays.ipynb#Softmax"
    nb = notebook(cell("answer", test=False), cell("test_softmax", test=True, error=("CheckFailed", message)))
    where = clone / "exercises" / "01_arrays" / "01_arrays.ipynb"
    page = SelfCheck(where, read_results(nb, None), True, "enforce", "")._repr_html_()
    cells = ("<strong>FAILED</strong>", "Problem 1: a loop (1 point)", "0/1", "(test_softmax)")
    assert "".join(f'<td style="text-align:left">{cell}</td>' for cell in cells) in page
    assert "softmax &lt;x&gt; differs.<br>Try: subtract the maximum first." in page  # escaped
    assert 'Reread: <a href="../../course/01_arrays.ipynb#Softmax">course/01_arrays.ipynb#Softmax</a>' in page
    assert "Score: 0/1" in page and "Self-check of 01_arrays.ipynb" in page
    # Far from a clone, the link leads to the lecture in the course's repository.
    elsewhere = SelfCheck(tmp_path / "alone.ipynb", read_results(nb, None), True, "enforce", "")._repr_html_()
    assert 'href="https://github.com/learn-jax/jax-course/blob/main/course/01_arrays.ipynb#Softmax"' in elsewhere


def test_what_the_computer_could_not_wall_is_said_after_the_score_in_text_and_in_a_notebook():
    from autograder.grading.selfcheck._selfreport import SelfCheck

    nb = notebook(cell("answer", test=False), cell("test_answer", test=True))
    missing = "this computer has no Landlock (Linux 5.13 or newer, enabled), so nothing keeps ..."
    check = SelfCheck(Path("01_arrays.ipynb"), read_results(nb, None), True, "enforce", "", missing)
    said = f"Note: {missing}. Your notebook was checked all the same, and its score does not depend on it"
    assert check.report().endswith(check.walls_note) and said in check.walls_note
    page = check._repr_html_()
    assert "Score: 1/1" in page and f"<p>{html.escape(check.walls_note)}</p>" in page
    walled = SelfCheck(Path("01_arrays.ipynb"), read_results(nb, None), True, "enforce", "")
    assert "Note:" not in walled.report() and "Note:" not in walled._repr_html_()
