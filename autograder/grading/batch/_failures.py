"""Why a submission could not be graded, in words an instructor can act on (never a bare exception),
and what else its row of the report notes: nbgrader's warnings, refused cells, files not importable."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import nbformat
from nbformat.reader import NotJSONError
from nbgrader import utils
from nbgrader.nbgraderformat import SchemaTooNewError, SchemaTooOldError


class SubmissionError(Exception):
    """One submission cannot be graded (a bad timestamp, say): the message says why and what to do."""


def failure_reason(error: BaseException) -> str:
    """Why a submission could not be graded, for the report: the cause and what to do, never a bare exception."""
    if isinstance(error, SubmissionError):  # written for the report, whole: it names what to change
        return (str(error).strip().splitlines() or [""])[0]
    first = (str(error).strip().splitlines() or [""])[0][:200]
    cause = error.__context__
    if isinstance(error, SchemaTooNewError):
        return (
            f"schema too new: the notebook's nbgrader metadata is version {error.actual_version}, and this "
            f"nbgrader reads version {error.expected_version}: it was saved with a newer nbgrader; "
            "grade it by hand or with a newer nbgrader"
        )
    if isinstance(error, SchemaTooOldError):
        return (
            f"schema too old: the notebook's nbgrader metadata is version {error.actual_version}: back up "
            "the submitted folder, then run `nbgrader update` on it"
        )
    if isinstance(error, NotJSONError):
        return "not a notebook: the file is not JSON (it was cut short or saved by another program)"
    if isinstance(error, nbformat.ValidationError):  # nbformat and nbgrader both raise jsonschema's
        detail = (str(cause).strip().splitlines() or [""])[0][:120] if cause else first
        return f"corrupted: the notebook's cells or their nbgrader metadata were edited or damaged ({detail})"
    return f"ungradable: {type(error).__name__}: {first}"


def brought_down_twice(assignment: str, student: str, failures: list[str]) -> str:
    """Why a submission whose grading process was killed twice is not graded, and how to try once more."""
    how = "; then ".join(dict.fromkeys(f.removeprefix("lost: the process grading it was ") for f in failures))
    return (
        f"brought its grader down twice: not graded (the process grading it was {how}). Its own code can do "
        "that on Linux before 6.12 (Landlock 6), or the system, out of memory; it is not tried again. Read its "
        "code from that cell on, or grade it on a newer Linux; to try once more: "
        f"`jax-course grade {assignment} --student {student} --force`"
    )


def check_timestamp(folder: Path) -> None:
    """Refuse a `timestamp.txt` that nbgrader cannot read (nbgrader 0.9.6 fails it with an AttributeError)."""
    stamp = folder / "timestamp.txt"
    text = stamp.read_text(errors="replace").strip() if stamp.is_file() else ""
    if text:
        try:
            utils.parse_utc(text)
        except (ValueError, OverflowError):
            raise SubmissionError(
                f"bad timestamp: timestamp.txt holds {text[:40]!r}, which is not a date and time (nbgrader reads "
                "'2026-11-26 13:00:00 UTC'); correct or delete it, then grade again"
            ) from None


# Not kept for the report: a missing notebook (the report's own note names it).
_SAID_ELSEWHERE = ("No submitted file",)


class Heard(logging.Filter):
    """Every warning nbgrader gives, kept for the report: about a submission (late, a changed checksum, a
    missing grade cell) under its student, the rest (its configuration) for the whole run.

    A filter on nbgrader's logger, it also names in what the terminal shows the student being graded
    (`student`), and says a configuration warning once rather than each time nbgrader reads its settings.
    """

    def __init__(self) -> None:
        super().__init__()
        self.student: str | None = None
        self.general: list[str] = []
        self.by_student: dict[str, list[str]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING or getattr(record, "heard", False):
            return True
        message = record.getMessage()
        if self.student is None and message in self.general:
            return False
        record.heard, record.msg, record.args = True, message, ()
        if self.student is not None:
            record.msg = f"{self.student}: {message}"
        # Errors are the report's reason for a failure, in its own words.
        if record.levelno == logging.WARNING:
            heard = self.general if self.student is None else self.by_student.setdefault(self.student, [])
            heard.append(message)
        return True

    def take(self, student: str) -> list[str]:
        """What nbgrader said of `student`'s submission so far, for the report: each warning's first line."""
        said = self.by_student.pop(student, [])
        return [m.splitlines()[0][:200] for m in said if not m.startswith(_SAID_ELSEWHERE)]


def report_notes(folder: Path, prepared: list[tuple[str, str]], expected: list[str]) -> str:
    """As one line: notebooks not handed in (to `folder`), what the sanitize step refused to run
    (`RefuseTampering`, in the `prepared` notebooks) and handed-in files that were not importable
    (`shadowing`)."""
    # Imported here: importing plugins/ loads every plug-in, which a batch has by now (nbgrader_config.py).
    from ..plugins._tampering import shadowing

    found = []
    for _, text in prepared:
        try:
            found += json.loads(text).get("metadata", {}).get("jax_course", {}).get("refused", [])
        except ValueError:
            pass
    said = [f"refused to run {'; '.join(found)}"] if found else []
    # Looked for in the submitted folder: `--notebook` may leave handed-in notebooks out of this run.
    if missing := [name for name in expected if not (folder / name).is_file()]:
        said.insert(0, f"missing notebook {', '.join(missing)} (no points for it)")
    if shadows := shadowing(folder):
        said.append(f"not importable while grading (named like an installed module): {', '.join(shadows)}")
    return "; ".join(said)
