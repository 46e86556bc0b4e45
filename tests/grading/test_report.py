"""What an instructor reads: report.csv, report.html (escaped) and the summary table."""

from __future__ import annotations

import csv

import pytest
from rich.console import Console

from autograder.grading.batch._ledger import Ledger, Outcome
from autograder.grading.batch._run import GradingRun
from autograder.grading.reports._report import MANUAL, mean_score, pass_rate, summary_table, write_report

pytestmark = pytest.mark.unit

OUTCOMES = [
    Outcome("ada", "graded", "", 2.0, 2.0, {"test_a": [1.0, 1.0], "test_b": [1.0, 1.0]}),
    Outcome("bob", "failed", "crashed: <script>alert(1)</script>", 0.5, 2.0, {"test_a": [0.5, 1.0]}),
    Outcome("cy", "missing", "missing: submitted/cy/03_tracing holds no notebook", 0.0, 0.0, {}),
]


@pytest.fixture
def run(tmp_path) -> GradingRun:
    run = GradingRun("03_tracing", tmp_path / "grading" / "03_tracing")
    for outcome in OUTCOMES:
        Ledger(run.folder).record(outcome)
    run.outcomes = OUTCOMES[1:]
    run.skipped = ["ada"]
    return run


def test_rates_and_means_per_problem():
    assert pass_rate(OUTCOMES, "test_a") == 0.5 and mean_score(OUTCOMES, "test_a") == 0.75
    assert pass_rate(OUTCOMES, "test_b") == 1.0 and pass_rate(OUTCOMES, "missing") == 0.0


def test_csv_has_a_row_per_submission_and_html_escapes_what_students_wrote(run):
    csv_path, html_path = write_report(run)
    rows = list(csv.DictReader(csv_path.open()))
    assert [r["student"] for r in rows] == ["ada", "bob", "cy"]
    assert rows[2]["status"] == "missing" and "holds no notebook" in rows[2]["reason"]
    assert rows[1]["reason"].startswith("crashed") and rows[1]["test_b"] == "0"
    page = html_path.read_text()
    assert "<script>" not in page and "crashed: &lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "data:image/png;base64," in page
    assert "<td>test_a</td><td>50%</td><td>0.75</td>" in page


def test_the_summary_says_what_this_run_did(run):
    console = Console(record=True, width=120)
    console.print(summary_table(run))
    text = console.export_text()
    assert "already graded (skipped)" in text and "failed now: crashed" in text and "mean score: test_a" in text
    assert "no notebook handed in" in text and "failed now: missing" not in text


def test_scores_are_nbgrader_exports_and_a_cell_waiting_for_its_manual_grade_is_no_zero(tmp_path):
    late = Outcome(
        "dee", "graded", "", 0.5, 2.0, {"test_a": [1.0, 1.0], "essay": [None, 1.0]}, raw_score=1.5, penalty=1
    )
    run = GradingRun("03_tracing", tmp_path / "grading" / "03_tracing")
    for outcome in (OUTCOMES[0], late):
        Ledger(run.folder).record(outcome)
    run.outcomes = [late]
    row = list(csv.DictReader(write_report(run)[0].open()))[1]
    assert (row["score"], row["raw_score"], row["late_submission_penalty"]) == ("0.5", "1.5", "1")
    assert row["essay"] == MANUAL and row["test_a"] == "1.0"
    assert pass_rate([late], "essay") == 0.0 and mean_score([OUTCOMES[0], late], "test_a") == 1.0
    console = Console(record=True, width=120)
    console.print(summary_table(run))
    assert "waiting for a manual grade │ 1" in console.export_text()


def test_one_submission_gets_its_score_and_no_chart_of_a_class(tmp_path):
    run = GradingRun("03_tracing", tmp_path / "grading" / "03_tracing")
    Ledger(run.folder).record(OUTCOMES[0])
    run.outcomes = OUTCOMES[:1]
    page = write_report(run)[1].read_text()
    assert "<p>ada: 2 of 2</p>" in page and "data:image/png" not in page


# nbgrader's own `add_submission` sets up its rows with SQLAlchemy's autoflush on, which warns.
@pytest.mark.filterwarnings("ignore:Object of type <Submitted")
def test_the_report_reads_every_score_as_the_gradebook_holds_it_now(tmp_path):
    """A manual grade given after grading counts; a submission the gradebook never got scores zero."""
    from nbgrader.api import Gradebook

    db_url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(db_url, "course") as gb:
        gb.add_assignment("03_tracing")
        gb.add_notebook("03_tracing", "03_tracing")
        gb.add_grade_cell("test_a", "03_tracing", "03_tracing", max_score=1, cell_type="code")
        gb.add_grade_cell("essay", "03_tracing", "03_tracing", max_score=2, cell_type="markdown")
        for student in ("ada", "bob"):
            gb.add_student(student)
            gb.add_submission("03_tracing", student)
        for student, cell, score in (("ada", "test_a", 1.0), ("bob", "test_a", 0.0), ("bob", "essay", 1.5)):
            grade = gb.find_grade(cell, "03_tracing", "03_tracing", student)
            grade.manual_score, grade.needs_manual_grade = score, False
        gb.db.commit()
    run = GradingRun("03_tracing", tmp_path / "grading" / "03_tracing", db_url=db_url, course_id="course")
    stale = {"test_a": [0.0, 1.0], "essay": [0.0, 2.0]}
    for student in ("ada", "bob", "cy"):  # cy's grading failed before nbgrader made its row
        Ledger(run.folder).record(Outcome(student, "graded", "", 0.0, 3.0, stale))
    now = {o.student: (o.score, o.max_score, o.problems) for o in run.current()}
    assert now == {
        "ada": (1.0, 3.0, {"test_a": [1.0, 1.0], "essay": [None, 2.0]}),
        "bob": (1.5, 3.0, {"test_a": [0.0, 1.0], "essay": [1.5, 2.0]}),
        "cy": (0.0, 0.0, {}),
    }
