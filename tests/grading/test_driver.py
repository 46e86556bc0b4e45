"""Ending a notebook's process tree: every descendant, and the process groups they lead."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil
import pytest

from autograder.grading.batch._driver import kill_tree

pytestmark = pytest.mark.unit


def test_kill_tree_ends_a_child_and_a_grandchild_in_its_own_session():
    # A child that starts a grandchild in a new session (as a kernel is), then waits.
    code = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], start_new_session=True)\n"
        "time.sleep(60)"
    )
    child = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 20
    while not psutil.Process(child.pid).children() and time.monotonic() < deadline:
        time.sleep(0.05)
    (grandchild,) = psutil.Process(child.pid).children()
    kill_tree(child.pid)
    child.wait(timeout=10)
    grandchild.wait(timeout=10)
    assert not grandchild.is_running() or grandchild.status() == psutil.STATUS_ZOMBIE
