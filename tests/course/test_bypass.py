"""The README's bypass table is the one variants.py and the exercise sets give (tests/bypass.py)."""

from __future__ import annotations

import bypass
import pytest

from support import ROOT

pytestmark = pytest.mark.unit


def test_the_readme_bypass_table_is_current():
    found = bypass.README_BLOCK.search((ROOT / "README.md").read_text())
    assert found, "README.md has no <!-- bypass table --> block"
    assert found[0].split("\n", 1)[1].rsplit("\n", 1)[0] + "\n" == bypass.markdown(bypass.rows()), (
        "stale: run `python tests/bypass.py`"
    )


def test_every_problem_of_every_set_has_a_row():
    table = bypass.rows()
    for assignment in ("01_arrays", "09_capstone"):
        assert {row[1] for row in table if row[0] == assignment} == {h for h, _ in bypass.problems(assignment)}
