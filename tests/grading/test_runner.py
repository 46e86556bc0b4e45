"""A notebook that hangs or eats memory is stopped at its limit, and nothing it started is left running."""

from __future__ import annotations

import collections
import contextlib
import csv
import json
import os
import socket
import subprocess
import sys
import threading

import nbformat
import psutil
import pytest

from autograder.grading.batch import _runner
from autograder.grading.batch._driver import write_progress
from autograder.grading.batch._runner import _ended, _exception_line, _failure, _running_cell

from support import VENV_BIN, graded_by, jax_course_grade, make_course, solution_sources, submit

ASSIGNMENT = "03_tracing"


def _leftover_kernels() -> list[int]:
    """Processes started for a grader that has ended: a finished grade's."""
    found = []
    for process in psutil.process_iter(["pid"]):
        grader = graded_by(process)
        if grader is not None and not psutil.pid_exists(grader):
            found.append(process.info["pid"])
    return found


@pytest.mark.grading
def test_limits_stop_a_hanging_and_a_memory_hungry_notebook(tmp_path):
    course = make_course(tmp_path, ASSIGNMENT)
    reference = solution_sources(ASSIGNMENT)
    first = next(iter(reference))
    submit(course, ASSIGNMENT, "reference", reference)
    hog = "import numpy as np\nheap = [np.ones(2**26) for _ in range(200)]"  # 512 MB at a time, 100 GB in all
    submit(course, ASSIGNMENT, "hungry", {**reference, first: reference[first] + "\n" + hog})
    # 60 s: six times what the reference takes, for a machine busy with other tests.
    # Exit status 1: a submission could not be graded.
    jax_course_grade(course, ASSIGNMENT, "--timeout", "60", "--memory", "2500", status=1)
    # Under the per-cell timeout, over the whole-notebook one: graded after the others, with a limit
    # that still leaves its first cell time to start on a busy machine, so the sleep is what it stops.
    submit(course, ASSIGNMENT, "slow", {**reference, first: reference[first] + "\nimport time\ntime.sleep(300)"})
    jax_course_grade(course, ASSIGNMENT, "--timeout", "20", "--memory", "2500", status=1)

    ledger = {p.stem: json.loads(p.read_text()) for p in (course / "grading" / ASSIGNMENT / "done").glob("*.json")}
    assert ledger["reference"]["status"] == "graded", ledger["reference"]
    assert ledger["reference"]["score"] == ledger["reference"]["max_score"], ledger["reference"]
    assert ledger["slow"]["reason"].startswith("timeout:"), ledger["slow"]
    assert ledger["hungry"]["reason"].startswith("memory:"), ledger["hungry"]
    for student in ("slow", "hungry"):
        assert f", in cell {first};" in ledger[student]["reason"], ledger[student]
    for student in ("slow", "hungry"):
        assert ledger[student]["status"] == "failed" and ledger[student]["score"] < ledger["reference"]["score"]
        # Failed as nbgrader fails a submission: no autograded notebook is left of it.
        assert not list((course / "autograded" / student).rglob("*.ipynb")), student
    assert not _leftover_kernels()


def _stopped_notebook(folder, executed: int) -> None:
    """The driver's note of a notebook in which the first `executed` code cells ran: cell ids a1, t1, a2, ..."""
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell("Problem 1"))
    for number, grade_id in enumerate(["a1", "t1", "a2", "t2"]):
        cell = nbformat.v4.new_code_cell("pass")
        cell.metadata["nbgrader"] = {"grade_id": grade_id}
        cell.execution_count = number + 1 if number < executed else None
        nb.cells.append(cell)
    write_progress(nb, str(folder / "snapshot.json"))


@pytest.mark.unit
def test_a_stopped_notebook_names_the_cell_that_was_running(tmp_path):
    _stopped_notebook(tmp_path, executed=2)
    assert _running_cell(tmp_path) == "a2"
    (tmp_path / "stderr.txt").write_text(
        "Traceback (most recent call last):\n  ...\n"
        "nbclient.exceptions.CellTimeoutError: A cell timed out while it was being executed, after 5 seconds.\n"
        "Here is a preview of the cell contents:\n-------------------\n### END HIDDEN TESTS\n-------------------\n"
    )
    reason = _failure(1, tmp_path, 5)
    assert reason.startswith("timeout: cell a2 ran longer than the limit of 5 s per cell"), reason
    assert "HIDDEN" not in reason
    (tmp_path / "stderr.txt").write_text("Traceback:\n  x = secret_test_code()\nRuntimeError: Kernel died\n")
    assert _failure(1, tmp_path, 5) == "crashed: the notebook could not be run, in cell a2 (RuntimeError: Kernel died)"
    (tmp_path / "stderr.txt").write_text(
        "nbclient.exceptions.DeadKernelError: Kernel died: the grader stopped it: its files passed 1024 MB (...)\n"
    )
    assert _failure(1, tmp_path, 5) == "files: cell a2 was stopped: its files passed 1024 MB (...)"


