"""Where notebooks run: one slot per core here unless told otherwise."""

from __future__ import annotations

import os
import threading

import pytest

from autograder.grading._runner import may_start_processes, stop_forkserver
from autograder.grading._workers import on_this_machine

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
