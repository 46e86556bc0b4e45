"""Running one submission's notebook, with limits, away from the grader.

`execute_submission` is what a grading worker does, on this machine or on a Dask
worker: it runs nbgrader's own `Execute` preprocessor in a child process (`_driver.py`,
forked by multiprocessing's forkserver, which imported nbformat and nbgrader once),
under a wall-clock limit for the whole notebook and a memory limit for the child, its
kernel and anything they start together. It never touches the gradebook: it returns
the executed notebook, or why there is none.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import multiprocessing.connection
import multiprocessing.forkserver
import multiprocessing.process
import os
import re
import signal
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from ..._config import GRADER_SEED, PROTECTED, REFERENCES, environment_with
from ..._sandbox import SCRATCH
from ..kernels._keeper import STOPPED_BY_GRADER
from ..kernels._memory import memory_mb
from ..kernels._nursery import PRELOAD
from ..references._compiled import read_only
from . import _driver

# Each worker's kernel computes on one core: workers that fight over cores make timing
# checks (ratios measured in one process) unfair. XLA honours these flags on CPU.
THREAD_LIMITS = {
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
# A Dask worker runs notebooks only if its process may start others: Dask's nanny makes worker
# processes daemonic unless `distributed.worker.daemon` is false.
WORKER_ENVIRONMENT = {"DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
_POLL_SECONDS = 0.2
# In the environment of every kernel a grader starts: the grader's process id, so that what a killed
# grader left running can be found; its drivers work in folders named SCRATCH, then its pid, then "-".
GRADED_BY = "JAXCOURSE_GRADED_BY"

_forkserver = multiprocessing.get_context("forkserver")
# The kernels' libraries too: each driver forks its kernel's nursery from what the forkserver imported.
# First, what makes it hear only the grader (`_parent_only.py`), imported there and not here.
_DRIVER_PRELOAD = [f"{__package__}._parent_only", _driver.__name__, "nbgrader.preprocessors"]
_forkserver.set_forkserver_preload([*_DRIVER_PRELOAD, *PRELOAD])
# What the kernels of the set being graded import ahead (`start_forkserver`).
_kernel_preload: list[str] = list(PRELOAD)
# Held while a driver starts and while one's exit status is read: `Process.start()` polls every running
# child, and two threads reading one child's status pipe at once leave one of them an EOF, which
# multiprocessing reports as exit code 255 (a correctly run notebook recorded as crashed).
_starting = threading.Lock()
# The driver of one submission graded alone, forked before its notebook is known, and where its job goes.
_standby: list[tuple[multiprocessing.process.BaseProcess, multiprocessing.connection.Connection]] = []
_forking: list[threading.Thread] = []


@dataclass
class Execution:
    """What a worker sends back: `notebook` (JSON text) when it ran, else `failure` says why. `lost`: the
    process grading it was killed while it ran, by no limit of the grader's (the submission's code, or the system)."""

    notebook: str | None
    failure: str | None
    seconds: float
    lost: bool = False


def start_forkserver(alone: bool = False, preload: Sequence[str] | None = None) -> None:
    """Start the forkserver now, so that it imports nbformat, nbgrader and the kernels' libraries (`preload`: those
    of the set being graded, `_nursery.preload_for`; by default, as asked before, else `PRELOAD`) while the grader
    starts up too; with the kernels' thread limits, which those libraries read on import.

    For one submission graded `alone` (`--student NAME`), the forkserver imports nothing: nothing would share
    its libraries. Its one driver is forked now instead, and imports nbgrader while the grader does, then waits
    for its notebook (`_driver.standby`); it starts the kernel's nursery, if the course's kernels have one, as
    nbgrader's Execute step would (`_nursery.prepare`). The process tree then holds one copy of nbgrader less.
    """
    if preload is not None:
        _kernel_preload[:] = preload
    _forkserver.set_forkserver_preload(_DRIVER_PRELOAD[:1] if alone else [*_DRIVER_PRELOAD, *_kernel_preload])
    with environment_with(THREAD_LIMITS):
        multiprocessing.forkserver.ensure_running()
    if alone and not (_standby or _forking):
        # In the background: the forkserver answers once it has imported its own preload.
        _forking.append(threading.Thread(target=_start_standby, args=(True,), daemon=True))
        _forking[-1].start()


def _started() -> None:
    """Wait for a driver being forked in the background (`start_forkserver`)."""
    while _forking:
        _forking.pop().join()


def _start_standby(lock: bool = False) -> None:
    """Fork a driver that waits for its notebook (`_driver.standby`); holding `_starting`, or taking it (`lock`)."""
    if lock:
        with _starting:
            _start_standby()
        return
    jobs, send = _forkserver.Pipe(duplex=False)
    child = _forkserver.Process(target=_driver.standby, args=(jobs,), daemon=True)
    child.start()
    jobs.close()
    _standby.append((child, send))


def stop_forkserver() -> None:
    """End and reap the forkserver after a batch, so that it and the notebooks it ran count as this process's;
    and a driver still waiting for a notebook (none was run).

    The standard library has no public call for this; its own tests use `ForkServer._stop`. The batch is
    over, so the forkserver is ended rather than asked: a batch with nothing to grade would otherwise wait
    for it to finish importing the kernels' libraries.
    """
    _started()
    while _standby:
        child, jobs = _standby.pop()
        jobs.close()
        child.kill()
        _ended(child, None)
    server = multiprocessing.forkserver._forkserver
    pid = getattr(server, "_forkserver_pid", None)
    if pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    stop = getattr(server, "_stop", None)
    if stop is not None:
        stop()


def _driver_for(job: dict, more: bool):
    """A started driver running `job`: the one waiting for a notebook, if there is one (and another to wait for
    the next, if `more` of the submission's notebooks follow); else one forked now. Called holding `_starting`."""
    while _standby:
        child, jobs = _standby.pop()
        try:
            if child.is_alive():
                jobs.send(job)
                if more:
                    _start_standby()
                return child
        except OSError:
            pass  # it ended meanwhile
        finally:
            jobs.close()
    child = _forkserver.Process(target=_driver.run, args=(job,), daemon=True)
    child.start()
    return child


def may_start_processes() -> bool:
    """Whether this process may start the child that runs a notebook (a daemonic one may not)."""
    return not multiprocessing.current_process().daemon


def _resident_mb(process: psutil.Process, limit_mb: float) -> float:
    """The memory of `process` and every process under it, in MB (`kernels/_memory.py`)."""
    try:
        tree = [process, *process.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    return memory_mb(tree, limit_mb)


def _watch(child, notebook_timeout: float, memory_mb: float, stop: threading.Event | None) -> str | None:
    """Wait for `child` to end; the reason to stop it early, if one comes first."""
    start = time.monotonic()
    tree = psutil.Process(child.pid)
    while True:
        if _ended(child, _POLL_SECONDS):
            return None
        if _resident_mb(tree, memory_mb) > memory_mb:
            return f"memory: used more than the limit of {memory_mb:.0f} MB"
        if stop is not None and stop.is_set():
            return "interrupted: the grader was stopped"
        if time.monotonic() - start > notebook_timeout:
            return f"timeout: the notebook ran longer than the limit of {notebook_timeout:.0f} s"


def _ended(child, timeout: float | None) -> bool:
    """Whether `child` ended, waiting up to `timeout` seconds (None: until it does)."""
    if not multiprocessing.connection.wait([child.sentinel], timeout):
        return False
    with _starting:
        return child.exitcode is not None


def execute_submission(
    notebook: str,
    *,
    folder: str | None = None,
    execute_config: dict,
    notebook_timeout: float,
    memory_mb: float,
    core: int | None = None,
    stop: threading.Event | None = None,
    seed: int | None = None,
    references: dict[str, bytes] | None = None,
    protected: str = "",
    compiled: str = "",
    more: bool = False,
) -> Execution:
    """Run a sanitized submission (nbformat JSON text) and return its executed JSON or a failure.

    The kernel runs in `folder` (the submission's `autograded/STUDENT/ASSIGNMENT/`, where nbgrader
    copied the course's and the student's files), as under `nbgrader autograde`; a Dask worker that
    does not share that folder runs the notebook in an empty one. Its hidden inputs are drawn from
    `seed`, and compared with `references` (`ASSIGNMENT/NAME.npz` to its bytes) when given. The kernel
    may not touch the `protected` folders (`_sandbox.py`), but loads programs from `compiled` by name
    (`references/_compiled.py`). `more`: another notebook of the same submission runs after this one.
    """
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"{SCRATCH}{os.getpid()}-") as scratch:
        work = Path(scratch)
        (work / "submission.ipynb").write_text(notebook)
        hidden = {} if seed is None else {GRADER_SEED: str(seed), PROTECTED: protected}
        if compiled and seed is not None:
            hidden.update(read_only(Path(compiled)))
        for name, content in (references or {}).items():
            (work / "references" / name).parent.mkdir(parents=True, exist_ok=True)
            (work / "references" / name).write_bytes(content)
            hidden[REFERENCES] = str(work / "references")
        job = dict(
            source=str(work / "submission.ipynb"),
            result=str(work / "executed.ipynb"),
            snapshot=str(work / "snapshot.json"),
            stderr=str(work / "stderr.txt"),
            cwd=scratch,
            kernel_cwd=os.path.abspath(folder) if folder and os.path.isdir(folder) else _empty(work / "notebook"),
            config=execute_config,
            core=core,
            grader=os.getpid(),
            env={**THREAD_LIMITS, **hidden, "NBGRADER_EXECUTION": "autograde", GRADED_BY: str(os.getpid())},
        )
        _started()
        with _starting:
            child = _driver_for(job, more)
        assert child.pid is not None
        failure = None
        try:
            failure = _watch(child, notebook_timeout, memory_mb, stop)
        finally:
            _driver.kill_tree(child.pid)  # a stopped notebook, and whatever the submission left running
            _ended(child, None)
        # Ended by a signal no limit sent: the driver grades this notebook alone, so its code (or the system,
        # out of memory) killed it. A grader killed itself takes its drivers with it, and records nothing.
        lost = failure is None and (child.exitcode or 0) < 0
        if failure is not None:
            failure += f", in cell {_running_cell(work)}"
        failure = failure or _failure(child.exitcode, work, float(execute_config.get("timeout") or 0))
        executed = (work / "executed.ipynb").read_text() if failure is None else None
    return Execution(executed, failure, time.monotonic() - start, lost)


def _empty(folder: Path) -> str:
    """A folder of its own for a kernel with no submission's folder: never this scratch folder, whose files the
    grader reads once the kernel has run (the kernel may write only its own folder, `_sandbox.py`)."""
    folder.mkdir()
    return str(folder)


def _running_cell(folder: Path) -> str:
    """The cell that was running when the notebook stopped: its grade_id, or its number."""
    latest = folder / "snapshot.json" if (folder / "snapshot.json").is_file() else folder / "submission.ipynb"
    try:
        cells = json.loads(latest.read_text())["cells"]
    except (OSError, ValueError, KeyError):
        return "unknown"
    for number, cell in enumerate(cells, 1):
        if cell.get("cell_type") == "code" and cell.get("execution_count") is None:
            return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") or f"number {number}"
    return "unknown"


_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit))\b(?::\s*(.*))?$")


