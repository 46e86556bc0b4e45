"""The verifier's process (`autograder/grading/verification/_verifier_process.py`): forked from the kernels' nursery, or
started anew where it cannot be, and its exit status read either way."""

from __future__ import annotations

import json
import os
import signal
import tempfile

import psutil
import pytest

from autograder.grading.kernels import _nursery
from autograder.grading.verification import _verifier_process
from autograder.grading.verification._verifier_process import VerifierProcess

from browser import wait_until

pytestmark = pytest.mark.unit

NOT_HANDED = json.dumps({"handed": {}, "only": ["test_softmax"]}) + "\n"


def _answer(process: VerifierProcess) -> list[dict]:
    """The lines the verifier writes for a request naming a test whose answer was not handed over."""
    process.stdin.write(NOT_HANDED)
    process.stdin.flush()
    lines = []
    while not lines or not lines[-1].get("done"):
        lines.append(json.loads(process.stdout.readline()))
    return lines


def test_a_verifier_is_forked_from_the_nursery_answers_and_its_exit_status_is_read():
    env = dict(os.environ)
    with tempfile.TemporaryFile() as errors:
        process = VerifierProcess("01_arrays", env, errors.fileno())
        try:
            waiter = psutil.Process(process.pid).parent()
            assert waiter is not None and waiter.ppid() == _nursery.nursery_for(env).pid, "not forked"
            said = _answer(process)
            assert said[0]["grade_id"] == "test_softmax" and not said[0]["passed"] and said[-1] == {"done": True}
            process.stdin.close()  # the verifier ends with its input
            assert process.wait() == 0
        finally:
            process.kill()


def test_a_killed_verifier_says_so():
    with tempfile.TemporaryFile() as errors:
        killed = VerifierProcess("01_arrays", dict(os.environ), errors.fileno())
        assert killed.poll() is None
        killed.kill()
        assert killed.wait() == -signal.SIGKILL


def test_a_verifier_starts_anew_where_no_nursery_can_fork_it(monkeypatch):
    def broken(env):
        raise _nursery.NurseryError("the kernel nursery did not finish importing its libraries")

    monkeypatch.setattr(_verifier_process, "nursery_for", broken)
    with tempfile.TemporaryFile() as errors:
        process = VerifierProcess("01_arrays", dict(os.environ), errors.fileno())
        try:
            # Read once the exec has set it: a process that has just replaced its program has an empty command
            # line for a moment, after its parent was told the exec went through.
            command = wait_until(psutil.Process(process.pid).cmdline, 10, "the verifier's command line", interval=0.01)
            assert command[-3:] == ["-m", "autograder.verifying", "01_arrays"]
            assert _answer(process)[-1] == {"done": True}
            process.stdin.close()
            assert process.wait() == 0
        finally:
            process.kill()
