"""The real `nbgrader autograde`, on a temporary course, scores every kind of submission as intended."""

from __future__ import annotations

import html as html_lib
import json
import re
import time

import bypass
import nbformat
import pytest

from support import ASSIGNMENTS, ROOT, VENV_BIN, make_course, read_scores, run, solution_sources, submit, test_points
from variants import VARIANTS

pytestmark = pytest.mark.grading


def grade_batch(assignment, folder):
    """Autograde the reference answers, the untouched release and every wrong variant, in one batch."""
    course = make_course(folder, assignment)
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


def reference_solution_gets_full_marks(graded):
    assignment, _, scores = graded
    assert scores["reference"] == test_points(assignment)


def untouched_exercise_gets_zero(graded):
    assignment, _, scores = graded
    assert scores["untouched"] == {name: 0.0 for name in test_points(assignment)}


def each_wrong_variant_loses_exactly_its_points(graded):
    assignment, _, scores = graded
    points = test_points(assignment)
    for name, variant in VARIANTS[assignment].items():
        expected = {test: 0.0 if test in variant["loses"] else full for test, full in points.items()}
        assert scores[name] == expected, f"variant {name}"


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
)


def every_timed_or_structural_problem_has_two_variants_that_fail_it(graded):
    assignment, _, _ = graded
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


def feedback_keeps_messages_and_hides_test_code(graded):
    assignment, course, _ = graded
    run(VENV_BIN / "nbgrader", "generate_feedback", assignment, "--force", cwd=course)
    pages = {
        student: (course / "feedback" / student / assignment / f"{assignment}.html").read_text()
        for student in ["reference", "untouched", *VARIANTS[assignment]]
    }
    source = nbformat.read(course / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    hidden, visible = set(), set()
    for cell in source.cells:
        before, _, rest = cell.source.partition("### BEGIN HIDDEN TESTS")
        inside, _, after = rest.partition("### END HIDDEN TESTS")
        hidden.update(line.strip() for line in inside.splitlines() if len(line.strip()) > 20)
        visible.update(line.strip() for line in (before + after).splitlines())
    hidden -= visible  # a line the student can see anyway is no leak
    assert hidden
    for student, html in pages.items():
        text = html_lib.unescape(re.sub(r"<[^>]+>", "", html))
        leaked = [line for line in hidden if line in text]
        assert not leaked, f"{student}'s feedback shows hidden test code: {leaked[:3]}"
        assert "BEGIN HIDDEN TESTS" not in text
    # A failure inside the hidden tests still tells the student what went wrong.
    hardcoded = next(name for name in VARIANTS[assignment] if name.endswith("_hardcoded"))
    assert "CheckFailed: " in pages[hardcoded] and re.search(r"on (a )?hidden input", pages[hardcoded])


def bypasses_lose_the_points_of_the_skill_they_skip(graded):
    """Record this set's rows of the bypass table (tests/bypass.py), printed at the end of the run."""
    assignment, _, scores = graded
    caught = {
        (assignment, name): all(scores[name][test] == 0.0 for test in variant["loses"])
        for name, variant in VARIANTS[assignment].items()
        if "bypass" in variant
    }
    table = [row for row in bypass.rows(caught) if row[0] == assignment]
    BYPASS_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (BYPASS_ARTIFACTS / f"{assignment}.md").write_text(bypass.markdown(table).split("\n", 2)[2])
    assert all(caught.values()), f"bypasses that kept points: {[n for (_, n), ok in caught.items() if not ok]}"


_CELL_LINE = re.compile(r"Cell In\[\d+\], line (\d+)")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def where_caught(course, assignment: str, student: str) -> dict[str, str]:
    """For each test cell that failed: "visible" if a line above its hidden tests raised, else "hidden"."""
    nb = json.loads((course / "autograded" / student / assignment / f"{assignment}.ipynb").read_text())
    found = {}
    for cell in nb["cells"]:
        error = next((o for o in cell.get("outputs", []) if o["output_type"] == "error"), None)
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if error is None or not grade_id:
            continue
        lines = "".join(cell["source"]).splitlines()
        hidden_from = next((n for n, line in enumerate(lines, 1) if "BEGIN HIDDEN TESTS" in line), len(lines) + 1)
        raised = _CELL_LINE.search(_ANSI.sub("", "\n".join(error["traceback"])))
        found[grade_id] = "visible" if raised and int(raised[1]) < hidden_from else "hidden"
    return found


def variants_are_caught_where_the_readme_says(graded):
    """Record, for each wrong variant and test it fails, whether a visible test fails it; compare with the README."""
    assignment, course, _ = graded
    seen = {}
    for name, variant in VARIANTS[assignment].items():
        where = where_caught(course, assignment, name)
        seen[name] = {test: where.get(test, "no error shown") for test in sorted(variant["loses"])}
    bypass.CAUGHT_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (bypass.CAUGHT_ARTIFACTS / f"{assignment}.json").write_text(json.dumps(seen, indent=1) + "\n")
    readme = bypass.readme_caught()
    differ = [
        f"{name}/{test}: {where} (README: {readme.get((assignment, name, test), 'no row')})"
        for name, tests in seen.items()
        for test, where in tests.items()
        if readme.get((assignment, name, test)) != where
    ]
    assert not differ, "caught elsewhere than the README says; run `python tests/bypass.py`:\n" + "\n".join(differ)


# One test per assignment, so that its batch (the slow part) is graded once, whichever
# pytest-xdist worker runs it; each claim about the batch is a subtest of its own.
CLAIMS = [
    reference_solution_gets_full_marks,
    untouched_exercise_gets_zero,
    each_wrong_variant_loses_exactly_its_points,
    every_timed_or_structural_problem_has_two_variants_that_fail_it,
    feedback_keeps_messages_and_hides_test_code,
    bypasses_lose_the_points_of_the_skill_they_skip,
    variants_are_caught_where_the_readme_says,
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