def _exception_line(stderr: str) -> str:
    """The last `Name: message` line of a traceback: never the cell source a traceback may quote."""
    for line in reversed(stderr.strip().splitlines()):
        found = _EXCEPTION.match(line.strip())
        if found:
            return f"{found[1]}: {found[2]}"[:200] if found[2] else found[1]
    return ""


def _failure(exitcode: int | None, folder: Path, cell_timeout: float) -> str | None:
    """Why a driver that ended on its own left no executed notebook, or None if it did."""
    if exitcode == 0 and (folder / "executed.ipynb").is_file():
        return None
    if exitcode == 0:
        return "crashed: the notebook produced no result"
    if exitcode is not None and exitcode < 0:
        return f"lost: the process grading it was killed by {_signal_name(-exitcode)}, in cell {_running_cell(folder)}"
    errors = folder / "stderr.txt"
    error = _exception_line(errors.read_text(errors="replace") if errors.is_file() else "")
    cell = _running_cell(folder)
    if STOPPED_BY_GRADER in error:  # its kernel's keeper (`kernels/_keeper.py`)
        why = error.partition(STOPPED_BY_GRADER)[2]
        return f"{'memory' if 'memory' in why else 'files'}: cell {cell} was stopped: {why}"
    if "timeout" in error.lower() or "timed out" in error.lower():
        return (
            f"timeout: cell {cell} ran longer than the limit of {cell_timeout:g} s per cell, and its kernel did not "
            "stop when interrupted (a long compilation does not)"
        )
    return f"crashed: the notebook could not be run, in cell {cell} ({error or f'exit code {exitcode}'})"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
