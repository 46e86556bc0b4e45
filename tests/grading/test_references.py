"""`jax-course references` records what the solutions produce, and the committed references match it."""

from __future__ import annotations

import json

import pytest

import autograder as ag
from autograder._config import PACKAGE_REFERENCES
from autograder.grading._references import TESTS_FILE, all_tests

from support import ASSIGNMENTS, ROOT, VENV_BIN, run, solution_sources


@pytest.mark.grading
def test_stored_references_match_the_solutions(tmp_path):
    """Re-record every reference from solutions/ and compare with the committed files."""
    run(VENV_BIN / "jax-course", "references", "--into", str(tmp_path), cwd=ROOT)
    for assignment in ASSIGNMENTS:
        committed = sorted(p.name for p in (PACKAGE_REFERENCES / assignment).glob("*.npz"))
        fresh = sorted(p.name for p in (tmp_path / assignment).glob("*.npz"))
        assert committed == fresh, f"{assignment}: run `make references`"
        for name in committed:
            problem = f"{assignment}/{name[:-4]}"
            old, _, old_meta = ag.load_reference(problem, PACKAGE_REFERENCES)
            new, _, new_meta = ag.load_reference(problem, tmp_path)
            assert old_meta == new_meta, problem
            ag.check_close(new, old, what=problem)


@pytest.mark.unit
def test_the_packaged_tests_are_the_solutions_test_cells_and_no_solution():
    for assignment in ASSIGNMENTS:
        stored = json.loads((PACKAGE_REFERENCES / assignment / TESTS_FILE).read_text())
        assert stored == all_tests(ROOT / "solutions" / assignment / f"{assignment}.ipynb"), (
            f"{assignment}/{TESTS_FILE} is stale: run `make exercises`"
        )
        text = "\n".join(stored.values())
        assert "HIDDEN TESTS" not in text and "SOLUTION" not in text
        # Test cells only: no solution cell, whose answer a test may repeat a line of (a recipe it re-derives).
        assert not set(stored) & set(solution_sources(assignment)), assignment


@pytest.mark.unit
def test_tests_only_rewrites_the_packaged_tests_without_running_a_notebook(tmp_path):
    run(VENV_BIN / "jax-course", "references", "--tests-only", "--into", str(tmp_path), "03_tracing", cwd=ROOT)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["03_tracing", TESTS_FILE]
    assert (tmp_path / "03_tracing" / TESTS_FILE).read_text() == (
        PACKAGE_REFERENCES / "03_tracing" / TESTS_FILE
    ).read_text()
