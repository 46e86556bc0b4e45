"""Speed is measured against the package's own baselines, whatever the notebook did to its names."""

from __future__ import annotations

import ast
import inspect

import jax
import jax.numpy as jnp
import nbformat
import pytest

import autograder as ag
from autograder.checks import _thresholds

from support import ANY_VALUE, ASSIGNMENTS, ROOT

pytestmark = pytest.mark.unit

X = jnp.linspace(0.1, 0.9, 2000)


def _fast(x):
    return x * 2.0


def test_every_timed_problem_has_a_baseline():
    assert set(ag.baselines.TIMED) == set(_thresholds.load_thresholds()["cpu"]["speedup"])


def _defined(source: str) -> dict[str, str]:
    """Each function a cell defines, as a normalised syntax tree (no docstrings, no comments)."""
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = ast.dump(node, include_attributes=False)
    return found


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_read_only_copies_students_see_are_the_package_s_code(assignment):
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    shown = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("locked") and not meta.get("grade"):
            shown.update(_defined(cell.source))
    # The capstone's naive step uses the notebook's loss_fn, the course's own copy of it here.
    compared = [name for name in ag.baselines.__all__ if name in shown and name != "train_step_naive"]
    for name in compared:
        assert shown[name] == _defined(inspect.getsource(getattr(ag.baselines, name)))[name], name
    timed_here = any(problem.startswith(assignment) for problem in ag.baselines.TIMED)
    assert bool(compared) == (timed_here and assignment != "09_capstone")


def test_a_baseline_the_notebook_wrapped_or_rebound_is_refused():
    timed = ag.baselines.timed("04_jit/logistic_speed")
    slower = lambda x: timed(timed(x))  # noqa: E731
    with pytest.raises(ag.CheckFailed, match="not the course's own"):
        ag.check_speedup(_fast, slower, (X,), "04_jit/logistic_speed", works=ANY_VALUE)
    jitted = jax.jit(lambda x: ag.baselines.logistic_map_eager(x, 3.2, 50))
    ag.check_speedup(jitted, timed, (X,), "04_jit/logistic_speed", works=ANY_VALUE)


def test_debugging_modes_a_notebook_turned_on_are_off_while_timing():
    seen = []

    def candidate(x):
        seen.append((jax.config.jax_debug_nans, jax.config.jax_disable_jit))
        return x * 2.0

    jax.config.update("jax_debug_nans", True)
    try:
        ag.measure_speedup(candidate, candidate, (X,), min_block_seconds=0.001, candidate_blocks=1, baseline_blocks=1)
    finally:
        jax.config.update("jax_debug_nans", False)
    assert seen and set(seen) == {(False, False)}


def test_the_recurrences_values_on_the_host_are_the_eager_loops():
    """What the timed length is compared with (a thousandth of the eager loop's cost): the same float32 values,
    but for the subnormal numbers XLA's CPU flushes to zero where NumPy keeps them."""
    for c1, c2 in [(0.3, -0.2), (-0.45, 0.45), (0.44, 0.01)]:
        eager = ag.baselines.recurrence_eager(1.0, 2.0, c1, c2, 300)
        host = ag.baselines.recurrence_on_host(1.0, 2.0, c1, c2, 300)
        assert host.dtype == eager.dtype
        ag.check_close(eager, host, what="the recurrence on the host", atol=1e-30, rtol=0)
