"""What runs in the child process that executes one notebook (see `_runner.py`).

The forkserver imports this module once, and with it nbformat and nbgrader, so no
notebook pays for those imports again; for one submission graded alone, a driver forked
before its notebook is known imports them while the grader starts (`standby`).
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import select
import signal
import sys
import threading
from pathlib import Path

import nbformat
import psutil
from traitlets.config import Config
from traitlets.utils.importstring import import_item

from ..kernels import _nursery

_PR_SET_CHILD_SUBREAPER = 36


def _snapshots(snapshot: str) -> type:
    """nbgrader's Execute, noting after every cell which cells have run (`write_progress`): a stopped notebook's
    reason names the cell it stopped in. Made when a driver runs, so that importing this module (the grader's
    first step, to start the forkserver) does not wait for nbgrader."""
    from nbgrader.preprocessors import Execute

    from ..kernels._outputs import CappedOutputs

    class Snapshots(CappedOutputs, Execute):
        def on_cell_executed(self, **kwargs):
            super().on_cell_executed(**kwargs)
            write_progress(self.nb, snapshot)

    return Snapshots


def write_progress(nb, path: str) -> None:
    """Each cell of `nb` with its type, execution count and nbgrader grade_id, as `{"cells": [...]}`: what the grader
    reads of a notebook that stopped (`_runner._running_cell`). Not the notebook itself: copied, validated and
    written whole after every cell, it costs the more the more the student's code prints."""
    cells = []
    for cell in nb.cells:
        metadata = cell.get("metadata")
        nbgrader = metadata.get("nbgrader") if isinstance(metadata, dict) else None
        grade_id = nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None
        ran = {"cell_type": cell.get("cell_type"), "execution_count": cell.get("execution_count")}
        cells.append({**ran, "metadata": {"nbgrader": {"grade_id": grade_id}}})
    Path(path + ".partial").write_text(json.dumps({"cells": cells}))
    os.replace(path + ".partial", path)


def kill_tree(pid: int) -> None:
    """SIGKILL `pid`, every process under it, and the process groups they lead (a kernel leads its own)."""
    try:
        root = psutil.Process(pid)
        found = [*root.children(recursive=True), root]
    except psutil.NoSuchProcess:
        found = []
    # `pid`'s own group last: a driver ending itself stops at that line.
    for pgid in [*(p.pid for p in found if p.pid != pid), pid]:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for process in found:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass


def _die_with(grader: int) -> None:
    """End this driver and its kernel when the grader ends, even by SIGKILL.

    PR_SET_PDEATHSIG would name the forkserver, which outlives the grader while any child
    holds its pipe; a pidfd on the grader itself says when it is gone.
    """
    try:
        watched = os.pidfd_open(grader)
    except ProcessLookupError:
        watched = None
    if watched is not None:
        select.select([watched], [], [])
    kill_tree(os.getpid())


def standby(jobs) -> None:
    """A driver forked before its notebook is known (one submission graded alone, `_runner.start_forkserver`):
    it imports nbgrader while the grader starts, then runs the job the grader sends (none: it ends)."""
    importlib.import_module("nbgrader.preprocessors")
    try:
        job = jobs.recv()
    except EOFError:
        return
    jobs.close()
    run(job)


def run(job: dict) -> None:
    """Execute `job["source"]` with nbgrader's `Execute` into `job["result"]`, isolated and limited."""
    if (forkserver := sys.modules.get(f"{__package__}._parent_only")) is not None:
        forkserver.lift()  # the forkserver's own guard: nothing here is the forkserver
    # Its own session: a Ctrl-C meant for the grader does not reach it.
    os.setsid()
    # Orphans of the kernel (a submission's forks) stay under this driver, so the kill finds them;
    # no library sets this Linux process attribute.
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    if job["core"] is not None:
        os.sched_setaffinity(0, {job["core"]})
    os.chdir(job["cwd"])
    os.environ.update(job["env"])
    null = os.open(os.devnull, os.O_RDWR)
    errors = os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(null, 1)
    os.dup2(errors, 2)
    # While this process has one thread: the kernel's nursery, forked with what the forkserver imported.
    _nursery.prepare()
    threading.Thread(target=_die_with, args=(job["grader"],), daemon=True).start()
    nb = nbformat.read(job["source"], as_version=4)
    # The kernel's sockets are files, in a folder of their own (the kernel may make sockets there, and nowhere
    # this process reads): TCP ports, picked free and then bound by the kernel, can be taken in between by
    # another kernel starting on a busy machine.
    sockets = Path(job["cwd"]) / "kernel"
    sockets.mkdir(mode=0o700)
    connection = {"transport": "ipc", "connection_file": str(sockets / "kernel.json")}
    config = dict(job["config"])
    manager = import_item(config.pop("kernel_manager_class", "jupyter_client.manager.AsyncKernelManager"))
    executor = _snapshots(job["snapshot"])(
        config=Config({"Execute": config, "KernelManager": connection}), kernel_manager_class=manager
    )
    nb, _ = executor.preprocess(nb, {"metadata": {"path": job["kernel_cwd"]}})
    partial = Path(job["result"]).with_suffix(".partial")
    nbformat.write(nb, partial)
    os.replace(partial, job["result"])
