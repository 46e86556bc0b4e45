"""Every timed call gets inputs it has not seen, so remembered results gain nothing."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograder as ag
from autograder.checks._fresh import fresh_inputs

from support import ANY_VALUE, selu_loop

pytestmark = pytest.mark.unit

X = jnp.linspace(-2.0, 2.0, 600)


def test_remembering_results_gains_nothing():
    seen, calls = {}, []

    def remembers(x):
        key = np.asarray(x).tobytes()
        calls.append(key)
        if key not in seen:
            seen[key] = selu_loop(x)
        return seen[key]

    with pytest.raises(ag.CheckFailed, match="ran .* as fast as"):
        ag.check_speedup(remembers, selu_loop, (X,), "selu", required=5.0, works=ANY_VALUE)
    # Warm-up calls and blocks of at least one call each (fewer if a busy machine uses up the budget).
    # The calls on the check's own input (the answer's values, the first warm-up) are not timed.
    timed = [key for key in calls if key != np.asarray(X).tobytes()]
    assert len(timed) >= 2, f"only {len(timed)} of {len(calls)} calls got an input other than the check's own"
    assert len(set(timed)) == len(timed), f"{len(timed)} timed calls saw only {len(set(timed))} different inputs"


def test_fresh_inputs_differ_in_value_not_in_kind():
    x32, x64 = jnp.linspace(0.1, 0.9, 50), np.linspace(0.1, 0.9, 7)
    args = ({"x": x32, "n": 3, "idx": jnp.arange(4)}, 0.5, x64, jax.random.key(0), "name")
    first, second = fresh_inputs(args).take(2)
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
