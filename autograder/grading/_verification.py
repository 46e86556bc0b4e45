"""The grader's side of verification: hand-over cells in, programs out, the verifier's verdicts onto the tests.

The kernel runs the student's code, so what it says about an answer cannot be trusted. After each verified
test cell (`autograder/verified/ASSIGNMENT.toml`) the grader adds a cell that exports the answer. Once the
notebook has run, those cells are taken out again, and a process that never runs student code
(`python -m autograder.verifying`) checks the programs. A test cell the kernel passed but the verifier
failed gets the verifier's message as its error, so it scores zero in nbgrader's own reckoning.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import queue
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_output

from .._config import GRADER_SEED, REFERENCES, TIMING
from .._verified import CELL_KEY, MIME, hand_over_source, problems

# What one notebook may hand over in all: a good answer's programs are kilobytes.
MAX_HANDED_BYTES = 16_000_000
# The verifier times answers against a baseline (seconds each, measured again when slow); a limit for one
# problem, past which its program is taken for one that never ends.
PROBLEM_TIMEOUT = 180
# Verdicts that `jax-course grade`'s worker threads computed as each notebook finished, for `Verify` to take
# in the main thread: there the verifier would run one notebook at a time.
_AHEAD: dict[str, dict[str, dict[str, Any]]] = {}
_AHEAD_LOCK = threading.Lock()


def add_hand_overs(nb: Any, assignment: str) -> Any:
    """Insert, after each verified test cell of `nb`, the cell that hands its answer over."""
    verified = problems(assignment)
    if not verified:
        return nb
    cells = []
    for cell in nb.cells:
        cells.append(cell)
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.get("cell_type") == "code" and grade_id in verified:
            cells.append(new_code_cell(hand_over_source(assignment, grade_id), metadata={CELL_KEY: grade_id}))
    nb.cells = cells
    return nb


def take_hand_overs(nb: Any) -> dict[str, Any]:
    """Remove the hand-over cells from `nb`; what they displayed, by grade id, within the size limit."""
    handed: dict[str, Any] = {}
    kept, size = [], 0
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get(CELL_KEY)
        if grade_id is None:
            kept.append(cell)
            continue
        for output in cell.get("outputs", []):
            payload = output.get("data", {}).get(MIME)
            if isinstance(payload, dict) and payload.get("grade_id") == grade_id:
                size += len(json.dumps(payload))
                if size <= MAX_HANDED_BYTES:
                    handed[grade_id] = payload.get("calls")
    nb.cells = kept
    return handed


class Verifier:
    """The verifier's process, started as soon as the notebook starts running, so that its imports (JAX and
    the checks) overlap the notebook's run; it reads what was handed over when the notebook is done.

    It writes a verdict a line as each is decided. XLA cannot be interrupted, so a program that never ends
    on the verifier's inputs is stopped with the whole process: that problem fails, and a new process
    verifies the problems left, so one endless loop costs only its own test."""

    def __init__(self, assignment: str, env: dict[str, str]):
        self.assignment, self.env, self.failure = assignment, env, ""
        self.errors = tempfile.TemporaryFile()  # what checks print goes here: a file never fills as a pipe can
        self.process = self._start([])

    def _start(self, only: list[str]) -> subprocess.Popen | None:
        try:
            return subprocess.Popen(
                [sys.executable, "-m", "autograder.verifying", self.assignment, *only],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.errors,
                text=True,
                env=self.env,
            )
        except OSError as error:
            self.failure = f"it could not start: {error}"
            return None

    def _stopped(self, process: subprocess.Popen) -> str:
        status = process.wait()
        self.errors.seek(0)
        said = self.errors.read().decode(errors="replace").strip().splitlines()[-1:]
        return f"the verifier stopped with exit status {status}" + (f" ({said[0][:300]})" if said and status else "")

    def _read(self, process: subprocess.Popen, handed: dict[str, Any], found: dict) -> str:
        """Verdicts from `process` into `found` until it ends or one takes too long; why it stopped."""
        lines: queue.Queue[str | None] = queue.Queue()
        assert process.stdin is not None and process.stdout is not None
        stdout = process.stdout

        def forward() -> None:
            for line in stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=forward, daemon=True).start()
        try:
            process.stdin.write(json.dumps(handed))
            process.stdin.close()
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
                found[str(verdict.pop("grade_id"))] = verdict
            except (ValueError, KeyError, TypeError, AttributeError):
                continue  # not a verdict: a line a library wrote to the descriptor itself

    def verdicts(self, handed: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """The verdicts on `handed`; a problem the verifier cannot decide fails, saying why."""
        found: dict[str, dict[str, Any]] = {}
        left, process = list(problems(self.assignment)), self.process
        while left:
            why = self._read(process, handed, found) if process is not None else self.failure
            left = [grade_id for grade_id in left if grade_id not in found]
            if left:  # the first problem left is the one it could not finish; a new process takes the rest
                message = f"The grader could not verify this answer outside your notebook: {why}."
                found[left.pop(0)] = {"passed": False, "message": message}
                if process is not None and left:
                    process = self._start(left)
        return found

    def close(self) -> None:
        """End the first process if it was never asked (the notebook could not be run)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.errors.close()


