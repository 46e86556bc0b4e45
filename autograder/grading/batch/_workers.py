"""Where notebooks run: on this machine's cores, or on a Dask cluster's workers."""

from __future__ import annotations

import math
import os
import queue
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import cast

import psutil

from ..verification._verification import verify_ahead
from ..verification._verifier import MEMORY_MB, Limits, verifier_for
from ._convert import GradingError
from ._runner import SCRATCH, WORKER_ENVIRONMENT, Execution, execute_submission, may_start_processes, start_forkserver

# Runs one sanitized notebook (JSON text) with nbgrader's Execute settings, in a folder; and whether another
# notebook of the same submission follows it.
Runner = Callable[[str, dict, str, bool], Execution]


def on_this_machine(workers: int, limits: dict, stop: threading.Event, alone: bool = False) -> tuple[Runner, int]:
    """A runner for this machine, and how many notebooks run at once: each kernel on a core of its own.
    One submission graded `alone` needs no kernel libraries in the forkserver (`start_forkserver`)."""
    cores = sorted(os.sched_getaffinity(0))
    slots = workers or len(cores)
    free: queue.Queue[int] = queue.Queue()
    for slot in range(slots):
        free.put(cores[slot % len(cores)])
    start_forkserver(alone)
    remove_what_killed_graders_left()

    def here(notebook: str, config: dict, folder: str, more: bool) -> Execution:
        core = free.get()
        try:
            run = dict(folder=folder, execute_config=config, core=core, stop=stop, more=more)
            return execute_submission(notebook, **run, **limits)
        finally:
            free.put(core)

    return here, slots


def remove_what_killed_graders_left() -> None:
    """The scratch folders of graders that are no longer running (killed: a normal end removes its own), each
    with a submission and the references it was compared with."""
    for folder in Path(tempfile.gettempdir()).glob(f"{SCRATCH}*-*"):
        grader = folder.name.removeprefix(SCRATCH).partition("-")[0]
        if grader.isdigit() and not psutil.pid_exists(int(grader)):
            shutil.rmtree(folder, ignore_errors=True)


def on_cluster(scheduler: str, workers: int, limits: dict):
    """`(client, runner, slots)` for a Dask cluster, whose workers need this package installed."""
    from distributed import Client
    from distributed.scheduler import KilledWorker

    client = Client(scheduler, timeout="30s")
    unable = [worker for worker, able in cast(dict[str, bool], client.run(may_start_processes)).items() if not able]
    if unable:
        client.close()
        variables = " ".join(f"{k}={v}" for k, v in WORKER_ENVIRONMENT.items())
        raise GradingError(
            f"the Dask workers {', '.join(unable)} run as daemonic processes, which cannot start the process "
            f"that runs a notebook: start them with {variables} (Dask's distributed.worker.daemon: false)"
        )
    slots = workers or sum(cast(dict[str, int], client.nthreads()).values())

    def remote(notebook: str, config: dict, folder: str, more: bool) -> Execution:
        future = client.submit(execute_submission, notebook, folder=folder, execute_config=config, pure=False, **limits)
        try:
            return future.result()
        except KilledWorker as error:  # the worker died running it, as many times as Dask tries a task
            lost = f"lost: the process grading it was killed with its Dask worker ({error})"
            return Execution(None, lost, 0.0, lost=True)

    return client, remote, slots


def execute_all(
    runner: Runner,
    config: dict,
    prepared: list[tuple[str, str]],
    assignment: str,
    env: dict[str, str],
    notebook_timeout: float = math.inf,
    memory_mb: float = MEMORY_MB,
) -> list[tuple[str, Execution]]:
    """Run a submission's notebooks, each in its folder under `autograded/` (as nbgrader does), and verify
    their answers here, in this worker's thread, rather than one notebook at a time when they are recorded: within
    the notebook's limits, its verification taking what its run left of `notebook_timeout`."""
    if config.get("enabled") is False:  # `--no-execute`: graded on the outputs submitted
        return [(path, Execution(text, None, 0.0)) for path, text in prepared]
    done = []
    for n, (path, text) in enumerate(prepared, 1):
        with verifier_for(assignment, env) as verifier:  # started now, in the background
            execution = runner(text, config, str(Path(path).parent.resolve()), n < len(prepared))
            if verifier is not None and (executed := execution.notebook):
                left = max(notebook_timeout - execution.seconds, 0.0)
                verify_ahead(verifier, executed, env, Limits(memory_mb, None if math.isinf(left) else left))
        done.append((path, execution))
        if execution.failure:  # nbgrader goes no further in a submission that failed
            break
    return done
