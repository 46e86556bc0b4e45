"""The real `nbgrader autograde`, on a temporary course, scores every kind of submission as intended.

The reference and the untouched release are submissions of their own; the wrong variants share
submissions (tests/packing.py): each variant's claims are read from its pack, on the test cells
the variant can affect, and every test cell no member can affect must keep its full points.
"""

from __future__ import annotations

import html as html_lib
import json
import re
import shutil
import time
from pathlib import Path
from typing import NamedTuple

import bypass
import nbformat
import pytest

from autograder.grading.selfcheck._selfreport import read_results

import nothing
from packing import pack
from support import (
    ASSIGNMENTS,
    ROOT,
    VENV_BIN,
    cells_seconds,
    jax_course_grade,
    make_course,
    read_scores,
    run,
    solution_sources,
    submit,
    test_points,
)
from variants import VARIANTS

pytestmark = pytest.mark.grading


class Graded(NamedTuple):
    assignment: str
    course: Path
    scores: dict[str, dict[str, float]]  # by submission
    packs: dict[str, dict[str, set[str]]]  # submission -> {variant: the test cells it can affect}
    by_jax_course: dict[str, dict[str, float]]  # the reference and the answers that do nothing, by `jax-course grade`

    def submission_of(self, variant: str) -> str:
        return next(student for student, members in self.packs.items() if variant in members)


def jax_course_folder(course: Path) -> Path:
    """The course beside `course` that `jax-course grade` grades."""
    return course.with_name(f"{course.name}-by-jax-course")


def grade_batch(assignment, folder) -> Graded:
    """Autograde the reference answers, the untouched release and every wrong variant (packed) in one batch with
    `nbgrader autograde`; the reference again, and the answers that do nothing, with `jax-course grade`."""
    course = make_course(folder, assignment)
    reference = solution_sources(assignment)
    submit(course, assignment, "reference", reference)
    # Both graders run the same test cells and verifier (the reference here, and the hostile catalogue, are
    # graded by both): the answers that do nothing are graded once, by `jax-course grade`, in a course of its
    # own, where its kernels run on one core each (a check whose verdict depends on the core count shows here).
    other = shutil.copytree(course, jax_course_folder(course))
    submit(course, assignment, "untouched", {})
    packs = {f"pack{n:02d}": members for n, members in enumerate(pack(assignment, VARIANTS[assignment]), 1)}
    for student, members in packs.items():
        answers = {cell: source for name in members for cell, source in VARIANTS[assignment][name]["answers"].items()}
        submit(course, assignment, student, {**reference, **answers})
    for kind in nothing.KINDS:
        submit(other, assignment, nothing_student(kind), nothing.answers(assignment, kind))
    start = time.perf_counter()
    run(VENV_BIN / "nbgrader", "autograde", assignment, "--force", cwd=course)
    seconds = time.perf_counter() - start
    jax_course_grade(other, assignment, "--workers", "1")
    slowest = max(packs, key=lambda student: cells_seconds(course, assignment, student))
    print(
        f"\nautograde {assignment}: {2 + len(packs)} submissions ({len(VARIANTS[assignment])} wrong variants "
        f"in {len(packs)}) in {seconds:.0f} s; slowest pack {slowest} ({', '.join(packs[slowest])}): "
        f"{cells_seconds(course, assignment, slowest):.0f} s in its cells"
    )
    return Graded(assignment, course, read_scores(course, assignment), packs, read_scores(other, assignment))


def nothing_student(kind: str) -> str:
    return "nothing-" + kind.replace(" ", "-")


def reference_solution_gets_full_marks(graded: Graded):
    assert graded.scores["reference"] == test_points(graded.assignment)
    assert graded.by_jax_course["reference"] == test_points(graded.assignment), "under jax-course grade"


