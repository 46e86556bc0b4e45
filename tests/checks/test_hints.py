"""Hints named by key: a test cell shows no hint's words, a failure shows them all, and every key is the package's."""

from __future__ import annotations

import ast
import json
import re
import tomllib
from pathlib import Path

import pytest

import autograder as ag
from autograder.checks._hints import HINTS_FILE, UnknownHint, assignments, hint_text, is_key, stored

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
HIDDEN = "### BEGIN HIDDEN TESTS"


def _code_cells(pattern: str):
    for path in sorted(ROOT.glob(pattern)):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                yield path, cell.get("metadata", {}).get("nbgrader", {}), "".join(cell["source"])


def _strings(source: str) -> list[str]:
    """The source's string literals as Python reads them: a hint split over lines is one string here."""
    found = [source]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            found.append("".join(v.value for v in node.values if isinstance(v, ast.Constant)))
    return found


def _visible_test_sources():
    """Every test cell as a learner reads it: the solutions' cells above their hidden tests, and the exercises'."""
    for path, grading, source in (*_code_cells("solutions/*/*.ipynb"), *_code_cells("exercises/*/*.ipynb")):
        if grading.get("grade") and not grading.get("solution"):
            yield path, source.partition(HIDDEN)[0]


def _keys_used() -> dict[str, set[str]]:
    used: dict[str, set[str]] = {}
    for path, _, source in _code_cells("solutions/*/*.ipynb"):
        for text in _strings(source):
            if is_key(text):
                used.setdefault(text, set()).add(path.parent.name)
    return used


def test_every_key_a_solution_names_is_stored_and_every_stored_hint_is_named():
    used = _keys_used()
    assert used, "no test cell names a hint by key"
    unknown = []
    for key in used:
        try:
            hint_text(key)
        except UnknownHint as error:
            unknown.append(f"{key}: {error}")
    assert not unknown, "test cells name hints the package does not have:\n" + "\n".join(unknown)
    stored_keys = {f"@{a}/{name}" for a in assignments() for name in stored(a)}
    assert not stored_keys - set(used), f"stored hints no test cell names: {sorted(stored_keys - set(used))}"
    # A set's hints are its own: a cell names only its set's file, which the set's own tests then cover.
    assert all(places == {key[1:].partition("/")[0]} for key, places in used.items())


def test_no_test_cell_a_learner_reads_writes_out_a_stored_hint():
    # A template's words between its fields: each long enough not to be an ordinary phrase of a test.
    phrases = {
        f"@{a}/{name}": [part for part in re.split(r"\{[^{}]*\}", text) if len(part) >= 20]
        for a in assignments()
        for name, text in stored(a).items()
    }
    shown = []
    for path, source in _visible_test_sources():
        strings = _strings(source)
        for key, parts in phrases.items():
            if any(part in string for part in parts for string in strings):
                shown.append(f"{path.relative_to(ROOT)}: {key}")
    assert not shown, "test cells write out a hint a failure alone should show:\n" + "\n".join(shown)


def test_a_visible_test_cell_gives_its_hints_by_key():
    # A new hint written out in a test cell, which no stored text could match yet.
    written = []
    for path, source in _visible_test_sources():
        tree = ast.parse(source)
        assigned = {
            target.id: node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "hint":
                value = assigned.get(node.value.id, node.value) if isinstance(node.value, ast.Name) else node.value
                if isinstance(value, ast.JoinedStr) or (isinstance(value, ast.Constant) and not is_key(value.value)):
                    written.append(f"{path.relative_to(ROOT)}: {ast.unparse(value)[:80]}")
    where = "hints written out where a learner reads them (store them in autograder/checks/hints.toml)"
    assert not written, where + ":\n" + "\n".join(written)


def test_a_key_shows_its_stored_words_in_a_check_and_in_check_failed():
    text = stored("06_grad")["grads.jax_grad_argnums"]
    assert hint_text("@06_grad/grads.jax_grad_argnums") == text
    with pytest.raises(ag.CheckFailed) as failure:
        ag.check_close(1.0, 2.0, hint="@06_grad/grads.jax_grad_argnums")
    assert f"Try: {text}" in str(failure.value) and "@06_grad" not in str(failure.value)
    error = ag.CheckFailed("wrong", hint="@06_grad/grads.jax_grad_argnums")
    assert error.hint == text and str(error) == f"wrong\nTry: {text}"


def test_a_template_is_filled_with_the_cells_values():
    key = "@16_scaling/fsdp_structure.split_along_largest"
    filled = hint_text((key, {"devices": 8, "shape": [64, 256], "spec": (None, "data")}))
    assert "the axis size (8) divides: for a [64, 256] array, P(None, 'data')." in filled
    with pytest.raises(UnknownHint, match="named by a key"):
        hint_text(("split each array", {"devices": 8}))


def test_a_hint_written_out_is_shown_as_written():
    assert hint_text(None) is None
    for text in ("decorate it with @jax.jit", "@jax.jit on the step, not inside it", "an @ in the middle/of it"):
        assert hint_text(text) == text


def test_a_key_the_package_does_not_have_is_the_authors_error_when_the_cell_runs():
    with pytest.raises(UnknownHint, match=r"no hint 'grads.nope' of set '06_grad' in autograder/checks/hints.toml"):
        ag.check_close(1.0, 1.0, hint="@06_grad/grads.nope")  # even where the check passes
    with pytest.raises(UnknownHint, match="no hints of set '99_none'"):
        ag.CheckFailed("wrong", hint="@99_none/grads.x")


def test_the_hints_ship_with_the_package_as_tables_of_strings_one_a_set():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert HINTS_FILE.name in data["autograder.checks"]
    tables = tomllib.loads(HINTS_FILE.read_text(encoding="utf-8"))
    for assignment, tests in tables.items():
        assert (ROOT / "solutions" / assignment).is_dir(), f"hints of {assignment}, which is no exercise set"
        assert all(isinstance(text, str) for hints in tests.values() for text in hints.values())
