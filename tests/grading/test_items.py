"""Item analysis (`jax-course report`, and `jax-course grade`'s report): what a class got wrong, and why."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

from autograder.grading.reports._items import analyse, cause_of

from support import ROOT, VENV_BIN, jax_course_grade, make_course, run, solution_sources, submit, test_points
from variants import VARIANTS

ASSIGNMENT = "03_tracing"
# The generated class: who, the archetype graded for real they copy, how many, and what is planted in their
# notebooks (test -> the error it shows, scoring 0; None: it passes). The reference's copies fail UPSIDE_DOWN and
# the blanks' pass it, so that the strong students fail it and the weak pass it.
UPSIDE_DOWN = "test_pure"
PLANTED = "CheckFailed: a cause planted for the strong students only"
STOPPED = "GradingStopped: timeout: the notebook ran longer than the limit of 900 s, in cell test_leak"
CLASS = [
    ("reference", "reference", 20, {UPSIDE_DOWN: PLANTED}),
    ("blank", "blank", 10, {UPSIDE_DOWN: None}),
    ("affine_row_loop", "affine_row_loop", 10, {}),
    ("pure_still_prints", "pure_still_prints", 8, {}),
    ("leak_still_stored", "leak_still_stored", 7, {}),
    ("leak_stopped", "leak_still_stored", 3, {"test_leak": STOPPED}),
    ("affine_numpy", "affine_numpy", 6, {}),
]
SITE_EXAMPLE = ROOT / "build" / "site-examples" / "item-analysis"
ARCHETYPES = sorted({archetype for _, archetype, _, _ in CLASS})


@pytest.mark.unit
def test_a_cause_is_the_first_line_without_what_varies():
    first = "softmax differs at index (2,): got 30.5, expected -1e-3 for 'x[0]'.\nTry: ...\nReread: course/x.ipynb#y"
    assert cause_of(first) == "softmax differs at index (#,): got #, expected # for '…'."
    assert cause_of(first.replace("30.5", "7")) == cause_of(first)
    assert cause_of("affine_v2 is not traceable") == "affine_v2 is not traceable"  # names keep their digits
    assert cause_of("") == "no message"


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, Path]:
    """The archetypes, graded by stock `nbgrader autograde` in one course and by `jax-course grade` in a copy."""
    stock = make_course(tmp_path_factory.mktemp("stock"), ASSIGNMENT)
    reference = solution_sources(ASSIGNMENT)
    for student in ARCHETYPES:
        answers = {} if student == "blank" else reference
        if student in VARIANTS[ASSIGNMENT]:
            answers = {**reference, **VARIANTS[ASSIGNMENT][student]["answers"]}
        submit(stock, ASSIGNMENT, student, answers)
    ours = shutil.copytree(stock, tmp_path_factory.mktemp("ours") / "course")  # a new folder each time it is set up
    run(VENV_BIN / "nbgrader", "autograde", ASSIGNMENT, cwd=stock)
    jax_course_grade(ours, ASSIGNMENT)
    return {"stock": stock, "ours": ours}


def _generated_class(graded: Path, into: Path) -> dict[str, list[str]]:
    """CLASS: each student a copy of an archetype's gradebook rows and autograded notebook, with what is planted.
    Returns the students of each group."""
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning

    shutil.copy(graded / "gradebook.db", into / "gradebook.db")
    who: dict[str, list[str]] = {}
    # nbgrader's add_submission warns of its own objects' session (SQLAlchemy's autoflush): not this test's concern.
    with warnings.catch_warnings(), Gradebook(f"sqlite:///{into / 'gradebook.db'}") as gb:
        warnings.simplefilter("ignore", SAWarning)
        for group, archetype, count, planted in CLASS:
            grades = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, archetype).grades
            original = {g.name: (g.auto_score, g.max_score) for g in grades}
            nb = json.loads((graded / "autograded" / archetype / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
            for cell in nb["cells"]:
                test = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                if test in planted:
                    name, _, value = (planted[test] or "").partition(": ")
                    error = {"output_type": "error", "ename": name, "evalue": value, "traceback": []}
                    cell["outputs"] = [error] if planted[test] else []
            for n in range(count):
                student = f"{group}-{n:02d}"
                gb.add_student(student)
                gb.add_submission(ASSIGNMENT, student)
                for grade in gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student).grades:
                    score, points = original[grade.name]
                    grade.auto_score = (0.0 if planted[grade.name] else points) if grade.name in planted else score
                folder = into / "autograded" / student / ASSIGNMENT
                folder.mkdir(parents=True)
                (folder / f"{ASSIGNMENT}.ipynb").write_text(json.dumps(nb))
                who.setdefault(group, []).append(student)
        for archetype in ARCHETYPES:
            gb.remove_submission(ASSIGNMENT, archetype)
        gb.db.commit()
    return who


@pytest.mark.unit
@pytest.mark.parametrize("db", [None, "sqlite:///elsewhere.db"])
def test_a_report_without_a_gradebook_says_where_it_looked_and_makes_none(tmp_path, monkeypatch, capsys, db):
    from autograder.grading._cli import main

    (tmp_path / "nbgrader_config.py").write_text("")
    monkeypatch.chdir(tmp_path)
    assert main(["report", ASSIGNMENT, *(["--db", db] if db else [])]) == 2
    said = capsys.readouterr().err
    assert f"no gradebook at {tmp_path / 'gradebook.db' if db is None else 'elsewhere.db'}: grade {ASSIGNMENT}" in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nbgrader_config.py"]  # no empty gradebook left behind
    assert analyse(tmp_path, ASSIGNMENT).students == []  # as `jax-course grade`'s report reads it: no one


@pytest.mark.grading
def test_a_generated_class_shows_the_causes_planted_and_flags_the_test_strong_students_fail(graded, tmp_path):
    who = _generated_class(graded["stock"], tmp_path)
    analysis = analyse(tmp_path, ASSIGNMENT)
    assert len(analysis.students) == sum(count for _, _, count, _ in CLASS) >= 60
    items = {item.test: item for item in analysis.items}
    assert set(items) == set(test_points(ASSIGNMENT))

    # Each wrong variant's copies are the students of a cause of each test it loses, and nobody else.
    for variant in ("affine_row_loop", "pure_still_prints", "leak_still_stored", "affine_numpy"):
        for test in VARIANTS[ASSIGNMENT][variant]["loses"]:
            groups = [set(c.students) for c in analysis.causes if c.test == test]
            assert set(who[variant]) in groups, (
                f"{variant}/{test}: {[(c.cause, len(c.students)) for c in analysis.causes if c.test == test]}"
            )
    blanks = [c for c in analysis.causes if set(c.students) == set(who["blank"])]
    assert {c.test for c in blanks} == set(test_points(ASSIGNMENT)) - {UPSIDE_DOWN}
    assert all("not answered yet" in c.cause for c in blanks)
    planted = next(c for c in analysis.causes if c.test == UPSIDE_DOWN)
    assert planted.cause == PLANTED.split(": ", 1)[1] and set(planted.students) == set(who["reference"])
    stopped = next(c for c in analysis.causes if c.test == "test_leak" and "timeout" in c.cause)
    assert set(stopped.students) == set(who["leak_stopped"])
    assert analysis.limits == {items["test_leak"].problem: len(who["leak_stopped"])}
    taught = [c for c in analysis.causes if c not in blanks and c not in (planted, stopped)]
    assert all(c.reread and c.reread.startswith("course/") for c in taught), taught

    # The test the strong fail discriminates negatively and is flagged; the others discriminate and are not.
    upside_down = items[UPSIDE_DOWN]
    assert upside_down.point_biserial is not None and upside_down.point_biserial < 0 and upside_down.flagged
    assert upside_down.upper_lower is not None and upside_down.upper_lower < 0
    for test, item in items.items():
        if test != UPSIDE_DOWN:
            assert item.point_biserial is not None and item.point_biserial > 0.1 and not item.flagged, item
    full = (
        len(who["reference"]) + len(who["affine_row_loop"]) + len(who["pure_still_prints"]) + len(who["affine_numpy"])
    )
    assert items["test_leak"].pass_rate == pytest.approx(full / len(analysis.students))

    # The command writes the page and both tables.
    (tmp_path / "nbgrader_config.py").write_text("")  # all `jax-course report` needs of a course, with its gradebook
    done = subprocess.run([VENV_BIN / "jax-course", "report", ASSIGNMENT], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"check this test or this teaching: {UPSIDE_DOWN}" in done.stdout
    folder = tmp_path / "grading" / ASSIGNMENT
    with open(folder / "items.csv") as f:
        rows = {row["test"]: row for row in csv.DictReader(f)}
    assert rows[UPSIDE_DOWN]["flag"] and not rows["test_affine"]["flag"]
    with open(folder / "causes.csv") as f:
        assert sum(1 for row in csv.DictReader(f) if row["test"] == UPSIDE_DOWN) == len(who["reference"])
    page = (folder / "items.html").read_text()
    assert "check this test or this teaching" in page and 'alt="Bar chart of the share of submissions' in page
    # The instructor guide's example, on the site (`make site`), with the tables the page links to.
    SITE_EXAMPLE.mkdir(parents=True, exist_ok=True)
    for name in ("items.html", "items.csv", "causes.csv"):
        shutil.copy(folder / name, SITE_EXAMPLE / name)


@pytest.mark.grading
def test_the_analysis_reads_the_same_from_stock_nbgraders_gradebook_and_from_jax_course_grades(graded):
    stock, ours = analyse(graded["stock"], ASSIGNMENT), analyse(graded["ours"], ASSIGNMENT)
    assert stock.items == ours.items
    assert [(c.test, c.cause, c.students) for c in stock.causes] == [(c.test, c.cause, c.students) for c in ours.causes]
    assert stock.full_marks == ours.full_marks and 0 < min(stock.full_marks.values()) < 1
    # jax-course grade's own report carries the same analysis.
    page = (graded["ours"] / "grading" / ASSIGNMENT / "report.html").read_text()
    assert "What the class got wrong" in page and (graded["ours"] / "grading" / ASSIGNMENT / "items.csv").is_file()
