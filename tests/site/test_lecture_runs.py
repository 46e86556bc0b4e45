"""docs/lecture_runs.py: the lecture tests' runs, found again by the site build by their code."""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

import lecture_runs

pytestmark = pytest.mark.unit


def _lecture(path, code="x = 1 + 1\nx"):
    nb = new_notebook(cells=[new_markdown_cell("# A lecture"), new_code_cell(code)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return nb


def _run(nb):
    executed = nbformat.from_dict(nb)
    executed.cells[1].outputs = [new_output("execute_result", {"text/plain": "2"}, execution_count=1)]
    executed.cells[1].execution_count = 1
    return executed


def test_a_stored_run_is_found_again_with_its_outputs(tmp_path):
    path = tmp_path / "01_lecture.ipynb"
    lecture_runs.store(path, _run(_lecture(path)), 1.5, cache=tmp_path / "cache")
    found = lecture_runs.executed(path, cache=tmp_path / "cache")
    assert found.cells[1].outputs[0]["data"]["text/plain"] == "2"
    assert lecture_runs.not_stored([path], cache=tmp_path / "cache") == []


def test_editing_prose_keeps_the_run_and_editing_code_does_not(tmp_path):
    path = tmp_path / "01_lecture.ipynb"
    lecture_runs.store(path, _run(_lecture(path)), 1.5, cache=tmp_path / "cache")
    nb = nbformat.read(path, as_version=4)
    nb.cells[0].source = "# A lecture, retitled"
    nbformat.write(nb, path)
    assert lecture_runs.executed(path, cache=tmp_path / "cache") is not None
    _lecture(path, code="x = 1 + 2\nx")
    assert lecture_runs.executed(path, cache=tmp_path / "cache") is None
    assert lecture_runs.not_stored([path], cache=tmp_path / "cache") == [path]


def test_a_run_that_recorded_cell_timings_would_not_be_found(tmp_path):
    """Why the lecture test runs nbclient with record_timing=False: timings change cell metadata."""
    path = tmp_path / "01_lecture.ipynb"
    run = _run(_lecture(path))
    run.cells[1].metadata["execution"] = {"iopub.status.busy": "2026-11-24T00:00:00Z"}
    lecture_runs.store(path, run, 1.5, cache=tmp_path / "cache")
    assert lecture_runs.executed(path, cache=tmp_path / "cache") is None
