"""The ledger: what `jax-course grade` finished, one JSON file per submission.

A submission is done when its entry (`grading/ASSIGNMENT/done/STUDENT.json`) is written,
last and atomically. A rerun skips a submission whose entry matches the files submitted
now; anything else (never graded, interrupted, resubmitted) is graded again. A submission whose
grading process was killed once is noted (`lost/STUDENT.json`) until its entry is written: a second
loss, in this run or a resumed one, is its last.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass
class Outcome:
    """One submission's result, as the ledger and the report keep it."""

    student: str
    status: str  # "graded", "failed" (could not be graded) or "missing" (no notebook handed in)
    reason: str
    score: float  # as `nbgrader export` gives it: the raw score less the late penalty, never below 0
    max_score: float
    # grade_id -> [score, max]; a score of None: the cell waits for a manual grade
    problems: dict[str, list[float | None]] = field(default_factory=dict)
    seconds: float = 0.0
    fingerprint: str = ""
    seed: int | None = None  # of its hidden inputs (`references/_seed.py`); None where the assignment has none
    raw_score: float = 0.0  # before the late penalty
    penalty: float = 0.0  # nbgrader's late_submission_penalty (LateSubmissionPlugin, or the course's plugin)


def fingerprint(folder: Path) -> str:
    """A hash of every file a student submitted: a resubmission changes it. A link counts by where it points,
    never by what is there (which may be anything: the grader refuses it, `plugins/_links.py`)."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):  # rglob goes through no link to a folder
        if path.is_symlink():
            content = b"link to " + os.fsencode(os.readlink(path))
        elif path.is_file():
            content = path.read_bytes()
        else:
            continue
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + content + b"\0")
    return digest.hexdigest()


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` so that a crash leaves the old file or the new one, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, path)


class Ledger:
    """The entries of one assignment, under `folder` (`grading/ASSIGNMENT`)."""

    def __init__(self, folder: Path):
        self.folder = folder

    def _path(self, student: str) -> Path:
        return self.folder / "done" / f"{student}.json"

    def entry(self, student: str) -> Outcome | None:
        try:
            return Outcome(**json.loads(self._path(student).read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def record(self, outcome: Outcome) -> None:
        write_atomically(self._path(outcome.student), json.dumps(asdict(outcome), indent=1))
        self._lost(outcome.student).unlink(missing_ok=True)

    def _lost(self, student: str) -> Path:
        return self.folder / "lost" / f"{student}.json"

    def lost_before(self, student: str, fingerprint: str) -> str | None:
        """Why this submission's grading process died before, if it did and the submission is unchanged."""
        try:
            noted = json.loads(self._lost(student).read_text())
        except (OSError, ValueError):
            return None
        return noted.get("failure") if isinstance(noted, dict) and noted.get("fingerprint") == fingerprint else None

    def note_lost(self, student: str, fingerprint: str, failure: str) -> None:
        """This submission's grading process died (`failure` says how): the next loss is its last."""
        write_atomically(self._lost(student), json.dumps({"fingerprint": fingerprint, "failure": failure}))

    def outcomes(self) -> list[Outcome]:
        """Every submission graded so far, this run and earlier ones."""
        found = (self.entry(path.stem) for path in sorted((self.folder / "done").glob("*.json")))
        return [outcome for outcome in found if outcome is not None]
