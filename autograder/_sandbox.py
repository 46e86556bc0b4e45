"""Running one submission's notebook, with limits, away from the grader.

`execute_submission` is what a grading worker does, on this machine or on a Dask
worker: it runs nbgrader's own `Execute` preprocessor in a child process (its own
session, so the child, its kernel and anything they start can be killed together),
under a wall-clock limit for the whole notebook and a memory limit for all of
those processes together. It never touches the gradebook: it returns the executed
notebook, or why there is none.

Run as `python .../_sandbox.py IN OUT CONFIG_JSON SNAPSHOT` it is that child.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile
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
    env = {**os.environ, **THREAD_LIMITS, **(environment or {}), "NBGRADER_EXECUTION": "autograde"}
    peak = 0.0
    with tempfile.TemporaryDirectory(prefix="jax-course-grade-") as scratch:
        source, result = Path(scratch) / "submission.ipynb", Path(scratch) / "executed.ipynb"
        snapshot = result.with_name("snapshot.ipynb")
        source.write_text(notebook)

        def pin() -> None:
            # Orphans of the kernel (a submission's forks) stay under this child, so the kill finds them.
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
            # ... and it dies with the grader, even a grader killed with SIGKILL.
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if core is not None:
                os.sched_setaffinity(0, {core})

        child = subprocess.Popen(
            # Run as a script, not `-m autograder._sandbox`: importing the package would import JAX
            # (seconds per notebook) into a process that only drives the kernel.
            [sys.executable, __file__, str(source), str(result), json.dumps(execute_config), str(snapshot)],
            cwd=scratch, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True, preexec_fn=pin,
        )
        failure = None
        try:
            while child.poll() is None:
                peak = max(peak, resident_mb(descendants(child.pid)))
                if peak > memory_mb:
                    failure = f"memory: used more than the limit of {memory_mb:.0f} MB"
                    break
                if stop is not None and stop.is_set():
                    failure = "interrupted: the grader was stopped"
                    break
                if time.monotonic() - start > notebook_timeout:
                    failure = f"timeout: the notebook ran longer than the limit of {notebook_timeout:.0f} s"
                    break
                time.sleep(poll)
        finally:
            kill_tree(child.pid)  # also whatever the submission left running
            stderr = child.communicate()[1].decode(errors="replace")
        if failure is None and child.returncode != 0:
            tail = " ".join(stderr.strip().splitlines()[-2:])[-300:]
            failure = f"crashed: the notebook could not be run ({tail or f'exit code {child.returncode}'})"
        executed = result.read_text() if failure is None and result.is_file() else None
        if failure is None and executed is None:
            failure = "crashed: the notebook produced no result"
        partial = snapshot.read_text() if failure and snapshot.is_file() else None
    return Execution(executed, failure, partial, time.monotonic() - start, peak)


def _main(source: str, result: str, config: str, snapshot: str) -> None:
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
    executor = Snapshots(config=Config({"Execute": json.loads(config)}))
    nb, _ = executor.preprocess(nb, {"metadata": {"path": str(Path(source).parent)}})
    partial = Path(result).with_suffix(".partial")
    nbformat.write(nb, partial)
    os.replace(partial, result)


if __name__ == "__main__":
    # jsonschema imports rfc3987_syntax (about 1 s) only to check "iri" formats, which nbformat's
    # schema never uses: this driver starts once per notebook, so it goes without.
    sys.modules.setdefault("rfc3987_syntax", None)
    _main(*sys.argv[1:5])
