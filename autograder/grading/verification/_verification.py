"""The grader's side of verification: hand-over cells in, programs out, the verifier's verdicts onto the tests.

The kernel runs the student's code, so what it says about an answer cannot be trusted. After each verified
test cell (`autograder/verified/ASSIGNMENT.toml`) the grader adds a cell that exports the answer. Once the
notebook has run, those cells are taken out again, and a process that never runs student code
(`python -m autograder.verifying`) checks the programs. A test cell the kernel passed but the verifier
failed gets the verifier's message as its error, so it scores zero in nbgrader's own reckoning.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
from collections.abc import Callable
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_output

from ..._config import GRADER_SEED, REFERENCES, TIMING
from ..._passes import MARK
from ..._verified import CELL_KEY, MAX_HANDED_BYTES, MIME, hand_over_source, problems
from .._cells import grade_id_if_test
from ._verifier import DEFAULT_LIMITS, Limits, Verifier, borrow, give_back

# What tells the grader's own hand-over cells from a submission's: a secret of this grading process, put in
# their metadata as they are added. A cell's metadata is the student's to write, so the key alone, copied onto
# an answer or a test cell, would have the grader delete that cell from the graded notebook and the feedback.
_OURS_KEY = "jax_course_grader"
_OURS = secrets.token_hex(16)

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
            metadata = {CELL_KEY: grade_id, _OURS_KEY: _OURS}
            cells.append(new_code_cell(hand_over_source(assignment, grade_id), metadata=metadata))
    nb.cells = cells
    return nb


def hand_over_of(cell: Any) -> str | None:
    """The grade id whose answer `cell` hands over, if it is one the grader added (None for any other cell,
    one with the course's key copied onto it included)."""
    metadata = cell.get("metadata", {})
    return metadata.get(CELL_KEY) if metadata.get(_OURS_KEY) == _OURS else None


def _displayed(cell: Any) -> list[dict]:
    """What a hand-over cell displayed for its own grade id (nothing, for any other cell)."""
    grade_id = hand_over_of(cell)
    payloads = [output.get("data", {}).get(MIME) for output in cell.get("outputs", [])]
    return [p for p in payloads if grade_id is not None and isinstance(p, dict) and p.get("grade_id") == grade_id]


def take_hand_overs(nb: Any) -> dict[str, Any]:
    """Remove the hand-over cells from `nb`; what they displayed, by grade id, within the size limit."""
    handed: dict[str, Any] = {}
    kept, size = [], 0
    for cell in nb.cells:
        grade_id = hand_over_of(cell)
        if grade_id is None:
            kept.append(cell)
            continue
        for payload in _displayed(cell):
            size += len(json.dumps(payload))
            if size <= MAX_HANDED_BYTES:
                handed[grade_id] = payload.get("calls")
    nb.cells = kept
    return handed


def _failed(cell: Any) -> str | None:
    """The grade id of `cell` if it is a test cell that shows an error, which scores it zero whatever else."""
    test = grade_id_if_test(cell)
    return test if test is not None and any(o.get("output_type") == "error" for o in cell.get("outputs", [])) else None


def failed_in_the_kernel(nb: Any) -> frozenset[str]:
    """The test cells of `nb` that already show an error: no verdict can give them points back, so the verifier
    is not asked about them. A kernel that shows one where its test passed only loses that test's points."""
    return frozenset(grade_id for cell in nb.cells if (grade_id := _failed(cell)) is not None)


def verify_as_handed(verifier: Verifier) -> Callable[..., None]:
    """An `on_cell_executed` hook for nbclient: each hand-over cell's programs go to `verifier` as soon as the
    cell has run, while the notebook goes on (`Verifier.ahead`), unless its test cell failed. Timed problems
    wait for the end: their verifier measures speed, best done once the kernel is idle."""
    timed = {gid for gid, problem in problems(verifier.assignment).items() if any(c.speedup for c in problem.calls)}
    failed: set[str] = set()

    def hook(cell: Any, **_: Any) -> None:
        if (test := _failed(cell)) is not None:
            failed.add(test)
        grade_id = hand_over_of(cell)  # a hand-over cell's test
        shown = _displayed(cell)
        if (
            shown and grade_id is not None and grade_id not in timed and grade_id not in failed
        ):  # `take_hand_overs` keeps the last shown
            verifier.ahead(grade_id, shown[-1].get("calls"))

    return hook


def apply_verdicts(nb: Any, verdicts: dict[str, dict[str, Any]]) -> list[str]:
    """Give each test cell that the kernel passed and the verifier failed the verifier's message as its
    error (first, since nbgrader scores a cell by its first error or value). Returns their grade ids."""
    failed = []
    for cell in nb.cells:
        test = grade_id_if_test(cell)
        verdict = verdicts.get(test) if test is not None else None
        if not verdict or verdict.get("passed"):
            continue
        if any(output.get("output_type") == "error" for output in cell.get("outputs", [])):
            continue  # the kernel's own failure already says what is wrong
        # Said, since the notebook itself showed this test passing: something in it changed what its checks saw.
        message = "Checked outside your notebook, where it failed: " + str(verdict.get("message", ""))
        # As IPython shows a check's failure: the error's name, then its message.
        error = new_output("error", ename="CheckFailed", evalue=message, traceback=[f"CheckFailed: {message}"])
        cell["outputs"] = [error, *(output for output in cell.get("outputs", []) if not _says_passed(output))]
        failed.append(test)
    return failed


def _says_passed(output: Any) -> bool:
    """The line the kernel printed for a test it passed (`_passes.py`), which the verifier's failure makes untrue."""
    text = "".join(output.get("text", "")) if output.get("output_type") == "stream" else ""
    lines = text.strip().splitlines()
    return bool(lines) and all(line.startswith(MARK) for line in lines)


def _key(assignment: str, handed: dict[str, Any], env: dict[str, str], failed: frozenset[str]) -> str:
    """What decides a verdict: the programs, the seed, references and timing mode they are judged with, and
    the tests the kernel failed (which are not asked)."""
    settings = [env.get(GRADER_SEED), env.get(REFERENCES), env.get(TIMING)]
    request = [assignment, handed, settings, sorted(failed)]
    return hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()


def verify_ahead(verifier: Verifier, executed: str, env: dict[str, str], limits: Limits = DEFAULT_LIMITS) -> None:
    """In a worker thread, once a notebook has run: its verdicts within `limits`, kept for `verdicts` to hand to
    `Verify`."""
    assignment, nb = verifier.assignment, nbformat.reads(executed, as_version=4)
    handed, failed = take_hand_overs(nb), failed_in_the_kernel(nb)
    found = verifier.verdicts(handed, failed, limits)
    with _AHEAD_LOCK:
        _AHEAD[_key(assignment, handed, env, failed)] = found


def verdicts(
    assignment: str,
    handed: dict[str, Any],
    env: dict[str, str],
    started: Verifier | None = None,
    failed: frozenset[str] = frozenset(),
    limits: Limits = DEFAULT_LIMITS,
) -> dict[str, dict[str, Any]]:
    """The verifier's verdicts on `handed`, but for the tests the kernel `failed`: those computed ahead for
    these very programs, or from the verifier `started` with the notebook, or from a new one, within `limits`."""
    with _AHEAD_LOCK:
        found = _AHEAD.pop(_key(assignment, handed, env, failed), None)
    if found is not None:
        if started is not None:
            give_back(started)
        return found
    verifier = started or borrow(assignment, env)
    try:
        return verifier.verdicts(handed, failed, limits)
    finally:
        give_back(verifier)
