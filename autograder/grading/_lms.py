"""Notebooks downloaded from Canvas or Moodle, and grades written back for their import.

Canvas's "Download Submissions" zip names each file `<sortable name>[_LATE]_<user id>_<submission
id>_<file name>`; a file uploaded again under the same name gets `-1`, `-2` before its extension.
Moodle's "Download all submissions" puts each student's files in a folder `<Full Name>_<participant
id>_assignsubmission_file_/` (or, with folders turned off, starts each file name with it). The number
names the student. Canvas's user ID is the same in every assignment, so one grades file holds a column
per assignment. Moodle gives each student a new participant ID in each assignment (never one another
student had), so Moodle gets one grading worksheet per assignment, uploaded on that assignment's page.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbgrader.api import MissingEntry

_CANVAS = re.compile(r"^(?P<name>[^_/]+?)(?:_late)?_(?P<id>\d+)_\d+_(?P<file>[^/]+)$", re.IGNORECASE)
_MOODLE = re.compile(r"^(?P<name>[^/]+?)_(?P<id>\d+)_assignsubmission_file_/?(?P<file>[^/]+)$")


@dataclass(frozen=True)
class Download:
    """One file of an LMS download: whose it is, by the LMS's own ID."""

    lms: str
    student_id: str
    name: str
    file: str


def parse(path: str) -> Download | None:
    """The student a downloaded file belongs to, from its name and its folder's; None if it names none."""
    parts = Path(path).parts
    for candidate in ["/".join(parts[-2:]), parts[-1]]:
        for lms, pattern in (("moodle", _MOODLE), ("canvas", _CANVAS)):
            found = pattern.match(candidate)
            if found:
                return Download(lms, found["id"], found["name"], found["file"])
    return None


def why_skipped(path: str, notebook: str) -> str | None:
    """Why this downloaded file is not collected as `notebook`, or None when it is."""
    name = Path(path).name
    if "__MACOSX" in Path(path).parts or name.startswith("._"):
        return f"{name}: macOS archive metadata, not a submission"
    download = parse(path)
    if download is None:
        return (
            f"{name}: cannot tell whose file this is. Canvas names downloads "
            "`name_<user id>_<submission id>_<file>`, Moodle `<Full Name>_<participant id>_assignsubmission_file_`. "
            f"Copy it by hand to submitted/<student id>/{Path(notebook).stem}/{notebook} if it is a submission."
        )
    if not download.file.endswith(".ipynb"):
        return f"{name}: from student {download.student_id}, but not a notebook; nothing to grade"
    return None


def graded_assignments(gradebook: Any, wanted: Iterable[str]) -> dict[str, float]:
    """`{assignment: points}` for each assignment with submissions, of those `wanted` (all if none)."""
    wanted = [str(a) for a in wanted]
    return {a.name: a.max_score for a in gradebook.assignments if a.submissions and (not wanted or a.name in wanted)}


def student_scores(gradebook: Any, assignment: str) -> dict[str, float | None]:
    """Each student's score after any late penalty; None where nothing was submitted."""
    scores: dict[str, float | None] = {}
    for student in gradebook.students:
        try:
            submission = gradebook.find_submission(assignment, student.id)
        except MissingEntry:
            scores[student.id] = None
        else:
            scores[student.id] = round(max(0.0, submission.score - (submission.late_submission_penalty or 0.0)), 2)
    return scores


def student_names(gradebook: Any) -> dict[str, str]:
    """`Last, First` (or what the LMS gave) for each student in the gradebook."""
    return {s.id: ", ".join(p for p in (s.last_name, s.first_name) if p) for s in gradebook.students}


def canvas_rows(
    scores: Mapping[str, Mapping[str, float | None]], names: Mapping[str, str], points: Mapping[str, float]
):
    """Canvas's gradebook import: the identifying columns, a points row, then a score per assignment."""
    assignments = sorted(points)
    yield ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *assignments]
    yield ["Points Possible", "", "", "", "", *(_number(points[a]) for a in assignments)]
    for student in sorted(scores, key=_numeric_first):
        yield [names.get(student, ""), student, "", "", "", *(_number(scores[student].get(a)) for a in assignments)]


def moodle_rows(scores: Mapping[str, float | None], names: Mapping[str, str]):
    """Moodle's grading worksheet for one assignment: `Participant <id>` and its grade."""
    yield ["Identifier", "Full name", "Grade"]
    for student in sorted(scores, key=_numeric_first):
        yield [f"Participant {student}", names.get(student, ""), _number(scores[student])]


def write_csv(path: Path, rows) -> None:
    with open(path, "w", newline="", encoding="utf-8") as out:
        csv.writer(out).writerows(rows)


def _number(value: float | None) -> str:
    # An empty cell leaves the LMS's grade as it is: no submission is not a zero the grader gave.
    return "" if value is None else f"{value:g}"


def _numeric_first(student: str) -> tuple[int, str]:
    return (int(student), "") if student.isdigit() else (1 << 62, student)
