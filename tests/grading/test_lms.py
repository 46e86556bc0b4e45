"""An LMS's download goes into submitted/ with `nbgrader zip_collect`, and grades go back as its import reads them.

The zips are made here with the file names Canvas's "Download Submissions" and Moodle's "Download
all submissions" give; grading is the real `nbgrader autograde`, the export nbgrader's own command.
"""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.grading.plugins._lms import canvas_rows, moodle_rows, parse, why_skipped

from support import ROOT, VENV_BIN, answered, make_course, run, solution_sources

ASSIGNMENT = "03_tracing"
NOTEBOOK = f"{ASSIGNMENT}.ipynb"


@pytest.mark.unit
def test_canvas_and_moodle_names_give_the_student_and_the_file():
    canvas = parse("extracted/submissions/doejane_LATE_101_9001_03_tracing-1.ipynb")
    assert (canvas.lms, canvas.student_id, canvas.name, canvas.file) == (
        "canvas",
        "101",
        "doejane",
        "03_tracing-1.ipynb",
    )
    folder = parse("extracted/s/Jane Doe_5001_assignsubmission_file_/My notebook.ipynb")
    flat = parse("extracted/s/Jane Doe_5001_assignsubmission_file_My notebook.ipynb")
    assert folder == flat and (folder.lms, folder.student_id, folder.name) == ("moodle", "5001", "Jane Doe")
    assert parse("extracted/s/README.txt") is None


@pytest.mark.unit
def test_each_file_not_collected_says_why():
    assert why_skipped("x/doejane_101_9001_03_tracing.ipynb", NOTEBOOK) is None
    assert "not a notebook" in why_skipped("x/doejane_101_9001_notes.pdf", NOTEBOOK)
    assert "macOS" in why_skipped("x/__MACOSX/._doejane_101_9001_03_tracing.ipynb", NOTEBOOK)
    unknown = why_skipped("x/homework.ipynb", NOTEBOOK)
    assert "cannot tell whose" in unknown and f"submitted/<student id>/{ASSIGNMENT}/{NOTEBOOK}" in unknown


@pytest.mark.unit
def test_canvas_gets_a_column_per_assignment_and_moodle_a_participant_row():
    scores = {"102": {"a": 0.0, "b": None}, "101": {"a": 7.5, "b": 3.0}}
    rows = list(canvas_rows(scores, {"101": "Doe, Jane"}, {"a": 10.0, "b": 4.0}))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "a", "b"]
    assert rows[1] == ["Points Possible", "", "", "", "", "10", "4"]
    assert rows[2:] == [["Doe, Jane", "101", "", "", "", "7.5", "3"], ["", "102", "", "", "", "0", ""]]
    assert list(moodle_rows({"5001": 7.5}, {"5001": "Doe, Jane"})) == [
        ["Identifier", "Full name", "Grade"],
        ["Participant 5001", "Doe, Jane", "7.5"],
    ]


def _download(course: Path, files: dict[str, Path | str]) -> None:
    archive = course / "downloaded" / ASSIGNMENT / "archive"
    archive.mkdir(parents=True)
    with zipfile.ZipFile(archive / "submissions.zip", "w") as zipped:
        for name, content in files.items():
            zipped.writestr(name, content.read_text() if isinstance(content, Path) else content)


def _collect_grade_export(course: Path, exporter: str, to: str) -> str:
    collected = run(VENV_BIN / "nbgrader", "zip_collect", ASSIGNMENT, cwd=course)
    run(VENV_BIN / "nbgrader", "autograde", ASSIGNMENT, cwd=course)
    run(VENV_BIN / "nbgrader", "export", f"--exporter=autograder.grading.plugins.{exporter}", f"--to={to}", cwd=course)
    return collected.stdout + collected.stderr


def _notebooks(tmp_path: Path) -> tuple[Path, Path, float]:
    right = answered(ASSIGNMENT, solution_sources(ASSIGNMENT), tmp_path / "right.ipynb")
    untouched = ROOT / "exercises" / ASSIGNMENT / NOTEBOOK
    nb = nbformat.read(untouched, as_version=4)
    points = sum(c.metadata.get("nbgrader", {}).get("points", 0) for c in nb.cells)
    return right, untouched, points


@pytest.mark.grading
def test_a_canvas_download_is_collected_graded_and_exported_for_canvas(tmp_path):
    right, untouched, points = _notebooks(tmp_path)
    (tmp_path / "canvas").mkdir()
    course = make_course(tmp_path / "canvas", ASSIGNMENT)
    _download(
        course,
        {
            "doejane_101_9001_03_tracing.ipynb": right,
            # Late, uploaded twice: Canvas adds -1 to the second upload of a file name.
            "smithjohn_LATE_102_9002_03_tracing-1.ipynb": untouched,
            "smithjohn_LATE_102_9002_03_tracing.ipynb": untouched,
            "smithjohn_LATE_102_9002_notes.pdf": "%PDF",
            "README.txt": "instructions",
            "__MACOSX/._doejane_101_9001_03_tracing.ipynb": "",
        },
    )
    log = _collect_grade_export(course, "CanvasGrades", "canvas.csv")
    assert sorted(p.name for p in (course / "submitted").iterdir()) == ["101", "102"]
    assert (course / "submitted" / "101" / ASSIGNMENT / NOTEBOOK).read_text() == right.read_text()
    for reported in (
        "smithjohn_LATE_102_9002_03_tracing.ipynb: student 102 sent more than one notebook; "
        "smithjohn_LATE_102_9002_03_tracing-1.ipynb is the one collected",
        "smithjohn_LATE_102_9002_notes.pdf: from student 102, but not a notebook",
        "README.txt: cannot tell whose file this is",
        "._doejane_101_9001_03_tracing.ipynb: macOS archive metadata",
    ):
        assert reported in log, log
    rows = list(csv.reader(open(course / "canvas.csv")))
    assert rows[0][1] == "ID" and rows[0][5:] == [ASSIGNMENT] and rows[1][5] == f"{points:g}"
    assert [(r[0], r[1], r[5]) for r in rows[2:]] == [("doejane", "101", f"{points:g}"), ("smithjohn", "102", "0")]


@pytest.mark.grading
def test_a_moodle_download_is_collected_graded_and_exported_as_its_grading_worksheet(tmp_path):
    right, untouched, points = _notebooks(tmp_path)
    (tmp_path / "moodle").mkdir()
    course = make_course(tmp_path / "moodle", ASSIGNMENT)
    _download(
        course,
        {
            "Jane Doe_5001_assignsubmission_file_/03_tracing.ipynb": right,
            # Students name their uploads as they like; each assignment has one notebook.
            "John Smith_5002_assignsubmission_file_/My homework (1).ipynb": untouched,
        },
    )
    _collect_grade_export(course, "MoodleGrades", "grades")
    rows = list(csv.reader(open(course / "grades" / f"moodle-{ASSIGNMENT}.csv")))
    assert rows == [
        ["Identifier", "Full name", "Grade"],
        ["Participant 5001", "Doe, Jane", f"{points:g}"],
        ["Participant 5002", "Smith, John", "0"],
    ]