@pytest.mark.unit
def test_the_drivers_note_of_a_stopped_notebook_holds_no_code_or_output_and_survives_odd_metadata(tmp_path):
    nb = nbformat.v4.new_notebook()
    shown = nbformat.v4.new_code_cell("print(secret)", execution_count=1)
    shown.outputs = [nbformat.v4.new_output("stream", text="x" * 100_000)]
    odd = nbformat.v4.new_code_cell("pass")
    odd.metadata["nbgrader"] = "not a dict"  # a tampered cell, refused later: noting it must not stop the driver
    nb.cells = [shown, odd]
    write_progress(nb, str(tmp_path / "snapshot.json"))
    assert _running_cell(tmp_path) == "number 2"
    written = (tmp_path / "snapshot.json").read_text()
    assert "secret" not in written and len(written) < 1_000, written[:200]


@pytest.mark.unit
def test_the_exception_line_is_found_below_quoted_source():
    assert _exception_line("raise ValueError('x')\nValueError: x\n  quoted line\n") == "ValueError: x"
    assert _exception_line("no exception here") == ""


class _EndedDriver:
    """A driver that has ended: its sentinel is readable, its exit status known."""

    exitcode = 0

    def __init__(self):
        self.sentinel, writer = os.pipe()
        os.close(writer)


@pytest.mark.unit
def test_an_ended_drivers_exit_status_waits_while_another_driver_starts():
    # Starting a driver polls every running one: a second reader of a status pipe gets an EOF, which
    # multiprocessing records as exit code 255, so a notebook that ran is reported as crashed.
    driver, seen = _EndedDriver(), []
    with _runner._starting:
        reader = threading.Thread(target=lambda: seen.append(_ended(driver, 10)))
        reader.start()
        reader.join(0.5)
        assert reader.is_alive() and not seen, "the exit status was read while a driver was starting"
    reader.join(10)
    os.close(driver.sentinel)
    assert seen == [True]


