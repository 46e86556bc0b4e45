"""What an error raised inside an answer means at the test that ran it (`_raises`, `raises/SET.toml`)."""

from __future__ import annotations

import json
import linecache
import re

import pytest

from autograder._config import PACKAGE_REFERENCES
from autograder.checks import _raises
from autograder.checks._diagnose import explained

from support import ASSIGNMENTS, headings

pytestmark = pytest.mark.unit

ENTRIES = [
    (assignment, test, index, entry)
    for (assignment, test), entries in _raises.entries().items()
    for index, entry in enumerate(entries)
]


@pytest.mark.parametrize("assignment, test, index, entry", ENTRIES, ids=lambda v: v if isinstance(v, str) else "")
def test_every_entry_names_a_test_of_the_course_and_says_what_to_try_and_reread(assignment, test, index, entry):
    assert assignment in ASSIGNMENTS
    assert test in json.loads((PACKAGE_REFERENCES / assignment / "tests.json").read_text()), f"{assignment}: {test}"
    assert {"raised", "cause", "try"} <= set(entry) <= _raises.KEYS, sorted(entry)
    re.compile(entry["raised"])
    assert entry["cause"].endswith(".") and entry["try"].endswith("."), entry
    if "section" in entry:
        lecture, _, heading = entry["section"].partition("#")
        assert lecture == assignment[:2] or lecture < assignment[:2], entry["section"]
        assert heading in headings(lecture), f"no heading {heading!r} in lecture {lecture}"
        assert "`" not in heading, "a heading with code in it has no anchor the site and JupyterLab agree on"


def _raised_in(monkeypatch, test_source: str, line: int, code: str) -> BaseException:
    """What `code` raises as line `line` of a notebook cell whose source is `test_source` (kept, as a kernel keeps
    its cells' sources in linecache)."""
    cell = "/tmp/ipykernel_1/test_cell.py"
    monkeypatch.setitem(linecache.cache, cell, (len(test_source), None, test_source.splitlines(True), cell))
    try:
        exec(compile("\n" * (line - 1) + code, cell, "exec"), {})
    except Exception as error:  # noqa: BLE001 - the error is what is under test
        return error
    raise AssertionError(f"{code} raised nothing")


def _test_source(assignment: str, test: str, graded: bool = False) -> str:
    if graded:
        return json.loads((PACKAGE_REFERENCES / assignment / "tests.json").read_text())[test]
    return json.loads((PACKAGE_REFERENCES / assignment / "passes.json").read_text())[test]["visible"]


@pytest.mark.parametrize("graded", [False, True], ids=["released", "graded"])
def test_an_error_in_a_test_cell_gets_that_test_s_words_and_section(graded, monkeypatch):
    source = _test_source("06_grad", "test_tree", graded)
    line = next(i for i, text in enumerate(source.splitlines(), 1) if text.startswith("value, grads ="))
    error = _raised_in(monkeypatch, source, line, "value, grads = {'W1': 1, 'b1': 2, 'W2': 3, 'b2': 4}")
    assert explained(error, error.__traceback__)
    said = str(error)
    assert said.startswith("too many values to unpack (expected 2)\n\nWhat it means: loss_and_grads returns"), said
    assert "Try: return the loss and its gradients from one pass: jax.value_and_grad(loss)" in said
    assert "Reread: course/06_grad.ipynb#value_and_grad-and-has_aux" in said


def test_an_error_no_entry_names_rereads_the_section_the_test_names_nearest_the_failing_line(monkeypatch):
    source = _test_source("06_grad", "test_nan")
    error = _raised_in(monkeypatch, source, 2, "{}['w']")  # the check of xlogx's values, on line 2
    assert explained(error, error.__traceback__)
    (note,) = error.__notes__
    assert "asks a dict (a pytree's node) for a key" in note
    assert "Reread: course/06_grad.ipynb#NaN-gradients-through-jnp.where" in note


def test_a_cell_that_is_no_test_of_the_course_gets_the_classic_words(monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", "06_grad.ipynb")
    error = _raised_in(monkeypatch, "x = 1\nvalue, grads = f()\n", 2, "value, grads = (1, 2, 3)")
    assert explained(error, error.__traceback__)
    said = str(error)
    assert "What it means: the code unpacks a different number of values" in said
    assert "Reread: course/06_grad.ipynb\n" in f"{said}\n"  # no section: the set's lecture


def test_the_first_entry_that_matches_wins_and_one_that_does_not_is_skipped():
    shown = ["AssertionError: the loss should fall at every step; it went [0.6 0.7]"]
    mistake = _raises.at_test("06_grad", "test_train", shown, "06#A training loop")
    assert mistake is not None and "p - lr * g" in mistake.hint and mistake.section() == "06#A training loop"
    assert _raises.at_test("06_grad", "test_train", ["KeyError: 'w'"], None) is None
    assert _raises.at_test("06_grad", "no_such_test", shown, None) is None
