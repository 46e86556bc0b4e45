"""A failure in a notebook shows the student's lines and the course's message, not the grader's code."""

from __future__ import annotations

import re
import sys
import traceback

import nbclient
import nbformat
import pytest

import autograder.checks as checks
from autograder.checks._tracebacks import without_our_frames

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _student_bug():
    raise ValueError("the student's own bug")


@pytest.mark.unit
def test_an_error_in_the_students_code_called_by_a_check_keeps_their_frames_and_loses_ours():
    try:
        checks._verified(_student_bug)()  # a check's wrapper calling the student's function
    except ValueError:
        tb = sys.exc_info()[2]
    names = [frame.name for frame in traceback.extract_tb(without_our_frames(tb))]
    assert names == [
        "test_an_error_in_the_students_code_called_by_a_check_keeps_their_frames_and_loses_ours",
        "_student_bug",
    ]
    assert "run" in [frame.name for frame in traceback.extract_tb(tb)]  # the wrapper's frame was there


def _outputs(*cells: str) -> list[list[dict]]:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    return [cell.outputs for cell in nb.cells]


@pytest.mark.grading
def test_a_failed_check_shows_the_test_line_and_the_message_in_at_most_15_lines():
    _, failed, raised, passed = _outputs(
        "import jax.numpy as jnp\nimport autograder as ag",
        "x = jnp.arange(3.0)\nag.check_close(x + 1, x, what='shift(x)')",
        "def shift(x):\n    return x.astype('not a dtype')\n\nag.check_close(shift(x), x, what='shift(x)')",
        "ag.check_close(x, x)",
    )
    (error,) = failed
    assert error["output_type"] == "error" and error["ename"] == "CheckFailed"  # nbgrader still sees a failure
    shown = _ANSI.sub("", "\n".join(error["traceback"]))
    assert "autograder/" not in shown and "_compare.py" not in shown, shown
    assert "ag.check_close(x + 1, x, what='shift(x)')" in shown and "shift(x)" in shown.splitlines()[-1] + shown
    assert len(shown.splitlines()) <= 15, shown
    assert "Reread:" in shown or "Try:" in shown or "differs" in shown, shown
    # An error in the student's own code keeps its frames, as IPython shows them.
    (error,) = raised
    shown = _ANSI.sub("", "\n".join(error["traceback"]))
    assert "shift(x)" in shown and "astype" in shown and "autograder/" not in shown, shown
    assert passed == []


@pytest.mark.grading
def test_a_classic_mistake_before_any_check_shows_jax_s_error_then_the_course_s_words(tmp_path):
    folder = tmp_path / "02_immutability"
    folder.mkdir()
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(source)
            for source in ("import jax.numpy as jnp\nimport autograder as ag", "x = jnp.zeros(3)\nx[0] = 1.0")
        ]
    )
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute(cwd=str(folder))
    (error,) = nb.cells[1].outputs
    assert error["ename"] == "TypeError" and error["evalue"].startswith("JAX arrays are immutable")
    words = error["evalue"].split("What it means: ", 1)[1]
    assert "x.at[i].set(v)" in words and "Reread: course/02_immutability.ipynb#Arrays-are-immutable" in words
    assert "autograder/" not in _ANSI.sub("", "\n".join(error["traceback"]))


@pytest.mark.grading
def test_an_unanswered_problem_says_so_by_name_also_where_its_class_is_then_missing():
    _, unanswered_class, unanswered_cell, used = _outputs(
        "import autograder as ag",
        "class Ledger:\n    # YOUR CODE HERE\n    raise NotImplementedError()",
        "# YOUR CODE HERE\nrate = None\nraise NotImplementedError()",
        "Ledger()",
    )
    assert unanswered_class[0]["evalue"].startswith("Ledger is not answered yet: replace `raise NotImplementedError()`")
    assert unanswered_cell[0]["evalue"].startswith("rate is not answered yet")
    (error,) = used
    assert error["ename"] == "NameError" and error["evalue"].startswith("Ledger is not answered yet"), error


@pytest.mark.grading
def test_a_name_missing_after_a_stub_that_names_nothing_may_be_its_answer_or_a_typo():
    """nbgrader's stub for an answer that is the whole cell binds no name: the test's NameError cannot be told
    from a typo, and says both, never only "run the cell first" (the student did)."""
    _, stub, used = _outputs(
        "import autograder as ag",
        "# YOUR CODE HERE\nraise NotImplementedError()",
        "logistic_map(3.0, 0.5, 10)",
    )
    assert stub[0]["evalue"].startswith("this cell is not answered yet: replace `raise NotImplementedError()`")
    (error,) = used
    assert error["ename"] == "NameError", error
    said = error["evalue"]
    assert said.startswith("name 'logistic_map' is not defined: an answer cell above still raises"), said
    assert "(not answered yet). If logistic_map is its answer" in said and "spelling" in said, said
    # Without such a stub, a NameError keeps Python's own message, then what it means in a set of the course's;
    # in any other notebook (another course graded with this grader), Python's message alone.
    set_04 = "import os\nos.environ['JPY_SESSION_NAME'] = '04_jit.ipynb'\nimport autograder as ag"
    _, typo = _outputs(set_04, "logistic_mpa(3.0)")
    said = typo[0]["evalue"]
    assert said.startswith("name 'logistic_mpa' is not defined\n\nWhat it means: a name the code uses is not"), typo
    assert "Try: run the cells above this one first" in said and "Reread: course/04_jit.ipynb" in said, said
    _, typo = _outputs("import autograder as ag", "logistic_mpa(3.0)")
    assert typo[0]["evalue"] == "name 'logistic_mpa' is not defined", typo


@pytest.mark.grading
def test_a_test_that_names_what_the_answer_raised_says_not_answered_yet_for_a_stub_only():
    """A test cell that catches what the student's function raised, to name it in its CheckFailed, shows "not
    answered yet" for the stub's bare NotImplementedError, and its own message for any other error (an empty
    NotImplementedError from a library included)."""
    names_it = (
        "try:\n    {call}\nexcept Exception as error:\n"
        "    raise ag.CheckFailed(f'f(1) raised {{type(error).__name__}}: {{error}}', hint='read it',"
        " section='13#Finding a NaN: jax_debug_nans') from None"
    )
    _, _, stub, wrong, library = _outputs(
        "import numbers\nimport autograder as ag",
        "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n\ndef g(x):\n    return x / 0",
        names_it.format(call="f(1)"),
        names_it.format(call="g(1)"),
        names_it.format(call="numbers.Complex.real.fget(1)"),
    )
    (error,) = stub
    assert error["ename"] == "CheckFailed", error
    assert error["evalue"].startswith("f is not answered yet: replace `raise NotImplementedError()`"), error
    assert "Try: read it" not in error["evalue"] and "Reread: course/13_debugging.ipynb#" in error["evalue"], error
    assert wrong[0]["evalue"].startswith("f(1) raised ZeroDivisionError: division by zero\nTry: read it"), wrong
    assert library[0]["evalue"].startswith("f(1) raised NotImplementedError: \nTry: read it"), library
    # Uncaught, a library's bare NotImplementedError is not taken for a stub either.
    _, uncaught = _outputs("import numbers\nimport autograder as ag", "numbers.Complex.real.fget(1)")
    assert uncaught[0]["ename"] == "NotImplementedError" and uncaught[0]["evalue"] == "", uncaught
