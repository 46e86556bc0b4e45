"""The converter's own logic: a notebook stopped by a limit keeps what finished and fails the rest."""

from __future__ import annotations

import nbformat
import pytest

from autograder.grading.batch._convert import stopped_notebook

pytestmark = pytest.mark.unit


def test_unfinished_test_cells_fail_with_the_reason_and_finished_ones_keep_their_outputs():
    nb = nbformat.v4.new_notebook()
    test = {"grade": True, "solution": False, "grade_id": "t", "points": 1}
    done, unfinished = nbformat.v4.new_code_cell("ok"), nbformat.v4.new_code_cell("slow")
    done.metadata["nbgrader"], unfinished.metadata["nbgrader"] = dict(test), dict(test, grade_id="u")
    done.execution_count, done.outputs = 1, [nbformat.v4.new_output("stream", text="fine")]
    nb.cells = [done, unfinished]
    stopped = nbformat.reads(stopped_notebook(nbformat.writes(nb), "timeout: over 60 s"), as_version=4)
    assert stopped.cells[0].outputs[0].text == "fine"
    (error,) = stopped.cells[1].outputs
    assert error.ename == "GradingStopped" and error.evalue == "timeout: over 60 s"
