"""A passing test cell says so, in one line: which test and its points (autograder/_passes.py)."""

from __future__ import annotations

import json

import pytest
from IPython.core.interactiveshell import InteractiveShell

from autograder import _passes
from autograder._config import PACKAGE_REFERENCES

from support import ASSIGNMENTS

pytestmark = pytest.mark.unit


def test_every_test_cell_of_every_set_is_known_as_released_and_as_graded():
    for assignment in ASSIGNMENTS:
        tests = json.loads((PACKAGE_REFERENCES / assignment / "tests.json").read_text())
        cells = json.loads((PACKAGE_REFERENCES / assignment / _passes.PASSES_FILE).read_text())
        assert set(cells) == set(tests), assignment
        for grade_id, cell in cells.items():
            points = cell["points"]
            worth = f"{points:g} point{'' if points == 1 else 's'}"
            assert _passes.line(cell["visible"]) == f"✓ {grade_id} passed ({worth} once the hidden tests pass too)"
            if tests[grade_id] != cell["visible"]:  # hidden tests: the graded source is the whole
                assert _passes.line(tests[grade_id]) == f"✓ {grade_id} passed ({worth})"


def test_any_other_cell_says_nothing():
    assert _passes.line("x = 1") is None
    assert _passes.line("") is None


def test_a_kernel_prints_the_line_after_a_test_cell_that_passed_and_not_after_one_that_failed(monkeypatch, capsys):
    monkeypatch.setattr(_passes, "_known", lambda: {"assert ok": ("test_mine", 2.0, True)})
    shell = InteractiveShell()
    _passes.say_passes(shell)
    _passes.say_passes(shell)  # once per shell
    shell.run_cell("ok = True")
    shell.run_cell("assert ok")
    assert capsys.readouterr().out.splitlines() == ["✓ test_mine passed (2 points)"]
    shell.run_cell("ok = False")
    shell.run_cell("assert ok")
    assert "passed" not in capsys.readouterr().out
