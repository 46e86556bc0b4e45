"""The wrong variants (tests/variants/) reach every graded test cell."""

from __future__ import annotations

import nbformat
import pytest

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
