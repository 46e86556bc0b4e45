"""The verifier's processes, from the grader's side: started with a notebook, asked for verdicts on what it
handed over, and kept warm for the next notebook of the same assignment."""

from __future__ import annotations

import atexit
import contextlib
import json
import queue
import tempfile
import threading
from collections.abc import Collection, Iterator
from typing import Any

from ..._verified import problems
from ._verifier_process import VerifierProcess

# The verifier times answers against a baseline (seconds each, measured again when slow); a limit for one
# problem, past which its program is taken for one that never ends.
PROBLEM_TIMEOUT = 180
# The verdict on a problem whose test cell already failed in the kernel, where its own message is shown.
FAILED_IN_THE_KERNEL = {"passed": False, "message": "not verified: the test had already failed in your notebook"}


class Verifier:
    """A verifier's process (`_verifier_process.py`), started in the background as soon as a notebook starts
    running, and kept warm for the next notebook of the same assignment (`borrow`).

    It writes a verdict a line as each is decided. XLA cannot be interrupted, so a program that never ends
    on the verifier's inputs is stopped with the whole process: that problem fails, and a new process
    verifies the problems left, so one endless loop costs only its own test."""

    def __init__(self, assignment: str, env: dict[str, str]):
        self.assignment, self.env = assignment, env
        self.errors = tempfile.TemporaryFile()  # what checks print goes here: a file never fills as a pipe can
        self.process = self._start()
        # Verdicts asked for while the notebook still runs (`ahead`), with the programs they judged.
        self._early: dict[str, tuple[Any, dict[str, Any]]] = {}
        self._asked: queue.Queue[tuple[str, Any] | None] = queue.Queue()
        self._answering: threading.Thread | None = None
        self._closed = False

    def _start(self) -> VerifierProcess:
        return VerifierProcess(self.assignment, self.env, self.errors.fileno())

    def alive(self) -> bool:
        return self.process.poll() is None

    def _stopped(self, process: VerifierProcess) -> str:
        status = process.wait()
        self.errors.seek(0)
        said = self.errors.read().decode(errors="replace").strip().splitlines()[-1:]
        return f"the verifier stopped with exit status {status}" + (f" ({said[0][:300]})" if said and status else "")

    def _read(self, process: VerifierProcess, request: dict[str, Any], found: dict) -> str:
        """Verdicts on `request` from `process` into `found` until it is done, ends or takes too long; why it
        stopped short ("" when done)."""
        assert process.stdin is not None and process.stdout is not None
        lines: queue.Queue[str | None] = queue.Queue()
        stdout = process.stdout

        def forward() -> None:
            for line in iter(stdout.readline, ""):
                lines.put(line)
                if line.startswith('{"done"'):
                    return
            lines.put(None)

        threading.Thread(target=forward, daemon=True).start()
        try:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
        except OSError:
            pass  # it has already stopped: its exit status says why
        while True:
            try:
                line = lines.get(timeout=PROBLEM_TIMEOUT)
            except queue.Empty:
                process.kill()
                process.wait()
                return (
                    f"it did not finish within {PROBLEM_TIMEOUT} s on the grader's inputs, as a loop that never "
                    "stops would (a while_loop whose condition stays true)"
                )
            if line is None:
                return self._stopped(process)
            try:
                verdict = json.loads(line)
                if verdict.get("done"):
                    return ""
                found[str(verdict.pop("grade_id"))] = verdict
            except (ValueError, KeyError, TypeError, AttributeError):
                continue  # not a verdict: a line a library wrote to the descriptor itself

    def ahead(self, grade_id: str, calls: Any) -> None:
        """Start verifying one problem's programs now, while the notebook goes on running (a self-check, whose
        learner waits); `verdicts` uses the verdict if the notebook hands over the same programs in the end."""
        if self._answering is None:
            self._answering = threading.Thread(target=self._answer_early, daemon=True)
            self._answering.start()
        self._asked.put((grade_id, calls))

    def _answer_early(self) -> None:
        while (asked := self._asked.get()) is not None:
            grade_id, calls = asked
            if not self._closed:
                self._early[grade_id] = (calls, self._decide({grade_id: calls}, [grade_id])[grade_id])

    def verdicts(self, handed: dict[str, Any], failed: Collection[str] = ()) -> dict[str, dict[str, Any]]:
        """The verdicts on `handed`; a problem the verifier cannot decide fails, saying why. A problem whose test
        the kernel `failed` is not verified: it fails as it did there."""
        if self._answering is not None:
            self._asked.put(None)
            self._answering.join()
            self._answering = None
        early, self._early = self._early, {}
        found = {gid: verdict for gid, (calls, verdict) in early.items() if handed.get(gid) == calls}
        found.update({gid: dict(FAILED_IN_THE_KERNEL) for gid in problems(self.assignment) if gid in failed})
        left = [grade_id for grade_id in problems(self.assignment) if grade_id not in found]
        return {**found, **(self._decide(handed, left) if left else {})}

    def _decide(self, handed: dict[str, Any], left: list[str]) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        while left:
            if self.process.poll() is not None and not self._closed:
                self.process = self._start()  # the last one stopped, or was stopped: a new one takes what is left
            process = self.process
            why = self._read(process, {"handed": handed, "only": left}, found)
            left = [grade_id for grade_id in left if grade_id not in found]
            if left:  # the first problem left is the one it could not finish
                message = f"The grader could not verify this answer outside your notebook: {why or 'no verdict'}."
                found[left.pop(0)] = {"passed": False, "message": message}
        return found

    def close(self) -> None:
        """End the process."""
        self._closed = True
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.errors.close()


# Verifiers between notebooks, by assignment and environment: each serves one notebook at a time.
_WARM: dict[str, list[Verifier]] = {}
_WARM_LOCK = threading.Lock()


def _warm_key(assignment: str, env: dict[str, str]) -> str:
    return json.dumps([assignment, sorted(env.items())])


def borrow(assignment: str, env: dict[str, str]) -> Verifier:
    """A verifier for `assignment` with `env`: one kept warm from an earlier notebook, or a new one."""
    with _WARM_LOCK:
        kept = _WARM.get(_warm_key(assignment, env), [])
        while kept:
            verifier = kept.pop()
            if verifier.alive():
                return verifier
            verifier.close()
    return Verifier(assignment, env)


def give_back(verifier: Verifier) -> None:
    """Keep `verifier` warm for the next notebook, if its process still runs."""
    if not verifier.alive():
        verifier.close()
        return
    with _WARM_LOCK:
        _WARM.setdefault(_warm_key(verifier.assignment, verifier.env), []).append(verifier)


@atexit.register
def _close_warm() -> None:
    with _WARM_LOCK:
        for kept in _WARM.values():
            for verifier in kept:
                verifier.close()
        _WARM.clear()


@contextlib.contextmanager
def verifier_for(assignment: str, env: dict[str, str]) -> Iterator[Verifier | None]:
    """A verifier for `assignment` (None when none of it is verified), kept warm when done with."""
    verifier = borrow(assignment, env) if problems(assignment) else None
    try:
        yield verifier
    finally:
        if verifier is not None:
            give_back(verifier)
