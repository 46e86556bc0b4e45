"""nbgrader plugins: tampering cells are not run; feedback keeps messages, never test code."""

from __future__ import annotations

import nbformat
import pytest

from autograder.grading.plugins import RefuseTampering, ShortenTestErrors

pytestmark = pytest.mark.unit


def _cell(source: str, **nbgrader) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    if nbgrader:
        cell.metadata["nbgrader"] = nbgrader
    return cell


def test_a_tampering_cell_is_replaced_by_a_refusal_and_locked_cells_are_left_alone():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        _cell("import time\ntime.perf_counter = lambda: 0.0", grade_id="answer", solution=True),
        _cell("exec('1')", grade_id="test", grade=True, locked=True),
        _cell("x = 1", grade_id="honest", solution=True),
        _cell("y = 2", **{}),
    ]
    nb.cells[3].metadata["nbgrader"] = {}
    nb, _ = RefuseTampering().preprocess(nb, {})
    assert nb.cells[0].source.startswith("raise RuntimeError(") and "replaces time.perf_counter" in nb.cells[0].source
    assert nb.cells[1].source == "exec('1')" and nb.cells[2].source == "x = 1"
    assert "nbgrader" not in nb.cells[3].metadata
    refused = "answer: line 2: replaces time.perf_counter, which the grader relies on"
    assert nb.metadata["jax_course"]["refused"] == [refused]


def test_feedback_keeps_the_message_of_a_test_and_drops_its_traceback():
    test = _cell("hidden code", grade_id="t", grade=True, solution=False)
    test.outputs = [nbformat.v4.new_output("error", ename="CheckFailed", evalue="off by 2", traceback=["hidden code"])]
    answer = _cell("mine", grade_id="a", grade=True, solution=True)
    answer.outputs = [nbformat.v4.new_output("error", ename="ValueError", evalue="x", traceback=["mine"])]
    for cell in (test, answer):
        ShortenTestErrors().preprocess_cell(cell, {}, 0)
    assert test.outputs[0].traceback == ["CheckFailed: off by 2"]
    assert answer.outputs[0].traceback == ["mine"]
