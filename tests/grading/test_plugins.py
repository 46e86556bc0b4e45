"""nbgrader plugins: tampering cells are not run; feedback keeps messages, never test code."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import nbformat
import pytest
from nbgrader import utils
from nbgrader.preprocessors import OverwriteCells

from autograder.grading.plugins import RefuseTampering, RestoreCells, ShortenTestErrors

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


class _Gradebook:
    """What `OverwriteCells` asks of nbgrader's gradebook, for one locked test cell with hidden tests."""

    def __init__(self, source: nbformat.NotebookNode):
        self.source = source

    def find_source_cell(self, name, notebook, assignment):
        checksum = utils.compute_checksum(self.source)
        return SimpleNamespace(cell_type="code", locked=True, source=self.source.source, checksum=checksum, name=name)

    def find_graded_cell(self, name, notebook, assignment):
        return SimpleNamespace(max_score=self.source.metadata.nbgrader["points"])


@pytest.mark.parametrize("restore", [OverwriteCells, RestoreCells])
def test_a_test_cell_is_said_to_have_changed_only_where_the_student_changed_it(restore, caplog):
    """nbgrader compares a handed-in test cell with its source, hidden tests included: it warns of every cell with
    hidden tests in every honest submission (jupyter/nbgrader#1961). The course's `RestoreCells` does not."""
    meta = dict(grade_id="test_a", grade=True, solution=False, locked=True, points=1)
    source = _cell("assert f(1) == 2\n### BEGIN HIDDEN TESTS\nassert f(3) == 6\n### END HIDDEN TESTS", **meta)
    released = "assert f(1) == 2"
    warned = {}
    for student, handed_in in {"honest": released, "edited": "assert True"}.items():
        cell = _cell(handed_in, **meta)
        preprocessor = restore()
        preprocessor.gradebook, preprocessor.notebook_id, preprocessor.assignment_id = _Gradebook(source), "nb", "a"
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            preprocessor.preprocess_cell(cell, {}, 0)
        assert cell.source == source.source, "the test was not restored with its hidden tests"
        warned[student] = [r.getMessage() for r in caplog.records if "checksum" in r.getMessage()]
    assert len(warned["edited"]) == 1 and "cell test_a has changed" in warned["edited"][0]
    assert len(warned["honest"]) == (1 if restore is OverwriteCells else 0), warned


def test_kernels_are_kept_from_nbgraders_exchange_where_every_submission_waits(tmp_path):
    from traitlets.config import Config

    from autograder.grading.plugins._preprocessors import exchange_root
    from autograder.grading.references._seed import GradingSeed

    config = Config()
    config.Exchange.root = str(tmp_path / "exchange")
    assert exchange_root(config) == str(tmp_path / "exchange")
    assert exchange_root(Config()) == "/usr/local/share/nbgrader/exchange"  # nbgrader's default
    kept = GradingSeed(42, "set by the instructor").kept_from_kernels(tmp_path / "course", exchange_root(config))
    assert str(tmp_path / "exchange") in kept.split(":") and str(tmp_path / "course") in kept.split(":")
