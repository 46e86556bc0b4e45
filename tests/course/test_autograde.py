"""Every set, proven by `jax-course prove`'s engine: the real `nbgrader autograde` and `jax-course grade` score
every kind of submission as intended.

The reference and the untouched release are submissions of their own; the declared answers share submissions
(autograder/grading/proving/_packing.py): each one's claims are read from its pack, on the test cells it can
affect, and every test cell no member can affect must keep its full points.
"""

from __future__ import annotations

import time

import pytest

from autograder.grading.proving import _tables
from autograder.grading.proving._prove import Proof, prove

from support import ASSIGNMENTS, ROOT, VENV_BIN, make_course, read_scores, run, solution_sources, submit, test_points
from variants import VARIANTS

pytestmark = pytest.mark.grading


BYPASS_ARTIFACTS = ROOT / "test-artifacts" / "bypass"


def the_set_is_sound(proof: Proof):
    """The reference gets full marks in both pipelines, the untouched release and the answers that do nothing
    score nothing, each wrong variant loses exactly its points and names its cause, each alternative keeps full
    marks, messages read well, the feedback keeps its secrets, and every cited section and verifier entry exists."""
    unsound = [f"{test}: {why}" for test, reasons in proof.findings.unsound.items() for why in reasons]
    assert not unsound, "\n".join(unsound)


def every_test_is_proven_by_a_wrong_answer(proof: Proof):
    """Every test is lost by a declared wrong answer, every timed or structural one by two, and some wrong
    answer is caught by a hidden test only (so a hidden failure's feedback is proven too)."""
    assert not proof.findings.gaps, "\n".join(proof.findings.gaps)


def bypasses_lose_the_points_of_the_skill_they_skip(proof: Proof):
    """Record this set's rows of the bypass table, printed at the end of the run."""
    exercise = proof.exercise
    table = _tables.bypass_rows(exercise, VARIANTS[exercise.name], proof.bypassed)
    BYPASS_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (BYPASS_ARTIFACTS / f"{exercise.name}.md").write_text(_tables.markdown([], table))
    assert all(proof.bypassed.values()), (
        f"bypasses that kept points: {[n for n, ok in proof.bypassed.items() if not ok]}"
    )


def the_tables_say_what_was_seen(proof: Proof):
    """docs/guide/tables.md's rows of this set are what this proof saw (`jax-course prove SET` writes them)."""
    exercise = proof.exercise
    seen = _tables.variant_rows(exercise, VARIANTS[exercise.name], proof.caught)
    written = [row for row in _tables.written(ROOT)[1] if row[0] == exercise.name]
    differ = [f"{seen_row} (the table: {row})" for seen_row, row in zip(seen, written, strict=False) if seen_row != row]
    assert len(seen) == len(written) and not differ, (
        f"caught elsewhere than {_tables.PAGE} says; run `jax-course prove {exercise.name}`:\n" + "\n".join(differ)
    )


# One test per assignment, so that its batch (the slow part) is graded once, whichever
# pytest-xdist worker runs it; each claim about the batch is a subtest of its own.
CLAIMS = [
    the_set_is_sound,
    every_test_is_proven_by_a_wrong_answer,
    bypasses_lose_the_points_of_the_skill_they_skip,
    the_tables_say_what_was_seen,
]


# Slowest (latest) assignments first, so no worker is left grading one alone at the end.
@pytest.mark.parametrize("assignment", sorted(ASSIGNMENTS, reverse=True))
def test_autograde(assignment, tmp_path, subtests):
    """`jax-course prove`'s engine, as the command runs with --once --no-write: each answer graded once."""
    start = time.perf_counter()
    proof = prove(ROOT, assignment, once=True, workers=1, scratch=tmp_path)
    print(
        f"\nprove {assignment}: {len(proof.packs)} packs of {len(VARIANTS[assignment])} declared answers, "
        f"{time.perf_counter() - start:.0f} s"
    )
    for claim in CLAIMS:
        with subtests.test(msg=claim.__name__):
            claim(proof)


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
