"""Notebooks downloaded from Canvas or Moodle, and grades written back for their import.

Canvas's "Download Submissions" zip names each file `<sortable name>[_LATE]_<user id>_<submission
id>_<file name>`; a file uploaded again under the same name gets `-1`, `-2` before its extension.
Moodle's "Download all submissions" puts each student's files in a folder `<Full Name>_<participant
id>_assignsubmission_file_/` (or, with folders turned off, starts each file name with it). The number
names the student. Canvas's user ID is the same in every assignment, so one grades file holds a column
per assignment. Moodle gives each student a new participant ID in each assignment (never one another
student had), so Moodle gets one grading worksheet per assignment, uploaded on that assignment's page.

nbgrader's plug-ins for both: `LmsCollector` for `nbgrader zip_collect`, `CanvasGrades` and `MoodleGrades` for
`nbgrader export`.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin, FileNameCollectorPlugin

from ..references._seed import graded_with

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


class LmsCollector(FileNameCollectorPlugin):
    """zip_collect: each student's notebook, by the ID in its Canvas or Moodle file name."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._collected: dict[str, str] = {}  # student id -> the file collected for them

    def collect(self, submitted_file: str) -> dict | None:
        app: Any = self.parent  # nbgrader's ZipCollectApp
        coursedir = app.coursedir
        notebook = f"{coursedir.assignment_id}.ipynb"
        reason = why_skipped(submitted_file, notebook)
        download = parse(submitted_file)
        if reason or download is None:
            self.log.warning("Not collected: %s", reason)
            return None
        name, student = Path(submitted_file).name, download.student_id
        if student in self._collected:
            self.log.warning(
                "Not collected: %s: student %s sent more than one notebook; %s is the one collected. To grade "
                "this one instead, copy it to submitted/%s/%s/%s and autograde with --force.",
                name, student, self._collected[student], student, coursedir.assignment_id, notebook,
            )  # fmt: skip
            return None
        self._collected[student] = name
        first, _, last = download.name.rpartition(" ") if download.lms == "moodle" else ("", "", download.name)
        with Gradebook(coursedir.db_url, coursedir.course_id) as gradebook:
            gradebook.update_or_create_student(student, first_name=first or None, last_name=last)  # pyright: ignore[reportArgumentType]
        return {"student_id": student, "file_id": notebook}


class CanvasGrades(ExportPlugin):
    """export: Canvas's gradebook import, a column per graded assignment (`--to`, default canvas-grades.csv)."""

    def export(self, gradebook: Gradebook) -> None:
        assignments = graded_assignments(gradebook, self.assignment)
        scores: dict[str, dict[str, float | None]] = {}
        for assignment in assignments:
            for student, score in student_scores(gradebook, assignment).items():
                scores.setdefault(student, {})[assignment] = score
        dest = Path(self.to or "canvas-grades.csv")
        write_csv(dest, canvas_rows(scores, student_names(gradebook), assignments))
        self.log.info("Wrote %s: %d students, %d assignments", dest, len(scores), len(assignments))
        _say_seeds(self, assignments)


class MoodleGrades(ExportPlugin):
    """export: a Moodle grading worksheet per graded assignment (`--to` names the folder, default .)."""

    def export(self, gradebook: Gradebook) -> None:
        folder = Path(self.to or ".")
        folder.mkdir(parents=True, exist_ok=True)
        for assignment in graded_assignments(gradebook, self.assignment):
            dest = folder / f"moodle-{assignment}.csv"
            submitted = {k: v for k, v in student_scores(gradebook, assignment).items() if v is not None}
            write_csv(dest, moodle_rows(submitted, student_names(gradebook)))
            self.log.info("Wrote %s: on %s's Moodle page, Upload grading worksheet", dest, assignment)
            _say_seeds(self, [assignment])


def _say_seeds(plugin: ExportPlugin, assignments) -> None:
    """Log which seed graded each exported assignment that has hidden inputs."""
    root = Path(getattr(getattr(plugin.parent, "coursedir", None), "root", "."))
    for assignment in assignments:
        if seed := graded_with(root, assignment):
            plugin.log.info("%s was graded with hidden inputs drawn from %s", assignment, seed)
