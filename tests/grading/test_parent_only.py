"""`jax-course grade`'s forkserver hears only the grader that started it (`_parent_only.py`)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.unit

# Another process on the machine (a kernel, say) that finds the forkserver's socket and asks it to fork, as the
# grader would: four descriptors, the first for the pickled process to run, the second for the new pid.
_STRANGER = """
import os, socket, sys
from multiprocessing import reduction

child_r, _ = os.pipe()
answer, child_w = os.pipe()
alive, _ = os.pipe()
with socket.socket(socket.AF_UNIX) as server:
    server.connect(sys.argv[1])
    try:
        reduction.sendfds(server, [child_r, child_w, alive, alive])
    except OSError:
        pass
os.close(child_w)
print("forked for it" if os.read(answer, 8) else "hung up")
"""

# A grader: starts its forkserver, lets the stranger connect to it, then starts a driver from it.
_GRADER = f"""
import json, multiprocessing, multiprocessing.forkserver, socket, subprocess, sys


def accepts_with(queue):
    from autograder.grading.batch import _parent_only

    before = socket.socket.accept.__name__
    _parent_only.lift()  # as a driver does first
    queue.put([before, socket.socket.accept.__name__])


if __name__ == "__main__":
    from autograder.grading.batch import _runner

    _runner.start_forkserver()
    address = multiprocessing.forkserver._forkserver._forkserver_address
    stranger = subprocess.run([sys.executable, "-c", {_STRANGER!r}, address], capture_output=True, text=True)
    context = multiprocessing.get_context("forkserver")
    queue = context.Queue()
    driver = context.Process(target=accepts_with, args=(queue,))
    driver.start()
    driver.join(60)
    found = {{"stranger": stranger.stdout.strip() or stranger.stderr, "driver": driver.exitcode}}
    found["driver accepts with"] = queue.get(timeout=10)
    print(json.dumps(found))
    _runner.stop_forkserver()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="peer credentials are read on Linux")
def test_the_forkserver_hangs_up_on_any_process_but_the_grader_and_its_drivers_accept_as_usual(tmp_path):
    (tmp_path / "grader.py").write_text(_GRADER)
    done = subprocess.run([sys.executable, "grader.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"stranger": "hung up", "driver": 0, "driver accepts with": ["_from_parent_only", "accept"]}