@pytest.mark.unit
def test_memory_counts_shared_pages_once_only_when_the_resident_total_passes_the_limit(monkeypatch):
    """The resident total is never below the shared-pages-once (PSS) total, and costs microseconds where PSS
    costs milliseconds a process: PSS is read only to decide whether a tree past the limit really is."""
    # A tree of one process that starts nothing (this test's own process may have children of other tests).
    started = "import sys; print('started', flush=True); sys.stdin.read()"
    child = subprocess.Popen([sys.executable, "-c", started], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "started\n"  # its memory now stays put
        tree = psutil.Process(child.pid)
        resident, pss = tree.memory_info().rss / 2**20, tree.memory_full_info().pss / 2**20
        assert pss <= resident
        assert _runner._resident_mb(tree, limit_mb=0) == pytest.approx(pss, rel=0.05)  # past the limit: PSS decides

        def slow(self):
            raise AssertionError("PSS read for a tree within the limit")

        monkeypatch.setattr(psutil.Process, "memory_full_info", slow)
        assert _runner._resident_mb(tree, limit_mb=2 * resident + 64) == pytest.approx(resident, rel=0.05)
    finally:
        child.kill()
        child.wait()


# Written by the answer and imported, so the reading that refuses `os.kill` in a cell does not see it: kills the
# processes grading its kernel (the one that forked it and the one that started it), counting its attempts with the
# test's counter (an abstract Unix socket, which walls older than Landlock ABI 6 let a kernel reach), and only on its
# first attempt if `once`.
_KILL_ITS_GRADER = """import os, signal, socket

with socket.socket(socket.AF_UNIX) as counter:
    counter.connect({counter!r})
    counter.sendall({student!r}.encode())
    attempt = int(counter.recv(16))
if not {once} or attempt == 1:
    for pid in {{os.getppid(), int(os.environ.get("JPY_PARENT_PID") or 0)}} - {{0, 1}}:
        try:
            os.killpg(os.getpgid(pid), signal.SIGKILL)
        except OSError:
            pass
"""


@contextlib.contextmanager
def _attempts_counted(name: str):
    """An abstract Unix socket named `name` that answers each student's connection with its count so far."""
    counted: collections.Counter[str] = collections.Counter()
    server = socket.socket(socket.AF_UNIX)
    server.bind(name)
    server.listen()

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            with connection:
                student = connection.recv(64).decode()
                counted[student] += 1
                connection.sendall(str(counted[student]).encode())

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield counted
    finally:
        server.shutdown(socket.SHUT_RDWR)
        server.close()


@pytest.mark.grading
def test_a_submission_that_brings_its_grader_down_twice_is_recorded_and_never_tried_again(tmp_path):
    """Landlock before ABI 6 lets a kernel signal its grader: stood for with `$JAXCOURSE_LANDLOCK`, whatever this
    system's Landlock. The grader that loses a notebook's process grades it once more; a second loss is its last."""
    course = make_course(tmp_path, ASSIGNMENT)
    reference = solution_sources(ASSIGNMENT)
    first = next(iter(reference))
    counter = f"\0jax-course-test-{os.getpid()}-attempts"
    for student, once in (("killer", False), ("once", True)):
        module = _KILL_ITS_GRADER.format(counter=counter, student=student, once=once)
        code = f"\nopen('grader_killer.py', 'w').write({module!r})\nimport grader_killer\n"
        submit(course, ASSIGNMENT, student, {**reference, first: reference[first] + code})
    submit(course, ASSIGNMENT, "honest", reference)
    env = {**os.environ, "JAXCOURSE_LANDLOCK": "5"}
    with _attempts_counted(counter) as attempts:
        done = subprocess.run(
            [VENV_BIN / "jax-course", "grade", ASSIGNMENT, "--timeout", "120"],
            cwd=course, env=env, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
        assert attempts == {"killer": 2, "once": 2}, attempts
        recorded = (course / "grading" / ASSIGNMENT / "done" / "killer.json").read_text()
        # A resumed run does not try it again.
        again = jax_course_grade(course, ASSIGNMENT, "--timeout", "120", status=None)
        assert attempts == {"killer": 2, "once": 2}, attempts
        assert (course / "grading" / ASSIGNMENT / "done" / "killer.json").read_text() == recorded
    ledger = {p.stem: json.loads(p.read_text()) for p in (course / "grading" / ASSIGNMENT / "done").glob("*.json")}
    for student in ("honest", "once"):  # the loss it caused, and another's, cost an honest notebook nothing
        assert ledger[student]["status"] == "graded", ledger[student]
        assert ledger[student]["score"] == ledger[student]["max_score"], ledger[student]
    killer = ledger["killer"]
    assert killer["status"] == "failed" and killer["score"] == 0, killer
    assert killer["reason"].startswith("brought its grader down twice: not graded (the process grading it was "
                                       f"killed by SIGKILL, in cell {first})"), killer["reason"]  # fmt: skip
    assert f"jax-course grade {ASSIGNMENT} --student killer --force" in killer["reason"], killer["reason"]
    with open(course / "grading" / ASSIGNMENT / "report.csv") as report:
        assert {row["student"]: row["reason"] for row in csv.DictReader(report)}["killer"] == killer["reason"]
    assert not list((course / "grading" / ASSIGNMENT / "lost").glob("*.json"))
    assert again.returncode == 1, again.stderr[-3000:]
    assert not _leftover_kernels()


# As `jax-course grade --student NAME` runs a submission of two notebooks, in a new process.
GRADE_ALONE = """
import json, sys
import nbformat
from autograder.grading.batch import _runner
if __name__ == "__main__":
    _runner.start_forkserver(alone=True)
    _runner._started()
    waiting = [child.pid for child, _ in _runner._standby]
    cell = nbformat.v4.new_code_cell("import os\\nprint(os.getppid())")
    notebook = nbformat.writes(nbformat.v4.new_notebook(cells=[cell]))
    ran = []
    for more in (True, False):
        done = _runner.execute_submission(notebook, execute_config={"timeout": 60}, notebook_timeout=120,
                                          memory_mb=4000, more=more)
        ran.append(int(nbformat.reads(done.notebook, as_version=4).cells[0].outputs[0]["text"]))
        waiting += [child.pid for child, _ in _runner._standby]
    _runner.start_forkserver(alone=True)  # a grader with nothing to run
    _runner._started()
    unused = _runner._standby[0][0].pid
    _runner.stop_forkserver()
    print(json.dumps({"waiting": waiting, "ran": ran, "unused": unused}))
"""


@pytest.mark.grading
def test_one_student_alone_runs_in_drivers_forked_before_their_notebooks(tmp_path):
    (tmp_path / "grade_alone.py").write_text(GRADE_ALONE)
    done = subprocess.run(
        [sys.executable, tmp_path / "grade_alone.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.splitlines()[-1])
    # The first driver waited from the start; the second was forked as the first notebook began, since another
    # followed it; none waits after the last.
    assert said["ran"] == said["waiting"] and len(set(said["ran"])) == 2, said
    assert not psutil.pid_exists(said["unused"]), "a driver left waiting outlived its grader's forkserver"
