"""nbgrader's Autograde converter, with execution left to the caller (`_run.py`).

This module, and `plugins/_schema.py` for one module global, use nbgrader's private internals (`_format_source`,
`_sanitizing`, `exporter._preprocessors`, ...), which is why nbgrader is pinned exactly
(`nbgrader==0.9.6` in pyproject.toml): every step below is nbgrader's own code, called
in the order its `autograde` calls it, but with the notebook run elsewhere in between.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import cast

import nbformat
from nbconvert.exporters.exporter import ResourcesDict
from nbgrader import utils
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps.autogradeapp import AutogradeApp
from nbgrader.converters.autograde import Autograde
from nbgrader.converters.base import BaseConverter, NbGraderException
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import Execute

from ..plugins._gradebook import alembic_on_path
from ..plugins._links import links_in, record_zero, refusal
from ._failures import Heard, SubmissionError, check_timestamp
from ._ledger import Outcome, fingerprint

# What nbgrader warned about: for the report, and in the terminal with the student it was about.
HEARD = Heard()


class GradingError(Exception):
    """The batch cannot start (no such assignment, no submissions): the message says why."""


class PartlyPrepared(Exception):
    """A notebook of a submission could not be read (its cause is this exception's): nbgrader grades the
    notebooks before it, in order, then fails the submission; `sanitized` are those before it."""

    def __init__(self, sanitized: list[tuple[str, str]]):
        super().__init__("a notebook could not be read")
        self.sanitized = sanitized


@dataclass
class Submission:
    student: str
    notebooks: list[str]
    fingerprint: str
    folder: Path  # submitted/STUDENT/ASSIGNMENT


class BatchAutograde(Autograde):
    """Lists the submissions, prepares each (gradebook entry, sanitize) and finishes it (SaveAutoGrades, ...)."""

    submissions: list[Submission] = []

    @property
    def course(self) -> CourseDirectory:
        """The course's folders and gradebook URL (a traitlets Instance, typed for the checker)."""
        return cast(CourseDirectory, self.coursedir)

    def _student(self, folder: str) -> str | None:
        """The student a submitted folder belongs to, or None if `student_id_exclude` leaves them out."""
        pattern = self._format_source("(?P<assignment_id>.*)", "(?P<student_id>.*)", escape=True)
        found = re.match(pattern, folder)
        excluded = self.course.student_id_exclude.split(",") if self.course.student_id_exclude else []
        return found["student_id"] if found and found["student_id"] not in excluded else None

    def convert_notebooks(self) -> None:
        """What `start()` calls: here it only lists the submissions."""
        self.submissions = []
        for key in sorted(self.assignments):
            if (student := self._student(key)) is not None:
                folder = Path(key)
                self.submissions.append(Submission(student, sorted(self.assignments[key]), fingerprint(folder), folder))

    def without_notebooks(self) -> list[tuple[str, Path]]:
        """`(student, folder)` of submitted folders that hold no notebook at all, which nbgrader leaves ungraded."""
        listed = {s.student for s in self.submissions}
        found = []
        for folder in sorted(glob.glob(self._format_source(self.course.assignment_id, self.course.student_id))):
            student = self._student(folder)
            empty = os.path.isdir(folder) and not any(Path(folder).glob("*.ipynb"))
            if empty and student and student not in listed:
                found.append((student, Path(folder)))
        return found

    def done(self, submission: Submission, entry: Outcome | None) -> bool:
        """Whether the ledger's `entry` still holds: the same files submitted, the gradebook holding the
        submission and, if it was graded, autograded/ its notebooks (deleted ones are graded again, as
        nbgrader does). One that could not be graded is not tried again unless it changes."""
        if entry is None or entry.fingerprint != submission.fingerprint:
            return False
        dest = Path(self._format_dest(self.course.assignment_id, submission.student))
        there = all((dest / Path(notebook).name).is_file() for notebook in submission.notebooks)
        return (there or entry.status != "graded") and self.in_gradebook(submission.student)

    @cached_property
    def expected_notebooks(self) -> list[str]:
        """The notebooks of the assignment, as released (`NAME.ipynb`), read from the gradebook once."""
        with Gradebook(self.course.db_url, self.course.course_id) as gb:
            return sorted(f"{n.name}.ipynb" for n in gb.find_assignment(self.course.assignment_id).notebooks)

    def execute_config(self) -> dict:
        """nbgrader's `Execute` settings (the cell timeout, the kernel's arguments), for the workers."""
        # The course's own Execute step (nbgrader_config.py may name a subclass) picks the kernel manager.
        steps = [p for p in self.autograde_preprocessors if isinstance(p, type) and issubclass(p, Execute)]
        step = steps[0] if steps else Execute
        # As traitlets configures it: its base classes' sections (--ExecutePreprocessor.timeout), its own last.
        config = {}
        for base in reversed(Execute.__mro__):
            config.update(self.config.get(base.__name__, {}))
        config.setdefault("timeout", Execute.timeout.default_value)
        manager = step().kernel_manager_class
        config["kernel_manager_class"] = f"{manager.__module__}.{manager.__qualname__}"
        return config

    def prepare(self, submission: Submission) -> list[tuple[str, str]]:
        """Gradebook entry, copied files, sanitized notebooks; returns (path, sanitized JSON) pairs."""
        assignment = self.course.assignment_id
        HEARD.student = submission.student
        self.notebooks = list(submission.notebooks)
        # The ledger chose to grade it: nbgrader's own removal of what it replaces, as under --force.
        force, self.force = self.force, True
        try:
            self.init_destination(assignment, submission.student)
        finally:
            self.force = force
        if links := links_in(submission.folder, Path(self.course.root, self.course.submitted_directory)):
            # Before nbgrader copies, or reads, what a link points to; recorded as stock's `RefuseLinks` records it.
            record_zero(self.course.db_url, self.course.course_id, assignment, submission.student)
            raise SubmissionError(refusal(links))
        check_timestamp(submission.folder)
        self.run_pre_convert_hook()
        self.init_assignment(assignment, submission.student)
        sanitized = []
        for notebook in self.notebooks:
            self._sanitizing = True
            self._init_preprocessors()
            try:
                BaseConverter.convert_single_notebook(self, notebook)
            except Exception as error:
                raise PartlyPrepared(sanitized) from error
            path = Path(self.writer.build_directory) / Path(notebook).name
            sanitized.append((str(path), path.read_text()))
        return sanitized

    def finish(self, student: str, sanitized_path: str, executed: str) -> None:
        """The autograde preprocessors after Execute (SaveAutoGrades among them), and the write."""
        HEARD.student = student
        self._sanitizing = False
        self.exporter._preprocessors = []
        for preprocessor in self.autograde_preprocessors:
            if not (isinstance(preprocessor, type) and issubclass(preprocessor, Execute)):
                self.exporter.register_preprocessor(preprocessor)
        resources = self.init_single_notebook_resources(sanitized_path)
        nb = nbformat.reads(executed, as_version=4)
        with utils.setenv(NBGRADER_EXECUTION="autograde"):
            output, resources = self.exporter.from_notebook_node(nb, resources=resources)
        self.write_single_notebook(cast(str, output), cast(ResourcesDict, resources))
        self._sanitizing = True

    def close(self, student: str) -> None:
        """After the last notebook of a submission: permissions and nbgrader's post-convert hook."""
        HEARD.student = student
        self.set_permissions(self.course.assignment_id, student)
        self.run_post_convert_hook()

    def fail(self, submission: Submission) -> None:
        """As nbgrader's `convert_notebooks` handles a failure: the submission's autograded folder removed (or,
        with --notebook, its notebooks), and the gradebook left as grading had left it."""
        HEARD.student = submission.student
        dest = os.path.normpath(self._format_dest(self.course.assignment_id, submission.student))
        if self.course.notebook_id == "*":
            if os.path.exists(dest):
                self.log.warning("Removing failed assignment: %s", dest)
                shutil.rmtree(dest)
            return
        for notebook in submission.notebooks:
            path = os.path.join(dest, Path(notebook).stem + self.exporter.file_extension)
            if os.path.exists(path):
                self.log.warning("Removing failed notebook: %s", path)
                os.remove(path)

    def in_gradebook(self, student: str) -> bool:
        """Whether the gradebook holds this student's submission (a reset gradebook means grading again)."""
        with Gradebook(self.course.db_url, self.course.course_id) as gb:
            try:
                gb.find_submission(self.course.assignment_id, student)
            except MissingEntry:
                return False
        return True


@dataclass
class Scores:
    """A submission's scores as nbgrader's gradebook and `nbgrader export` give them."""

    score: float  # raw less the late penalty, never below 0 (`CsvExportPlugin`)
    max_score: float
    raw_score: float
    penalty: float
    problems: dict[str, list[float | None]]  # {problem: [score, max]}; None: waits for a manual grade


def read_scores(db_url: str, course_id: str, assignment: str, students: list[str]) -> dict[str, Scores]:
    """Each submission's scores from the gradebook now (manual grades included once given); zeros for one that
    has none. One gradebook is opened for all of them: opening one costs more than reading a submission.

    A problem is its grade_id, or `notebook/grade_id` in an assignment of several notebooks (which may
    use the same grade_ids).
    """
    with Gradebook(db_url, course_id) as gb:
        return {student: _scores(gb, assignment, student) for student in students}


def _scores(gb: Gradebook, assignment: str, student: str) -> Scores:
    try:
        submission = gb.find_submission(assignment, student)
    except MissingEntry:  # it failed before nbgrader made its row (a bad timestamp)
        return Scores(0.0, 0.0, 0.0, 0.0, {})
    several = len(submission.notebooks) > 1
    problems: dict[str, list[float | None]] = {
        f"{notebook.name}/{grade.name}" if several else grade.name: [
            None if grade.needs_manual_grade else float(grade.score or 0),
            float(grade.max_score or 0),
        ]
        for notebook in submission.notebooks
        for grade in notebook.grades
    }
    raw, penalty = float(submission.score or 0), float(submission.late_submission_penalty or 0)
    return Scores(max(0.0, raw - penalty), float(submission.max_score or 0), raw, penalty, problems)


def open_course(assignment: str, *, db_url: str | None, student: str | None, options: list[str]) -> BatchAutograde:
    """The converter for `assignment` of the course in the current folder, its submissions listed.

    `options` are nbgrader's own command-line options, as `nbgrader autograde` takes them.
    """
    # The course is the current folder (a relative --course-dir was resolved before coming here).
    # Its warnings as nbgrader shows them, but not its progress (the grader's bar says that).
    argv = [assignment, "--log-level=WARN", *options, f"--CourseDirectory.root={os.getcwd()}"]
    if db_url:
        argv.append(f"--CourseDirectory.db_url={db_url}")
    if student:
        argv.append(f"--CourseDirectory.student_id={student}")
    alembic_on_path()
    app = AutogradeApp()
    app.log.addFilter(HEARD)
    app.initialize(argv)
    course = cast(CourseDirectory, app.coursedir)
    course.assignment_id = assignment
    converter = BatchAutograde(coursedir=course, parent=app)
    with Gradebook(course.db_url, course.course_id) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            raise GradingError(
                f"the gradebook ({course.db_url}) has no assignment {assignment}: release it first "
                f"with `nbgrader generate_assignment {assignment}` using the same db_url"
            ) from None
    try:
        converter.start()
    except NbGraderException as error:
        raise GradingError(str(error)) from None
    return converter
