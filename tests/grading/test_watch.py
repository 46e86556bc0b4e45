"""`jax-course watch`: a check after every save, a line per test that changed, and Ctrl-C ends it all."""

from __future__ import annotations

import queue
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import psutil
import pytest

from autograder.grading.selfcheck._selfreport import ProblemResult, SelfCheck
from autograder.grading.selfcheck._watch import changes, watch

from support import ROOT, VENV_BIN, answered, solution_sources

ASSIGNMENT = "03_tracing"


def _check(*verdicts: tuple[str, float, str]) -> SelfCheck:
    results = [ProblemResult(f"Problem of {test}", test, points, 2.0, message) for test, points, message in verdicts]
    return SelfCheck(Path("x.ipynb"), results, True, "enforce", "")


@pytest.mark.unit
def test_only_the_tests_whose_points_changed_get_a_line_with_the_first_line_of_their_message():
    before = _check(("test_a", 0, "not answered yet"), ("test_b", 0, "not answered yet"), ("test_c", 2, ""))
    after = _check(("test_a", 2, ""), ("test_b", 0, "ValueError: shapes\nTry: ..."), ("test_c", 0, "wrong\nmore"))
    assert changes(before, after) == [
        "  passed  Problem of test_a (test_a): 2/2",
        "  FAILED  Problem of test_c (test_c): 0/2: wrong",
    ]
    assert changes(after, after) == []


@pytest.mark.unit
def test_a_save_made_while_the_first_report_is_printed_is_checked_again(tmp_path):
    notebook = tmp_path / "answers.ipynb"
    notebook.write_text("{}")
    checked, said = [], []

    def save_as_the_report_appears(text: str) -> None:
        said.append(text)
        if "Score:" in text and len(checked) == 1:
            notebook.write_text('{"cells": []}')  # the student saves as soon as the first report shows

    def check(path: Path) -> SelfCheck:
        checked.append(path.read_text())
        return _check(("test_a", 2.0 * (len(checked) - 1), "not answered yet"))

    watching = threading.Thread(
        target=watch,
        args=(notebook, check),
        kwargs={"say": save_as_the_report_appears, "poll_seconds": 0.01, "checks": 2},
        daemon=True,
    )
    watching.start()
    watching.join(timeout=10)
    assert not watching.is_alive(), f"the save was never checked; checks so far: {checked}"
    assert checked == ["{}", '{"cells": []}']
    assert any(text.startswith("Saved at") for text in said), said


def _lines(process: subprocess.Popen) -> queue.Queue:
    found: queue.Queue = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            found.put(line)

    threading.Thread(target=read, daemon=True).start()
    return found


def _until(found: queue.Queue, text: str, timeout: float = 300) -> str:
    seen, deadline = "", time.monotonic() + timeout
    while text not in seen:
        try:
            seen += found.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            pytest.fail(f"no {text!r} in {timeout:.0f} s; it printed:\n{seen}")
    return seen


@pytest.mark.grading
def test_a_saved_answer_is_checked_again_and_ctrl_c_leaves_nothing_running(tmp_path):
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    shutil.copytree(ROOT / "solutions" / ASSIGNMENT, tmp_path / "solutions" / ASSIGNMENT)
    work = tmp_path / "exercises" / ASSIGNMENT
    work.mkdir(parents=True)
    notebook = answered(ASSIGNMENT, {}, work / f"{ASSIGNMENT}.ipynb")
    process = subprocess.Popen(
        [VENV_BIN / "jax-course", "watch", str(notebook)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        found = _lines(process)
        first = _until(found, "Score: ")
        assert "Score: 0/" in first and "FAILED" in first
        reference = solution_sources(ASSIGNMENT)
        answer = next(cell for cell in reference if cell.startswith("affine"))
        answered(ASSIGNMENT, {answer: reference[answer]}, notebook)
        again = _until(found, "Saved at")
        time.sleep(2)  # the rest of that check's lines
        while not found.empty():
            again += found.get()
        assert "passed" in again and "(test_affine" in again, again
        assert "test_pure" not in again and "test_leak" not in again, f"tests that did not change got a line: {again}"
        started = psutil.Process(process.pid).children(recursive=True)
        assert started, "no nursery is kept for the next check"
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
    # The reading thread takes every line, up to the last one the process wrote before ending.
    out = _until(found, "Stopped watching.", timeout=10)
    assert process.returncode == 0, out
    _, alive = psutil.wait_procs(started, timeout=10)
    assert not alive, f"left running after Ctrl-C: {[p.pid for p in alive]}"
