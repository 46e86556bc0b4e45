"""Where notebooks run: one slot per core here unless told otherwise; what killed graders left, removed."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading

import pytest

from autograder.grading.batch._runner import SCRATCH, may_start_processes, stop_forkserver
from autograder.grading.batch._workers import on_this_machine, remove_what_killed_graders_left

pytestmark = pytest.mark.unit


def test_one_slot_per_core_unless_a_number_of_workers_is_given():
    stop = threading.Event()
    _, slots = on_this_machine(0, {}, stop)
    assert slots == len(os.sched_getaffinity(0))
    _, slots = on_this_machine(3, {}, stop)
    stop_forkserver()  # which on_this_machine started, for the notebooks it would run
    assert slots == 3


def test_this_process_may_start_the_notebook_s_process():
    assert may_start_processes()


def test_the_scratch_folders_of_a_grader_no_longer_running_are_removed_and_no_others(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ended = subprocess.Popen(["true"])
    ended.wait()
    killed, running = tmp_path / f"{SCRATCH}{ended.pid}-abc", tmp_path / f"{SCRATCH}{os.getpid()}-def"
    other = tmp_path / "jax-course-check-xyz"
    for folder in (killed, running, other):
        (folder / "references").mkdir(parents=True)
        (folder / "submission.ipynb").write_text("{}")
    remove_what_killed_graders_left()
    assert not killed.exists() and running.exists() and other.exists()
