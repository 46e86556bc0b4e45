"""Speed checks: ratios in one process, robust to a busy machine, bounded in time."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import jax
import jax.numpy as jnp
import nbformat
import numpy as np
import pytest

import autograder as ag
from autograder import _timing
from conftest import ASSIGNMENTS, ROOT


def selu(x, alpha=1.67, scale=1.05):
    return scale * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def selu_loop(x):
    """The naive answer: one Python iteration and several dispatches per element."""
    return jnp.stack([selu(x[i]) for i in range(x.shape[0])])


X = jnp.linspace(-2.0, 2.0, 600)


@pytest.fixture
def other_core_busy():
    """A busy loop on the other core for the length of one test, stopped by pid."""
    busy = subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 120\nwhile time.time() < end: pass"])
    try:
        yield busy.pid
    finally:
        busy.kill()
        busy.wait()


def test_jitted_answer_passes_and_python_loop_fails():
    ag.check_speedup(jax.jit(selu), selu_loop, (X,), "selu", required=5.0)
    with pytest.raises(ag.CheckFailed):
        ag.check_speedup(selu_loop, selu_loop, (X,), "selu", required=5.0)


def test_verdicts_hold_with_the_other_core_busy(other_core_busy):
    ag.check_speedup(jax.jit(selu), selu_loop, (X,), "selu", required=5.0)
    with pytest.raises(ag.CheckFailed):
        ag.check_speedup(selu_loop, selu_loop, (X,), "selu", required=5.0)


def test_failure_states_measured_and_required_ratio():
    with pytest.raises(ag.CheckFailed) as error:
        ag.check_speedup(selu_loop, selu_loop, (X,), "selu", what="my_selu", required=5.0, section="01#Broadcasting instead of Python loops")
    message = str(error.value)
    assert re.search(r"my_selu ran \d+\.\dx as fast as the baseline", message)
    assert "required: at least 5x" in message
    assert "course/01_arrays.ipynb#Broadcasting-instead-of-Python-loops" in message


def test_every_output_leaf_is_waited_for():
    a = jax.random.normal(jax.random.key(0), (700, 700))
    matmul = jax.jit(lambda a: a @ a @ a)
    cheap_first = jax.jit(lambda a: (a[0, 0], a @ a @ a))
    # Blocking on the first leaf alone would make this look many times faster.
    assert ag.measure_speedup(cheap_first, matmul, (a,)).ratio < 2.0


def test_remembering_results_gains_nothing():
    seen = {}

    def remembers(x):
        key = np.asarray(x).tobytes()
        if key not in seen:
            seen[key] = selu_loop(x)
        return seen[key]

    with pytest.raises(ag.CheckFailed, match="remembering earlier results does not help"):
        ag.check_speedup(remembers, selu_loop, (X,), "selu", required=5.0)
    # Two warm-up calls and nine blocks of at least one call each, every one on a new input.
    assert len(seen) >= 11, "every timed call should have seen a new input"


def test_fresh_inputs_differ_in_value_not_in_kind():
    x32, x64 = jnp.linspace(0.1, 0.9, 50), np.linspace(0.1, 0.9, 7)
    args = ({"x": x32, "n": 3, "idx": jnp.arange(4)}, 0.5, x64, jax.random.key(0), "name")
    first, second = _timing.fresh_inputs(args).take(2)
    for fresh in (first, second):
        assert fresh[0]["n"] == 3 and fresh[4] == "name" and fresh[0]["idx"] is args[0]["idx"]
        assert fresh[0]["x"].dtype == x32.dtype and fresh[2].dtype == x64.dtype
        # Scaled by at most 1%: values stay in the input's range, e.g. probabilities stay in (0, 1).
        assert bool(jnp.all((fresh[0]["x"] <= x32) & (fresh[0]["x"] >= 0.99 * x32)))
        assert 0.99 * 0.5 <= fresh[1] <= 0.5
    assert not np.array_equal(first[0]["x"], second[0]["x"]) and not np.array_equal(first[2], second[2])
    assert first[1] != second[1]
    # Not one common factor either: the ratio to the original changes from element to element.
    assert np.ptp(np.asarray(first[0]["x"]) / np.asarray(x32)) > 1e-3
    keys = [jax.random.key_data(k) for k in (args[3], first[3], second[3])]
    assert len({np.asarray(k).tobytes() for k in keys}) == 3


def test_compilation_is_excluded():
    slow_to_compile = jax.jit(lambda x: sum(jnp.sin(x * i) for i in range(200)))
    measured = ag.measure_speedup(slow_to_compile, slow_to_compile, (X,))
    assert measured.candidate_seconds < 0.01, "a compile (about 1 s) was timed"


def test_a_hanging_answer_is_cut_short_within_the_budget():
    def hangs(x):
        time.sleep(30)
        return x

    start = time.perf_counter()
    with pytest.raises(ag.CheckFailed, match="did not finish a single call within the 1 s"):
        ag.check_speedup(hangs, jax.jit(selu), (X,), "selu", required=5.0, budget_seconds=1.0)
    assert time.perf_counter() - start < 5


def test_a_slow_result_is_measured_again_before_failing(monkeypatch):
    results = iter([_timing.Speedup(1.0, 2.0, 9, 5, False), _timing.Speedup(0.1, 2.0, 9, 5, False)])
    calls = []

    def fake(*args, **kwargs):
        calls.append(1)
        return next(results)

    monkeypatch.setattr(_timing, "measure_speedup", fake)
    assert ag.check_speedup(selu, selu, (X,), "selu", required=5.0).ratio == pytest.approx(20.0)
    assert len(calls) == 2


def test_a_result_three_times_too_slow_is_not_measured_again(monkeypatch):
    calls = []

    def fake(*args, **kwargs):
        calls.append(1)
        return _timing.Speedup(1.0, 2.0, 9, 5, False)  # 2x, against a required 7x

    monkeypatch.setattr(_timing, "measure_speedup", fake)
    with pytest.raises(ag.CheckFailed, match="ran 2.0x"):
        ag.check_speedup(selu, selu, (X,), "selu", required=7.0)
    assert len(calls) == 1


def test_advisory_mode_prints_instead_of_failing(monkeypatch, capsys):
    monkeypatch.setenv("JAXCOURSE_TIMING", "advisory")
    ag.check_speedup(selu_loop, selu_loop, (X,), "selu", required=5.0)
    assert "Timing is advisory" in capsys.readouterr().out


@pytest.mark.parametrize("variable", ["BINDER_REQUEST", "COLAB_RELEASE_TAG"])
def test_timing_is_advisory_on_shared_machines_unless_told_otherwise(monkeypatch, variable):
    monkeypatch.delenv("JAXCOURSE_TIMING")
    monkeypatch.setenv(variable, "1")
    assert ag.timing_mode() == "advisory"
    monkeypatch.setenv("JAXCOURSE_TIMING", "enforce")
    assert ag.timing_mode() == "enforce"


def test_unknown_timing_mode_is_an_error(monkeypatch):
    monkeypatch.setenv("JAXCOURSE_TIMING", "sometimes")
    with pytest.raises(ValueError, match="enforce"):
        ag.timing_mode()


def test_threshold_follows_the_backend(monkeypatch, tmp_path):
    table = tmp_path / "thresholds.toml"
    table.write_text('[cpu]\n"a/b" = 5.0\n[gpu]\n"a/b" = 8.0\n[tpu]\n"a/b" = 3.0\n')
    monkeypatch.setattr(_timing, "THRESHOLDS_FILE", table)
    monkeypatch.setattr(_timing.load_thresholds, "__defaults__", (table,))
    for platform, ratio in [("cpu", 5.0), ("cuda", 8.0), ("tpu", 3.0)]:
        monkeypatch.setattr(jax, "default_backend", lambda platform=platform: platform)
        assert ag.required_speedup("a/b") == ratio


def test_every_timed_problem_has_a_threshold_on_every_backend():
    used = set()
    for assignment in ASSIGNMENTS:
        nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
        text = "\n".join(cell.source for cell in nb.cells)
        used |= set(re.findall(r'check_speedup\([^"]*?"([\w/]+)"', text))
    assert used, "no timed problems found"
    table = _timing.load_thresholds()
    for backend in ("cpu", "gpu", "tpu"):
        assert set(table[backend]) == used, backend