@contextlib.contextmanager
def verifier_for(assignment: str, env: dict[str, str]) -> Iterator[Verifier | None]:
    """A verifier started now for `assignment` (None when none of it is verified), ended when done with."""
    verifier = Verifier(assignment, env) if problems(assignment) else None
    try:
        yield verifier
    finally:
        if verifier is not None:
            verifier.close()


def apply_verdicts(nb: Any, verdicts: dict[str, dict[str, Any]]) -> list[str]:
    """Give each test cell that the kernel passed and the verifier failed the verifier's message as its
    error (first, since nbgrader scores a cell by its first error or value). Returns their grade ids."""
    failed = []
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        verdict = verdicts.get(meta.get("grade_id"))
        if cell.get("cell_type") != "code" or not meta.get("grade") or not verdict or verdict.get("passed"):
            continue
        if any(output.get("output_type") == "error" for output in cell.get("outputs", [])):
            continue  # the kernel's own failure already says what is wrong
        # Said, since the notebook itself showed this test passing: something in it changed what its checks saw.
        message = "Checked outside your notebook, where it failed: " + str(verdict.get("message", ""))
        # As IPython shows a check's failure: the error's name, then its message.
        error = new_output("error", ename="CheckFailed", evalue=message, traceback=[f"CheckFailed: {message}"])
        cell["outputs"] = [error, *cell.get("outputs", [])]
        failed.append(meta["grade_id"])
    return failed


def _key(assignment: str, handed: dict[str, Any], env: dict[str, str]) -> str:
    """What decides a verdict: the programs, and the seed, references and timing mode they are judged with."""
    settings = [env.get(GRADER_SEED), env.get(REFERENCES), env.get(TIMING)]
    return hashlib.sha256(json.dumps([assignment, handed, settings], sort_keys=True).encode()).hexdigest()


def verify_ahead(verifier: Verifier, executed: str, env: dict[str, str]) -> None:
    """In a worker thread, once a notebook has run: its verdicts, kept for `verdicts` to hand to `Verify`."""
    assignment = verifier.assignment
    handed = take_hand_overs(nbformat.reads(executed, as_version=4))
    found = verifier.verdicts(handed)
    with _AHEAD_LOCK:
        _AHEAD[_key(assignment, handed, env)] = found


def verdicts(
    assignment: str, handed: dict[str, Any], env: dict[str, str], started: Verifier | None = None
) -> dict[str, dict[str, Any]]:
    """The verifier's verdicts on `handed`: those computed ahead for these very programs, or from the
    verifier `started` with the notebook, or from a new one."""
    with _AHEAD_LOCK:
        found = _AHEAD.pop(_key(assignment, handed, env), None)
    if found is not None:
        if started is not None:
            started.close()
        return found
    return (started or Verifier(assignment, env)).verdicts(handed)
