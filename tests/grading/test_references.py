"""`jax-course references` records what the solutions produce, and the committed references match it."""

from __future__ import annotations

import pytest

import autograder as ag
from autograder._config import PACKAGE_REFERENCES

from support import ASSIGNMENTS, ROOT, VENV_BIN, run

pytestmark = pytest.mark.grading


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
