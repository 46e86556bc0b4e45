"""The verifier's processes, from the grader's side: started with a notebook, asked for verdicts on what it
handed over, and kept warm for the next notebook of the same assignment."""

from __future__ import annotations

import atexit
import contextlib
import json
import math
import queue
import tempfile
import threading
import time
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

import psutil

from ..._verified import problems
from ..kernels._memory import memory_mb
from ._verifier_process import VerifierProcess

# The verifier times answers against a baseline (seconds each, measured again when slow); a limit for one
# problem, past which its program is taken for one that never ends.
PROBLEM_TIMEOUT = 180
# The memory a verifier may use while it runs one submission's programs, unless the grader says (stock nbgrader's
# `Verify.memory_mb`, `jax-course grade --memory`): the same as `jax-course grade`'s default for a notebook.
MEMORY_MB = 4096
# How often the verifier's memory and time are looked at while it works.
_POLL_SECONDS = 0.05


@dataclass(frozen=True)
class Limits:
    """What verifying one notebook may take, counted against its submission: memory (the verifier's process,
    shared pages counted once) and, when the grader has a limit for the whole notebook, the seconds left of it."""

    memory_mb: float = MEMORY_MB
    seconds: float | None = None


# Where the grader gives none: the default memory, and each problem's own time limit alone.
DEFAULT_LIMITS = Limits()
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

    def _read(self, process: VerifierProcess, request: dict[str, Any], found: dict, limits: Limits, end: float) -> str:
        """Verdicts on `request` from `process` into `found` until it is done, ends, takes too long (a problem
        past `PROBLEM_TIMEOUT`, or all past `end`) or uses more memory than `limits`; why it stopped short ("" when
        done)."""
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
        problem_started = time.monotonic()
        while True:
            try:
                line = lines.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                if why := _over(process, limits, problem_started, end):
                    process.kill()
                    process.wait()
                    return why
                continue
            problem_started = time.monotonic()
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

    def verdicts(
        self, handed: dict[str, Any], failed: Collection[str] = (), limits: Limits = DEFAULT_LIMITS
    ) -> dict[str, dict[str, Any]]:
        """The verdicts on `handed`, within `limits`; a problem the verifier cannot decide fails, saying why. A
        problem whose test the kernel `failed` is not verified: it fails as it did there."""
        if self._answering is not None:
            self._asked.put(None)
            self._answering.join()
            self._answering = None
        early, self._early = self._early, {}
        found = {gid: verdict for gid, (calls, verdict) in early.items() if handed.get(gid) == calls}
        found.update({gid: dict(FAILED_IN_THE_KERNEL) for gid in problems(self.assignment) if gid in failed})
        left = [grade_id for grade_id in problems(self.assignment) if grade_id not in found]
        return {**found, **(self._decide(handed, left, limits) if left else {})}

    def _decide(
        self, handed: dict[str, Any], left: list[str], limits: Limits = DEFAULT_LIMITS
    ) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        end = math.inf if limits.seconds is None else time.monotonic() + limits.seconds
        while left:
            if time.monotonic() > end:  # none is left for the others: each fails saying so, with no process started
                message = f"The grader could not verify this answer outside your notebook: {_spent(limits)}."
                found.update({grade_id: {"passed": False, "message": message} for grade_id in left})
                break
            if self.process.poll() is not None and not self._closed:
                self.process = self._start()  # the last one stopped, or was stopped: a new one takes what is left
            process = self.process
            why = self._read(process, {"handed": handed, "only": left}, found, limits, end)
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


def _over(process: VerifierProcess, limits: Limits, problem_started: float, end: float) -> str:
    """Why the verifier must be stopped now ("" if it may go on): a problem too long, the notebook's time spent,
    or more memory than the submission's share."""
    now = time.monotonic()
    if now - problem_started > PROBLEM_TIMEOUT:
        return (
            f"it did not finish within {PROBLEM_TIMEOUT} s on the grader's inputs, as a loop that never stops would "
            "(a while_loop whose condition stays true)"
        )
    if now > end:
        return _spent(limits)
    if _memory_mb(process.pid, limits.memory_mb) > limits.memory_mb:
        return (
            f"its program used more than the {limits.memory_mb:.0f} MB of memory a submission may use, on the "
            "grader's inputs: it builds arrays far larger than its inputs need (a broadcast, an outer product or a "
            "sort of something huge)"
        )
    return ""


def _spent(limits: Limits) -> str:
    return (
        f"the time the grader gives one notebook ran out while its answers were verified ({limits.seconds:.0f} s were "
        "left after the notebook ran), as a loop that never stops or a program far slower than it needs would spend it"
    )


def _memory_mb(pid: int, limit_mb: float) -> float:
    """The verifier's memory in MB (`kernels/_memory.py`: the pages it shares with the nursery it was forked from,
    JAX's libraries, counted once past the limit)."""
    try:
        return memory_mb([psutil.Process(pid)], limit_mb)
    except psutil.Error:
        return 0.0


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
