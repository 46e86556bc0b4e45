"""The wrong variants (tests/variants/) reach every graded test cell."""

from __future__ import annotations

import nbformat
import pytest

from autograder._verified import problems

from support import ASSIGNMENTS, ROOT
from variants import VARIANTS

pytestmark = pytest.mark.unit


def _test_cells(assignment: str) -> set[str]:
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    graded = [c.metadata.get("nbgrader", {}) for c in nb.cells]
    return {meta["grade_id"] for meta in graded if meta.get("grade") and not meta.get("solution")}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_test_cell_is_lost_by_some_wrong_variant(assignment):
    """A test cell no wrong answer fails is a check no one has seen fail."""
    lost = set().union(*(variant["loses"] for variant in VARIANTS[assignment].values()))
    assert _test_cells(assignment) - lost == set()


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_what_a_variant_says_its_failure_names_is_well_formed(assignment):
    """Every wrong variant says what its failure must name: a list of words for every test it loses, or such
    lists by test; the autograde test (each_failure_names_its_cause) holds the graded notebook and the
    self-check to it."""
    wrong = []
    for name, variant in VARIANTS[assignment].items():
        says = variant.get("says")
        if says is None:
            if variant["loses"]:
                wrong.append(f"{name}: says nothing of what its failure must name")
            continue
        by_test = says if isinstance(says, dict) else dict.fromkeys(variant["loses"], says)
        if not by_test or set(by_test) - variant["loses"]:
            wrong.append(f"{name}: says words for {sorted(by_test)}, but loses {sorted(variant['loses'])}")
        for test, words in by_test.items():
            if isinstance(words, str) or not words or not all(isinstance(w, str) and w.strip() for w in words):
                wrong.append(f"{name}/{test}: says {words!r}, not a list of words")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_a_test_lost_only_in_the_verifier_is_one_the_verifier_decides(assignment):
    verified, wrong = set(problems(assignment)), {}
    for name, variant in VARIANTS[assignment].items():
        if stray := variant.get("lost_in_the_verifier", set()) - (variant["loses"] & verified):
            wrong[name] = sorted(stray)
    assert not wrong, f"lost_in_the_verifier names tests the variant keeps, or that the kernel alone decides: {wrong}"
