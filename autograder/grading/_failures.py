"""Why a submission could not be graded, in words an instructor can act on (never a bare exception)."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.reader import NotJSONError
from nbgrader import utils
from nbgrader.nbgraderformat import SchemaTooNewError, SchemaTooOldError


class SubmissionError(Exception):
    """One submission cannot be graded (a bad timestamp, say): the message says why and what to do."""


def failure_reason(error: BaseException) -> str:
    """Why a submission could not be graded, for the report: the cause and what to do, never a bare exception."""
    first = (str(error).strip().splitlines() or [""])[0][:200]
    cause = error.__context__
    if isinstance(error, SubmissionError):
        return first
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
