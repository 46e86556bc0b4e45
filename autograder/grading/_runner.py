"""Running one submission's notebook, with limits, away from the grader.

`execute_submission` is what a grading worker does, on this machine or on a Dask
worker: it runs nbgrader's own `Execute` preprocessor in a child process (its own
session, so the child, its kernel and anything they start can be killed together),
under a wall-clock limit for the whole notebook and a memory limit for all of
those processes together. It never touches the gradebook: it returns the executed
notebook, or why there is none.

The child is forked from a launcher (one per grading thread) that has imported
nbformat and nbgrader once: importing them costs about 2 s, as long as a small
notebook takes to run. Run as `python .../_sandbox.py --launcher` it is that launcher.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

# Each worker's kernel computes on one core: workers that fight over cores make timing
# checks (ratios measured in one process) unfair. XLA honours these flags on CPU.
THREAD_LIMITS = {
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36


@dataclass
class Execution:
    """What a worker sends back: `notebook` (JSON text) when it ran, else `failure` says why
    and `partial` holds the notebook as it was after the last cell that finished."""

    notebook: str | None
    failure: str | None
    partial: str | None
    seconds: float
    peak_mb: float


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(parent, []).append(int(entry.name))
    return tree


def descendants(pid: int) -> list[int]:
    """`pid` and every process under it (Linux /proc), found even in other sessions."""
    tree, found, stack = _children(), [], [pid]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(tree.get(current, []))
    return found


def resident_mb(pids: list[int]) -> float:
    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * page
        except (OSError, IndexError, ValueError):
            pass
    return total / 2**20


def kill_tree(pid: int) -> None:
    """Kill `pid`, its session, and every descendant (a kernel runs in a session of its own)."""
    for target in descendants(pid):
        for kill in (lambda p: os.killpg(p, signal.SIGKILL), lambda p: os.kill(p, signal.SIGKILL)):
            try:
                kill(target)
            except (ProcessLookupError, PermissionError):
                pass


def _die_with_parent() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class _Launcher:
    """The grading thread's launcher process: `start` forks a driver for one notebook, `exit_code` waits for it."""

    _local = threading.local()
    _every: list["_Launcher"] = []

    @classmethod
    def for_this_thread(cls) -> "_Launcher":
        launcher = getattr(cls._local, "launcher", None)
        if launcher is None or launcher.process.poll() is not None:
            launcher = cls._local.launcher = cls()
            cls._every.append(launcher)
        return launcher

    @classmethod
    def close_all(cls) -> None:
        """End every launcher (each finishes its loop when its input closes) and reap it."""
        while cls._every:
            launcher = cls._every.pop()
            try:
                launcher.process.stdin.close()
                launcher.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                launcher.process.kill()
                launcher.process.wait()
        cls._local = threading.local()

    def __init__(self):
        # Its own session: a Ctrl-C meant for the grader does not reach it. It dies with this
        # thread, and its drivers die with it (PR_SET_PDEATHSIG), even when the grader is killed.
        self.process = subprocess.Popen(
            # A script, not `-m autograder._sandbox`: importing the package would import JAX.
            [sys.executable, __file__, "--launcher"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, start_new_session=True, preexec_fn=_die_with_parent,
        )
        self.pending = b""

    def start(self, job: dict) -> int:
        self.process.stdin.write(json.dumps(job).encode() + b"\n")
        self.process.stdin.flush()
        line = self._line(timeout=60)
        if line is None or not line.startswith("started "):
            raise RuntimeError(f"the grading launcher did not start a notebook ({line!r})")
        return int(line.split()[1])

    def exit_code(self, timeout: float) -> int | None:
        """The driver's exit code once it has ended, None while it runs after `timeout` seconds."""
        line = self._line(timeout)
        if line is None:
            return -1 if self.process.poll() is not None else None  # a dead launcher took its driver along
        return int(line.split()[1])

    def _line(self, timeout: float) -> str | None:
        end = time.monotonic() + timeout
        stdout = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            ready, _, _ = select.select([stdout], [], [], max(end - time.monotonic(), 0))
            if not ready:
                return None
            chunk = os.read(stdout, 4096)
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode()


def close_launchers() -> None:
    """Stop this process's launchers, once no notebook runs (the end of a batch)."""
    _Launcher.close_all()


def execute_submission(
    notebook: str,
    *,
    execute_config: dict,
    notebook_timeout: float,
    memory_mb: float,
    core: int | None = None,
    environment: dict[str, str] | None = None,
    stop=None,
    poll: float = 0.2,
) -> Execution:
    """Run a sanitized submission (nbformat JSON text) and return its executed JSON or a failure."""
    start = time.monotonic()
    env = {**THREAD_LIMITS, **(environment or {}), "NBGRADER_EXECUTION": "autograde"}
    peak = 0.0
    with tempfile.TemporaryDirectory(prefix="jax-course-grade-") as scratch:
        source, result = Path(scratch) / "submission.ipynb", Path(scratch) / "executed.ipynb"
        snapshot, errors = result.with_name("snapshot.ipynb"), Path(scratch) / "stderr.txt"
        source.write_text(notebook)
        launcher = _Launcher.for_this_thread()
        pid = launcher.start(dict(source=str(source), result=str(result), config=execute_config, snapshot=str(snapshot),
                                  cwd=scratch, env=env, core=core, stderr=str(errors)))
        failure, returncode = None, None
        try:
            while (returncode := launcher.exit_code(poll)) is None:
                peak = max(peak, resident_mb(descendants(pid)))
                if peak > memory_mb:
                    failure = f"memory: used more than the limit of {memory_mb:.0f} MB"
                    break
                if stop is not None and stop.is_set():
                    failure = "interrupted: the grader was stopped"
                    break
                if time.monotonic() - start > notebook_timeout:
                    failure = f"timeout: the notebook ran longer than the limit of {notebook_timeout:.0f} s"
                    break
        finally:
            kill_tree(pid)  # also whatever the submission left running
            if returncode is None:
                returncode = launcher.exit_code(30)
        stderr = errors.read_text(errors="replace") if errors.is_file() else ""
        if failure is None and returncode != 0:
            tail = " ".join(stderr.strip().splitlines()[-2:])[-300:]
            failure = f"crashed: the notebook could not be run ({tail or f'exit code {returncode}'})"
        executed = result.read_text() if failure is None and result.is_file() else None
        if failure is None and executed is None:
            failure = "crashed: the notebook produced no result"
        partial = snapshot.read_text() if failure and snapshot.is_file() else None
    return Execution(executed, failure, partial, time.monotonic() - start, peak)


def _main(source: str, result: str, config: dict, snapshot: str) -> None:
    import nbformat
    from nbgrader.preprocessors import Execute
    from traitlets.config import Config

    class Snapshots(Execute):
        """Saves the notebook after every cell: if the whole notebook is stopped, finished cells still count."""

        def on_cell_executed(self, **kwargs):
            super().on_cell_executed(**kwargs)
            nbformat.write(self.nb, snapshot + ".partial")
            os.replace(snapshot + ".partial", snapshot)

    nb = nbformat.read(source, as_version=4)
    executor = Snapshots(config=Config({"Execute": config}))
    nb, _ = executor.preprocess(nb, {"metadata": {"path": str(Path(source).parent)}})
    partial = Path(result).with_suffix(".partial")
    nbformat.write(nb, partial)
    os.replace(partial, result)


def _launcher() -> None:
    """Read one job (JSON) per line; fork a driver for it; report `started PID`, then `exited CODE`."""
    import nbformat  # noqa: F401  (imported once here, inherited by every fork)
    from nbgrader.preprocessors import Execute  # noqa: F401

    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.setsid()
                # Orphans of the kernel (a submission's forks) stay under this driver, so the kill finds them.
                ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
                _die_with_parent()
                if job["core"] is not None:
                    os.sched_setaffinity(0, {job["core"]})
                os.chdir(job["cwd"])
                os.environ.update(job["env"])
                null = os.open(os.devnull, os.O_RDWR)
                errors = os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                os.dup2(null, 0)
                os.dup2(null, 1)  # the launcher's protocol stays clean
                os.dup2(errors, 2)
                _main(job["source"], job["result"], job["config"], job["snapshot"])
                code = 0
            except BaseException:
                import traceback

                traceback.print_exc()
            finally:
                sys.stderr.flush()
                os._exit(code)
        print(f"started {pid}", flush=True)
        _, status = os.waitpid(pid, 0)
        print(f"exited {os.waitstatus_to_exitcode(status)}", flush=True)


if __name__ == "__main__":
    # jsonschema imports rfc3987_syntax (about 1 s) only to check "iri" formats, which nbformat's
    # schema never uses.
    sys.modules.setdefault("rfc3987_syntax", None)
    _launcher()