def a_passing_test_cell_shows_no_value(graded: Graded):
    """In the reference, no test cell leaves a value (nbgrader would read a number as partial credit) or more
    than one printed line (a measured accuracy, say): no dump, no library's log."""
    nb = json.loads(
        (graded.course / "autograded" / "reference" / graded.assignment / f"{graded.assignment}.ipynb").read_text()
    )
    noisy = {}
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell["cell_type"] != "code" or not meta.get("grade") or meta.get("solution"):
            continue
        printed = "".join("".join(o.get("text", "")) for o in cell["outputs"] if o["output_type"] == "stream")
        values = [o["output_type"] for o in cell["outputs"] if o["output_type"] not in ("stream",)]
        if values or len(printed.strip().splitlines()) > 1:
            noisy[meta["grade_id"]] = values + printed.strip().splitlines()[:5]
    assert not noisy, f"passing test cells that show something: {noisy}"


def a_failure_shows_its_message_first_and_no_grader_code(graded: Graded):
    """Every failing test cell of every graded notebook, as a student would see it after Run All: the message
    on the first line, none of the grader's frames, and a CheckFailed in at most 15 lines."""
    wrong = []
    graded_folders = [
        *(graded.course / "autograded").iterdir(),
        *(jax_course_folder(graded.course) / "autograded").iterdir(),
    ]
    for folder in sorted(graded_folders):
        nb = json.loads((folder / graded.assignment / f"{graded.assignment}.ipynb").read_text())
        for cell in nb["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            for error in (o for o in cell.get("outputs", []) if o["output_type"] == "error"):
                shown = bypass.strip_ansi("\n".join(error["traceback"]))
                where = f"{folder.name}/{meta.get('grade_id')}"
                if not shown.startswith(f"{error['ename']}:") and error["ename"] != "KeyboardInterrupt":
                    wrong.append(f"{where}: starts {shown[:80]!r}")
                if "/autograder/" in shown:
                    wrong.append(f"{where}: shows the grader's code")
                if error["ename"] == "CheckFailed" and len(shown.splitlines()) > 15:
                    wrong.append(f"{where}: {len(shown.splitlines())} lines")
    assert not wrong, "\n".join(wrong)


def untouched_exercise_gets_zero(graded: Graded):
    assert graded.scores["untouched"] == {name: 0.0 for name in test_points(graded.assignment)}


def an_answer_that_does_nothing_scores_nothing(graded: Graded):
    """Every test cell that reads a function doing nothing scores 0 (tests/nothing.py)."""
    points, wrong = test_points(graded.assignment), []
    for kind in nothing.KINDS:
        loses = nothing.losing_tests(graded.assignment, kind)
        assert loses, f"{kind}: no test reads an answer"
        expected = {test: 0.0 if test in loses else points[test] for test in points}
        got = graded.by_jax_course[nothing_student(kind)]
        kept = {test: got.get(test) for test in expected if got.get(test) != expected[test]}
        if kept:
            wrong.append(f"{kind}: {kept}")
    assert not wrong, "answers that do nothing kept points:\n" + "\n".join(wrong)


def each_wrong_variant_loses_exactly_its_points(graded: Graded):
    points = test_points(graded.assignment)
    wrong = []
    for student, members in graded.packs.items():
        scores = graded.scores[student]
        for name, affected in members.items():
            loses = VARIANTS[graded.assignment][name]["loses"]
            expected = {test: 0.0 if test in loses else points[test] for test in sorted(affected)}
            got = {test: scores[test] for test in sorted(affected)}
            if got != expected:
                wrong.append(f"variant {name} (in {student}): {got} != expected {expected}")
        unaffected = set(points) - set().union(*members.values())
        lost = sorted(test for test in unaffected if scores[test] != points[test])
        if lost:
            wrong.append(f"{student} ({', '.join(members)}) lost points on tests no member can affect: {lost}")
    assert not wrong, "\n".join(wrong)


BYPASS_ARTIFACTS = ROOT / "test-artifacts" / "bypass"

# Timed, structural and statistical checks: each needs wrong variants that prove it can fail.
SPECIAL_CHECKS = (
    "check_speedup",
    "check_jaxpr_constant",
    "check_primitives",
    "check_pure",
    "check_jitted",
    "check_compile_count",
    "check_largest_intermediate",
    "check_no_key_reuse",
    "check_reproducible",
    "check_within_sigmas",
    "check_independent_rows",
    "check_timing_protocol",
    "check_saved_residuals",
    "check_hottest_op",
    "check_pallas_kernel",
    "check_collectives",
    "check_memory_per_device",
    "check_not_replicated",
    "check_no_program_built",
)


def every_timed_or_structural_problem_has_two_variants_that_fail_it(graded: Graded):
    assignment = graded.assignment
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    special = {
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade") and any(check in c.source for check in SPECIAL_CHECKS)
    }
    assert special, "each assignment has timed or structural problems"
    for test in special:
        failing = [name for name, v in VARIANTS[assignment].items() if test in v["loses"]]
        assert len(failing) >= 2, f"{test} is failed only by {failing}"


def feedback_keeps_messages_and_hides_test_code(graded: Graded):
    assignment, course = graded.assignment, graded.course
    run(VENV_BIN / "nbgrader", "generate_feedback", assignment, "--force", cwd=course)
    pages = {
        student: (course / "feedback" / student / assignment / f"{assignment}.html").read_text()
        for student in ["reference", "untouched", *graded.packs]
    }
    source = nbformat.read(course / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    hidden, visible = set(), set()
    for cell in source.cells:
        before, _, rest = cell.source.partition("### BEGIN HIDDEN TESTS")
        inside, _, after = rest.partition("### END HIDDEN TESTS")
        hidden.update(line.strip() for line in inside.splitlines() if len(line.strip()) > 20)
        visible.update(line.strip() for line in (before + after).splitlines())
    hidden = {line for line in hidden if not any(line in shown for shown in visible)}  # seen anyway: no leak
    assert hidden
    for student, html in pages.items():
        text = html_lib.unescape(re.sub(r"<[^>]+>", "", html))
        # A line the student wrote in an answer is theirs to see, even where a hidden test has it too.
        written = "\n".join(
            source
            for name in graded.packs.get(student, {})
            for source in VARIANTS[assignment][name]["answers"].values()
        )
        leaked = [line for line in hidden if line in text and line not in written]
        assert not leaked, f"{student}'s feedback shows hidden test code: {leaked[:3]}"
        assert "BEGIN HIDDEN TESTS" not in text
    # A failure inside the hidden tests still tells the student what went wrong (read in the
    # section of the test the variant fails: its pack's other members fail other tests).
    caught_hidden = [
        (name, test)
        for (where_set, name, test), where in bypass.table_caught().items()
        if where_set == assignment and where == "hidden"
    ]
    assert caught_hidden, f"{assignment}: no wrong variant is caught only by the hidden tests"
    for name, test in caught_hidden:
        shown = feedback_sections(pages[graded.submission_of(name)])[test]
        assert re.search(r"\w+(Error|Failed|Exception): \S", shown), f"{name}/{test}: the feedback names no failure"
        if name.endswith("_hardcoded"):
            assert re.search(r"on (a )?hidden input", shown), f"{name}/{test}: the message does not say it is hidden"


def feedback_sections(page: str) -> dict[str, str]:
    """A feedback page's HTML from each graded cell's anchor (`<a name="grade_id">`) to the next anchor."""
    parts = re.split(r'<a name="([^"]+)"></a>', page)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def bypasses_lose_the_points_of_the_skill_they_skip(graded: Graded):
    """Record this set's rows of the bypass table (tests/bypass.py), printed at the end of the run."""
    assignment, scores = graded.assignment, graded.scores
    caught = {
        (assignment, name): all(scores[graded.submission_of(name)][test] == 0.0 for test in variant["loses"])
        for name, variant in VARIANTS[assignment].items()
        if "bypass" in variant
    }
    caught[assignment, bypass.NOTHING] = all(
        graded.by_jax_course[nothing_student(kind)][test] == 0.0
        for kind in nothing.KINDS
        for test in nothing.losing_tests(assignment, kind)
    )
    table = [row for row in bypass.rows(caught) if row[0] == assignment]
    BYPASS_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (BYPASS_ARTIFACTS / f"{assignment}.md").write_text(bypass.markdown(table).split("\n", 2)[2])
    assert all(caught.values()), f"bypasses that kept points: {[n for (_, n), ok in caught.items() if not ok]}"


def variants_are_caught_where_the_table_says(graded: Graded):
    """Record, for each wrong variant and test it fails, whether a visible test fails it; compare with the
    variants table (docs/guide/tables.md)."""
    assignment, course = graded.assignment, graded.course
    seen = {}
    for name, variant in VARIANTS[assignment].items():
        where = bypass.where_caught(course, assignment, graded.submission_of(name))
        seen[name] = {test: where.get(test, "no error shown") for test in sorted(variant["loses"])}
    bypass.CAUGHT_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (bypass.CAUGHT_ARTIFACTS / f"{assignment}.json").write_text(json.dumps(seen, indent=1) + "\n")
    table = bypass.table_caught()
    differ = [
        f"{name}/{test}: {where} (the table: {table.get((assignment, name, test), 'no row')})"
        for name, tests in seen.items()
        for test, where in tests.items()
        if table.get((assignment, name, test)) != where
    ]
    page = bypass.TABLES.relative_to(ROOT)
    assert not differ, f"caught elsewhere than {page} says; run `python tests/bypass.py`:\n" + "\n".join(differ)


def each_failure_names_its_cause(graded: Graded):
    """A variant's `says`: the words each test it loses must show, in the graded notebook and in the self-check's
    report of that notebook (case aside). A list holds for every test in `loses`; a dict names them per test."""
    assignment, course, wrong = graded.assignment, graded.course, []
    for name, variant in VARIANTS[assignment].items():
        says = variant.get("says")
        if says is None:
            continue
        student = graded.submission_of(name)
        nb = json.loads((course / "autograded" / student / assignment / f"{assignment}.ipynb").read_text())
        shown = bypass.failures_shown(nb)
        report = {r.test: r.message for r in read_results(nb, graded.scores[student])}
        wanted = says if isinstance(says, dict) else dict.fromkeys(variant["loses"], says)
        for test, words in wanted.items():
            for where, text in (("notebook", shown.get(test, "")), ("self-check", report.get(test, ""))):
                missing = [word for word in words if word.lower() not in text.lower()]
                if missing:
                    wrong.append(f"{name}/{test}, in the {where}: no {missing} in {text[:600]!r}")
    assert not wrong, "failures that do not name their cause:\n" + "\n".join(wrong)


# One test per assignment, so that its batch (the slow part) is graded once, whichever
# pytest-xdist worker runs it; each claim about the batch is a subtest of its own.
CLAIMS = [
    reference_solution_gets_full_marks,
    a_passing_test_cell_shows_no_value,
    a_failure_shows_its_message_first_and_no_grader_code,
    untouched_exercise_gets_zero,
    an_answer_that_does_nothing_scores_nothing,
    each_wrong_variant_loses_exactly_its_points,
    every_timed_or_structural_problem_has_two_variants_that_fail_it,
    feedback_keeps_messages_and_hides_test_code,
    bypasses_lose_the_points_of_the_skill_they_skip,
    variants_are_caught_where_the_table_says,
    each_failure_names_its_cause,
]


# Slowest (latest) assignments first, so no worker is left grading one alone at the end.
@pytest.mark.parametrize("assignment", sorted(ASSIGNMENTS, reverse=True))
def test_autograde(assignment, tmp_path, subtests):
    graded = grade_batch(assignment, tmp_path)
    for claim in CLAIMS:
        with subtests.test(msg=claim.__name__):
            claim(graded)


def test_parallel_assignment_scores_full_marks_on_one_device(tmp_path, monkeypatch):
    """Hidden tests run with 8 simulated devices above; a single-GPU or CPU-only kernel passes too.

    And a mean off by the device count is still seen there: the test runs the per-device function
    as 8 simulated devices under `jax.vmap`, whatever devices the kernel has.
    """
    assignment = "08_parallel"
    course = make_course(tmp_path, assignment)
    reference = solution_sources(assignment)
    submit(course, assignment, "reference", reference)
    submit(course, assignment, "psum", {**reference, **VARIANTS[assignment]["pmap_psum_not_pmean"]["answers"]})
    monkeypatch.setenv("JAX_NUM_CPU_DEVICES", "1")
    run(VENV_BIN / "nbgrader", "autograde", assignment, "--force", cwd=course)
    scores, points = read_scores(course, assignment), test_points(assignment)
    assert scores["reference"] == points
    assert scores["psum"] == {**points, "test_pmap": 0.0}
