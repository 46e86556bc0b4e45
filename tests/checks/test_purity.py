"""`check_pure` catches each kind of side effect and passes pure code."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src import core as jax_core

import autograder as ag

from support import ANY_VALUE

pytestmark = pytest.mark.unit


def sgd(params, grads):
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


def sgd_mutating(params, grads):
    for k in params:
        params[k] = params[k] - 0.1 * grads[k]
    return params


def sgd_printing(params, grads):
    print("step", params)
    return sgd(params, grads)


history = []


def sgd_remembering(params, grads):
    history.append(len(history))
    return sgd(params, grads)


leaked = []


def sgd_leaking(params, grads):
    out = sgd(params, grads)
    leaked.append(out)
    return out


def setup_function():
    history.clear()
    leaked.clear()


PARAMS = {"w": jnp.ones(3), "b": jnp.zeros(())}


GRADS = {"w": jnp.ones(3), "b": jnp.ones(())}


def test_check_pure_passes_pure_code():
    ag.check_pure(sgd, dict(PARAMS), GRADS, works=ANY_VALUE)
    ag.check_pure(jax.jit(sgd), dict(PARAMS), GRADS, works=ANY_VALUE)
    ag.check_pure(lambda x: jnp.asarray(x).at[0].set(1.0), np.zeros(3, np.float32), works=ANY_VALUE)
    ag.check_pure(lambda x: jax.debug.print("x={x}", x=x) or x, jnp.ones(2), works=ANY_VALUE)


@pytest.mark.parametrize(
    "impure, message",
    [
        (sgd_mutating, "changed its input in place"),
        (sgd_printing, "prints while JAX traces it"),
        (sgd_remembering, r"changes state outside itself \(history\)"),
        (sgd_leaking, "leaks a traced value"),
    ],
)
def test_check_pure_catches_each_side_effect(impure, message):
    with pytest.raises(ag.CheckFailed, match=message):
        ag.check_pure(impure, dict(PARAMS), GRADS, works=ANY_VALUE)


def test_a_leak_is_named_without_jax_walking_the_heap_for_what_holds_it(monkeypatch):
    """JAX's own explanation of a leak scans every object for each link of the chain: seconds in a large kernel."""

    def walks_the_heap(*args):
        raise AssertionError("JAX explained the leak")

    monkeypatch.setattr(jax_core, "_why_alive", walks_the_heap)
    jaxs_own = jax_core.leaked_tracer_error
    with pytest.raises(ag.CheckFailed, match="leaks a traced value"):
        ag.check_pure(sgd_leaking, dict(PARAMS), GRADS, works=ANY_VALUE)
    assert jax_core.leaked_tracer_error is jaxs_own  # put back for everything else


def test_check_pure_catches_in_place_numpy_writes_and_closures():
    def scale_in_place(x):
        x *= 2
        return x

    with pytest.raises(ag.CheckFailed, match="changed its input in place"):
        ag.check_pure(scale_in_place, np.ones(3, np.float32), works=ANY_VALUE)

    calls = []

    def counting(x):
        calls.append(1)
        return x * 2

    with pytest.raises(ag.CheckFailed, match="a captured variable"):
        ag.check_pure(counting, jnp.ones(3), works=ANY_VALUE)


def test_global_counter_is_caught():
    namespace = {"jax": jax, "steps": 0}
    exec("def step(x):\n    global steps\n    steps += 1\n    return x * 2\n", namespace)
    with pytest.raises(ag.CheckFailed, match=r"\(steps\)"):
        ag.check_pure(namespace["step"], jnp.ones(3), works=ANY_VALUE)
    namespace["steps"] = 0
    exec("def step(x):\n    return x * 2 + steps\n", namespace)  # reads a global: fine
    ag.check_pure(namespace["step"], jnp.ones(3), works=ANY_VALUE)


def test_partial_is_unwrapped_for_purity():
    ag.check_pure(partial(sgd, grads=GRADS), dict(PARAMS), works=ANY_VALUE)


def test_a_side_effect_at_trace_time_is_seen_however_often_it_was_traced_before(capsys):
    """Earlier cells that jitted the function (JAX caches the trace) must not hide a print or a leak."""
    leaked = []

    def prints(calls, x):
        print("call", calls)
        return calls + 1, x * 2

    @jax.jit
    def leaks(x):
        leaked.append(x)
        return x + 1

    x = jnp.ones(2)
    step, count = jax.jit(prints), 0
    for _ in range(3):  # as a notebook's earlier test cell does
        count, _ = step(count, x)
    leaks(x)
    with pytest.raises(ag.CheckFailed, match="prints while JAX traces it"):
        ag.check_pure(prints, 0, x, works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="leaks a traced value"):
        ag.check_pure(leaks, x, works=ANY_VALUE)
    capsys.readouterr()
