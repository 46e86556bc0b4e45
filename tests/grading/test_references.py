"""`jax-course references` records what the solutions produce, and the committed references match it."""

from __future__ import annotations

import ast
import json
import shutil

import numpy as np
import pytest

import autograder as ag
from autograder._config import PACKAGE_REFERENCES
from autograder._passes import PASSES_FILE
from autograder._verified import problems
from autograder.grading.references._references import TESTS_FILE, all_tests

from support import ASSIGNMENTS, ROOT, VENV_BIN, run, solution_sources

# The set `jax-course references` is run on here: every other set's committed references are checked
# against its solutions by course/test_autograde.py, where the reference answers must get full marks
# under the real nbgrader (the same comparison, same seed), so no set's solutions run twice.
RECORDED_HERE = "03_tracing"


def _rewritten(path, change) -> bytes:
    """The reference file at `path` with `change` applied to each of its float leaves, and its new bytes."""
    with np.load(path) as data:
        arrays = {key: data[key] for key in data.files}
    for key, values in arrays.items():
        if key != "__meta__" and np.issubdtype(values.dtype, np.floating):
            arrays[key] = change(values)
    np.savez(path, **arrays)
    return path.read_bytes()


def _of_floats(path) -> bool:
    with np.load(path) as data:
        return np.issubdtype(data["leaf0"].dtype, np.floating)


@pytest.mark.grading
def test_the_references_command_records_what_the_committed_files_hold(tmp_path):
    """Re-record one set's references from its solutions over the committed files, and compare with them: a value
    its check cannot tell from the stored one keeps the stored file byte for byte (a re-recording on another machine
    changes no file for rounding in the last bits); one that changed is written, one no longer recorded removed."""
    stored = shutil.copytree(PACKAGE_REFERENCES / RECORDED_HERE, tmp_path / RECORDED_HERE)
    committed = sorted(p.name for p in stored.glob("*.npz"))
    nudged, changed = [name for name in committed if _of_floats(stored / name)][:2]
    kept = _rewritten(stored / nudged, lambda values: np.nextafter(values, np.inf))
    wrong = _rewritten(stored / changed, lambda values: values + 1 + np.abs(values))  # off by more than 1
    (stored / "no_longer_recorded.npz").write_bytes(kept)
    run(VENV_BIN / "jax-course", "references", "--into", str(tmp_path), RECORDED_HERE, cwd=ROOT)
    assert committed == sorted(p.name for p in (tmp_path / RECORDED_HERE).glob("*.npz"))
    for name in committed:
        problem = f"{RECORDED_HERE}/{name[:-4]}"
        old, _, old_meta = ag.load_reference(problem, PACKAGE_REFERENCES)
        new, _, new_meta = ag.load_reference(problem, tmp_path)
        assert old_meta == new_meta, problem
        ag.check_close(new, old, what=problem)
        recorded = (stored / name).read_bytes()
        if name == changed:
            assert recorded != wrong, problem
        elif name == nudged:
            assert recorded == kept, f"{problem}: its last bits' rounding was recorded anew"
        else:  # rewritten only if the solution no longer computes what is committed
            assert recorded == (PACKAGE_REFERENCES / RECORDED_HERE / name).read_bytes(), (
                f"{problem}: run `make references`"
            )


def _names_in_tests(assignment: str) -> tuple[set[str], set[str]]:
    """The problem names the solution's test cells pass to `check_reference` and the verifier compares, and every
    `"set/name"` string in them."""
    compared, mentioned = set(), set()
    for source in all_tests(ROOT / "solutions" / assignment / f"{assignment}.ipynb").values():
        for node in ast.walk(ast.parse(source)):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value.startswith(f"{assignment}/")
            ):
                mentioned.add(node.value.partition("/")[2])
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "check_reference":
                problem = node.args[1]
                # An id held in a name (a helper's argument) is a string elsewhere: `works=` or `mentioned`.
                if isinstance(problem, ast.Constant) and isinstance(problem.value, str):
                    compared.add(problem.value.partition("/")[2])
            if isinstance(node, ast.keyword) and node.arg == "works":  # a property check's values (checks/_works.py)
                compared |= {
                    n.value.partition("/")[2]
                    for n in ast.walk(node.value)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.startswith(f"{assignment}/")
                }
    # And what the verifier compares (autograder/verified/), which the solution records too.
    for problem in problems(assignment).values():
        verified = {call.reference.partition("/")[2] for call in problem.calls if call.reference}
        compared, mentioned = compared | verified, mentioned | verified
    return compared, mentioned


@pytest.mark.unit
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_compared_reference_is_committed_and_none_is_left_over(assignment):
    compared, mentioned = _names_in_tests(assignment)
    committed = {p.stem for p in (PACKAGE_REFERENCES / assignment).glob("*.npz")}
    assert compared <= committed, f"{assignment}: missing {sorted(compared - committed)}: run `make references`"
    # A speed check records the size of the solution's program as `<problem>_program`.
    left_over = {name for name in committed if name.removesuffix("_program") not in mentioned}
    assert not left_over, f"{assignment}: no test uses {sorted(left_over)}: delete them"


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
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["03_tracing", PASSES_FILE, TESTS_FILE]
    for name in (TESTS_FILE, PASSES_FILE):  # and what a passing test cell says of itself (autograder/_passes.py)
        assert (tmp_path / "03_tracing" / name).read_text() == (PACKAGE_REFERENCES / "03_tracing" / name).read_text()
