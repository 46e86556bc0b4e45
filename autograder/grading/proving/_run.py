"""Scratch courses for a proof: the release built from the set's source, submissions written, both pipelines run.

Each pipeline grades in a course of its own, a copy of the instructor's settings (`nbgrader_config.py`) with
only this set: stock `nbgrader autograde` with the course's config, and `jax-course grade`. Both grade with
the same seed, the course's environment's or else the public one, so the references just recorded serve both.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ..._config import DEFAULT_SEED, GRADER_SEED
from ._sets import ExerciseSet

NBGRADER, JAX_COURSE = "nbgrader autograde", "jax-course grade"
PIPELINES = (NBGRADER, JAX_COURSE)
_BIN = Path(sys.executable).parent


class ProofError(RuntimeError):
    """The set cannot be proven at all: its release cannot be built, or a pipeline could not grade."""


@dataclass(frozen=True)
class Layout:
    """Where the course's config puts its sources and its release."""

    course_id: str
    source: str
    release: str


def layout(root: Path) -> Layout:
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config().CourseDirectory
    return Layout(
        str(config.get("course_id", "")) or "default_course",
        str(config.get("source_directory", "source")),
        str(config.get("release_directory", "release")),
    )


def environment() -> dict[str, str]:
    """What every command of a proof runs with: this environment's tools first (nbgrader's gradebook runs
    `alembic` by name) and a seed said explicitly (without one, `jax-course grade` would make a course's own)."""
    env = {**os.environ, "PATH": f"{_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.setdefault(GRADER_SEED, str(DEFAULT_SEED))
    return env


def run(command: list[str], cwd: Path, what: str, timeout: float = 3600) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, env=environment(), capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise ProofError(f"{what} failed (exit status {done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return done


@dataclass
class Scratch:
    """One pipeline's course: the release, the submissions it grades, what it graded."""

    pipeline: str
    folder: Path
    exercise: ExerciseSet
    layout: Layout
    students: list[str] = field(default_factory=list)
    said: str = ""  # the end of what the pipeline printed, when a submission could not be graded
    _graded: dict[str, dict | None] = field(default_factory=dict, repr=False)

    def submit(self, student: str, answers: dict[str, str]) -> None:
        """The released notebook with `answers` (answer cell grade_id -> source) filled in, as `student`'s."""
        name = self.exercise.name
        nb = nbformat.read(self.folder / self.layout.release / name / f"{name}.ipynb", as_version=4)
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in answers:
                cell.source = answers[grade_id]
        path = self.folder / "submitted" / student / name / f"{name}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
        self.students.append(student)

    def grade(self, workers: int) -> None:
        if not self.students:
            return
        if self.pipeline == NBGRADER:
            command = [str(_BIN / "nbgrader"), "autograde", self.exercise.name, "--force"]
        else:
            command = [str(_BIN / "jax-course"), "grade", self.exercise.name, "--force", "--workers", str(workers)]
        done = subprocess.run(command, cwd=self.folder, env=environment(), capture_output=True, text=True)
        # Both exit 1 when a submission could not be graded, which the proof names (it has no graded notebook).
        if done.returncode not in (0, 1):
            raise ProofError(f"{self.pipeline} failed (exit status {done.returncode}):\n{done.stderr[-3000:]}")
        if done.returncode == 1:
            self.said = done.stderr[-1500:]

    def feedback(self) -> None:
        if self.students:
            run([str(_BIN / "nbgrader"), "generate_feedback", self.exercise.name, "--force"], self.folder, "feedback")

    def scores(self) -> dict[str, dict[str, float | None]]:
        """`{student: {test: score}}` from the gradebook; a submission that could not be graded is missing."""
        from ..plugins._gradebook import without_sqlalchemy_warnings  # nbgrader: only once there is a gradebook

        with without_sqlalchemy_warnings():
            from nbgrader.api import Gradebook

            found: dict[str, dict[str, float | None]] = {}
            with Gradebook(f"sqlite:///{self.folder / 'gradebook.db'}", self.layout.course_id) as gb:
                for submission in gb.assignment_submissions(self.exercise.name):
                    notebook = submission.notebooks[0]
                    found[str(submission.student_id)] = {str(grade.name): grade.score for grade in notebook.grades}
        return found

    def graded(self, student: str) -> dict | None:
        """`student`'s graded notebook, read once: a pack's notebook is judged for each of its members."""
        if student not in self._graded:
            name = self.exercise.name
            path = self.folder / "autograded" / student / name / f"{name}.ipynb"
            self._graded[student] = json.loads(path.read_text()) if path.is_file() else None
        return self._graded[student]

    def feedback_page(self, student: str) -> str | None:
        name = self.exercise.name
        path = self.folder / "feedback" / student / name / f"{name}.html"
        return path.read_text() if path.is_file() else None


@functools.cache
def _new_gradebook(course_id: str) -> Path:
    """An empty gradebook as nbgrader makes one, made once per process: nbgrader makes each by running `alembic`
    for its schema (a new interpreter, about two seconds of CPU), and a proof needs one per pipeline."""
    # nbgrader: only once there is a gradebook
    from ..plugins._gradebook import alembic_on_path, without_sqlalchemy_warnings

    with without_sqlalchemy_warnings():
        from nbgrader.api import Gradebook

        alembic_on_path()
        folder = Path(tempfile.mkdtemp(prefix="jax-course-gradebook-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        with Gradebook(f"sqlite:///{folder / 'gradebook.db'}", course_id):
            pass
    return folder / "gradebook.db"


def build_release(course: Path, assignment: str) -> None:
    """`nbgrader generate_assignment` of one set in `course`, as `make exercises` runs it."""
    run(
        [str(_BIN / "nbgrader"), "generate_assignment", assignment, "--force", "--log-level=WARN"],
        course,
        f"building the release of {assignment} (nbgrader generate_assignment)",
    )


def scratch_courses(root: Path, exercise: ExerciseSet, folder: Path, pipelines: tuple[str, ...]) -> list[Scratch]:
    """A course per pipeline in `folder`, each with the set's release built by nbgrader from its source."""
    config = layout(root)
    first = folder / "course"
    first.mkdir(parents=True)
    _configure(root, first)
    shutil.copy(_new_gradebook(config.course_id), first / "gradebook.db")
    shutil.copytree(exercise.notebook_path.parent, first / config.source / exercise.name)
    build_release(first, exercise.name)
    courses = [Scratch(pipelines[0], first, exercise, config)]
    for n, pipeline in enumerate(pipelines[1:], 2):
        other = Path(shutil.copytree(first, folder / f"course{n}"))
        _configure(root, other)
        courses.append(Scratch(pipeline, other, exercise, config))
    return courses


def _configure(root: Path, folder: Path) -> None:
    """The course's config, but for where its course and gradebook are: the scratch folder's own, whatever the
    course names (a hub's root, a PostgreSQL gradebook)."""
    own = (
        "\n# jax-course prove: a scratch course, graded in its own folder and gradebook\n"
        f"c.CourseDirectory.root = {str(folder)!r}\n"
        f"c.CourseDirectory.db_url = {'sqlite:///' + str(folder / 'gradebook.db')!r}\n"
    )
    (folder / "nbgrader_config.py").write_text((root / "nbgrader_config.py").read_text() + own)
