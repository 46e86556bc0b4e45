"""A submission that holds a link is refused, in both pipelines: nbgrader would follow it.

nbgrader's autograde copies every file of `submitted/STUDENT/ASSIGNMENT/` into `autograded/` with `shutil.copy`,
which follows a link, and reads a notebook through one: a `data.csv` pointing at the course's solutions or the
gradebook, put there by an LMS download unpacked with `unzip` or straight into the exchange, would be copied,
shown to the kernel and the feedback, or graded as the student's notebook. Links are looked for before anything
is copied, in the folder and on the way to it from `submitted/` (`submitted/STUDENT` itself may be one); a
submission with any gets no points and a reason the instructor reads. Stock `nbgrader autograde` builds its
converter from a name in `nbgrader.apps.autogradeapp`, which `refuse_links_in_submissions` points at
`RefuseLinks` (importing this package installs it: `nbgrader_config.py` does, as of the release pinned in
pyproject.toml); `jax-course grade` asks `links_in` itself (`batch/_convert.py`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import cast

from nbgrader.api import Gradebook
from nbgrader.apps import autogradeapp
from nbgrader.converters import Autograde
from nbgrader.converters.base import NbGraderException
from nbgrader.coursedir import CourseDirectory


def links_in(folder: Path, submitted: Path) -> list[str]:
    """Each link in `folder`, or between `submitted` and it, as `name -> target`, named from `submitted`."""
    folder, submitted = Path(os.path.abspath(folder)), Path(os.path.abspath(submitted))  # links not followed
    if not folder.is_relative_to(submitted):
        submitted = folder.parent
    found, here = [], submitted
    for part in folder.relative_to(submitted).parts:
        here = here / part
        if here.is_symlink():
            found.append(here)
    if not found:
        for parent, folders, files in os.walk(folder):  # never through a link: os.walk lists it, and stops
            found += [Path(parent, name) for name in [*folders, *files] if os.path.islink(os.path.join(parent, name))]
    return [f"{path.relative_to(submitted)} -> {os.readlink(path)}" for path in sorted(found)]


def refusal(links: list[str]) -> str:
    """Why a submission holding `links` is not graded, and what to do."""
    shown = ", ".join(links[:5]) + (f" and {len(links) - 5} more" if len(links) > 5 else "")
    return (
        f"refused: the submission holds links, which the grader never follows ({shown}): what a link points to "
        "would be copied where the student's code and feedback read it. Replace each with the file it should be, "
        "or delete it, in the submitted folder, then grade again"
    )


def record_zero(db_url: str, course_id: str, assignment: str, student: str) -> None:
    """The submission in the gradebook with no points (as nbgrader records a missing notebook)."""
    with Gradebook(db_url, course_id) as gb:
        gb.update_or_create_student(student)
        gb.update_or_create_submission(assignment, student)
        for notebook in gb.find_assignment(assignment).notebooks:
            for grade in gb.find_submission_notebook(notebook.name, assignment, student).grades:
                grade.auto_score = 0
                grade.needs_manual_grade = False
        gb.db.commit()


class RefuseLinks(Autograde):
    """nbgrader's Autograde, which refuses a submission holding a link before it copies anything."""

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        course = cast(CourseDirectory, self.coursedir)  # a traitlets Instance, typed for the checker
        folder = Path(self._format_source(assignment_id, student_id))
        if links := links_in(folder, Path(course.root, course.submitted_directory)):
            record_zero(course.db_url, course.course_id, assignment_id, student_id)
            reason = f"{student_id}'s {assignment_id} is {refusal(links)}"
            self.log.error(reason)
            raise NbGraderException(reason)
        super().init_assignment(assignment_id, student_id)


def refuse_links_in_submissions() -> None:
    """Make `nbgrader autograde` (and the formgrader's, and the self-check's) use `RefuseLinks`."""
    autogradeapp.Autograde = RefuseLinks  # type: ignore[misc]
