"""The real `nbgrader autograde`, on a temporary course, scores every kind of submission as intended."""

from __future__ import annotations

import html as html_lib
import re
import time

import nbformat
import pytest

from conftest import ASSIGNMENTS, ROOT, VENV_BIN, make_course, read_scores, run, solution_sources, submit, test_points
from variants import VARIANTS


@pytest.fixture(scope="module", params=ASSIGNMENTS)
def graded(request, tmp_path_factory):
    """Autograde the reference answers, the untouched release and every wrong variant, in one batch."""
    assignment = request.param
    course = make_course(tmp_path_factory.mktemp(assignment), assignment)
    reference = solution_sources(assignment)
    submit(course, assignment, "reference", reference)
    submit(course, assignment, "untouched", {})
    for name, variant in VARIANTS[assignment].items():
        submit(course, assignment, name, {**reference, **variant["answers"]})
    start = time.perf_counter()
    run(VENV_BIN / "nbgrader", "autograde", assignment, "--force", cwd=course)
    seconds = time.perf_counter() - start
    print(f"\nautograde {assignment}: {2 + len(VARIANTS[assignment])} submissions in {seconds:.0f} s")
    return assignment, course, read_scores(course, assignment)


def test_reference_solution_gets_full_marks(graded):
    assignment, _, scores = graded
    assert scores["reference"] == test_points(assignment)


def test_untouched_exercise_gets_zero(graded):
    assignment, _, scores = graded
    assert scores["untouched"] == {name: 0.0 for name in test_points(assignment)}


def test_each_wrong_variant_loses_exactly_its_points(graded):
    assignment, _, scores = graded
    points = test_points(assignment)
    for name, variant in VARIANTS[assignment].items():
        expected = {test: 0.0 if test in variant["loses"] else full for test, full in points.items()}
        assert scores[name] == expected, f"variant {name}"


def test_every_timed_or_structural_problem_has_two_variants_that_fail_it(graded):
    assignment, _, _ = graded
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    special = {
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
        and any(check in c.source for check in ("check_speedup", "check_jaxpr_constant", "check_primitives", "check_pure", "check_jitted", "check_compile_count"))
    }
    assert special, "each assignment has timed or structural problems"
    for test in special:
        failing = [name for name, v in VARIANTS[assignment].items() if test in v["loses"]]
        assert len(failing) >= 2, f"{test} is failed only by {failing}"


def test_feedback_keeps_messages_and_hides_test_code(graded):
    assignment, course, _ = graded
    failing = next(iter(VARIANTS[assignment]))
    run(VENV_BIN / "nbgrader", "generate_feedback", assignment, "--student", failing, "--force", cwd=course)
    html = (course / "feedback" / failing / assignment / f"{assignment}.html").read_text()
    source = nbformat.read(course / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    hidden = [
        line.strip()
        for cell in source.cells
        if "BEGIN HIDDEN TESTS" in cell.source
        for line in cell.source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0].splitlines()
        if len(line.strip()) > 20
    ]
    assert hidden
    text = html_lib.unescape(re.sub(r"<[^>]+>", "", html))
    leaked = [line for line in hidden if line in text]
    assert not leaked, f"feedback shows hidden test code: {leaked[:3]}"
    assert "BEGIN HIDDEN TESTS" not in text
    assert "CheckFailed" in text, "the failing test's message is kept"
