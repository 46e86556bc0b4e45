"""Structural checks fail on the mistake they target and pass on good code."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import autograder as ag

from support import ANY_VALUE

pytestmark = pytest.mark.unit


def cumsum_loop(x, n):
    out = jnp.zeros(n)
    for i in range(1, n):
        out = out.at[i].set(out[i - 1] + x[i])
    return out


def cumsum_fori(x, n):
    return lax.fori_loop(1, n, lambda i, out: out.at[i].set(out[i - 1] + x[i]), jnp.zeros(n))


def plain(x):
    return jnp.sin(x) * 2


def hvp_forward_over_reverse(x, v):
    return jax.jvp(jax.grad(lambda x: jnp.sum(jnp.sin(x)) ** 2), (x,), (v,))[1]


def hvp_via_hessian(x, v):
    return jax.hessian(lambda x: jnp.sum(jnp.sin(x)) ** 2)(x) @ v


def test_check_jitted():
    ag.check_jitted(jax.jit(plain), jnp.ones(3), works=ANY_VALUE)
    ag.check_jitted(lambda x: jax.jit(plain)(x), jnp.ones(3), works=ANY_VALUE)  # one jit call is the whole program
    with pytest.raises(ag.CheckFailed, match="is not jitted"):
        ag.check_jitted(plain, jnp.ones(3), works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed):
        ag.check_jitted(lambda x: jax.jit(plain)(x) + 1, jnp.ones(3), works=ANY_VALUE)


def test_check_jaxpr_constant_catches_an_unrolled_loop():
    make = lambda n: (jnp.ones(n), n)  # noqa: E731
    ag.check_jaxpr_constant(cumsum_fori, make, static_argnums=(1,), works=ANY_VALUE)
    ag.check_jaxpr_constant(jax.jit(cumsum_fori, static_argnums=1), make, static_argnums=(1,), works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match=r"grows with the problem size \(\d+ for n=8, \d+ for n=64"):
        ag.check_jaxpr_constant(cumsum_loop, make, static_argnums=(1,), works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed):
        ag.check_jaxpr_constant(jax.jit(cumsum_loop, static_argnums=1), make, static_argnums=(1,), works=ANY_VALUE)


def test_numpy_code_is_reported_as_not_traceable():
    with pytest.raises(ag.CheckFailed, match="cannot be traced.*TracerArrayConversionError"):
        ag.check_jaxpr_constant(lambda x: jnp.asarray(np.sin(x)), lambda n: (jnp.ones(n),), works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="TracerBoolConversionError"):
        ag.check_primitives(lambda x: x if x.sum() > 0 else -x, jnp.ones(3), contains=["neg"], works=ANY_VALUE)


def test_nested_primitives_are_found():
    found = ag.primitives(jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0, x)), 1.0)
    assert {"jit", "mul"} <= found


def test_check_primitives_contains_and_avoids():
    stable = lambda x: jnp.exp(x - x.max())  # noqa: E731
    ag.check_primitives(stable, jnp.ones(3), contains=["reduce_max", "exp"], avoids=["while"], works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="never uses reduce_max"):
        ag.check_primitives(jnp.exp, jnp.ones(3), contains=["reduce_max"], works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="uses exp, which this exercise rules out"):
        ag.check_primitives(stable, jnp.ones(3), avoids=["exp"], works=ANY_VALUE)


def test_check_primitives_only():
    affine = lambda w, x, b: w @ x + b  # noqa: E731
    args = (jnp.ones((2, 3)), jnp.ones(3), jnp.ones(2))
    ag.check_primitives(affine, *args, only=["dot_general", "add"], works=ANY_VALUE)
    with pytest.raises(
        ag.CheckFailed, match="uses broadcast_in_dim, mul, reduce_sum, but should need only add, dot_general"
    ):
        ag.check_primitives(
            lambda w, x, b: (w * x).sum(axis=1) + b, *args, only=["dot_general", "add"], works=ANY_VALUE
        )


def test_check_compile_count():
    calls = [(np.ones(n, np.float32),) for n in range(5, 15)]
    shapes_as_given = jax.jit(lambda x: (x * 2).sum())
    with pytest.raises(ag.CheckFailed, match="compiled 10 times.*at most 2"):
        ag.check_compile_count(shapes_as_given, calls, 2, works=ANY_VALUE)
    bucketed = jax.jit(lambda x: (x * 2).sum())
    padded = [(np.pad(x, (0, 16 - x.shape[0])),) for (x,) in calls]
    ag.check_compile_count(bucketed, padded, 1, works=ANY_VALUE)


def test_compile_count_of_an_unjitted_function_counts_every_compilation():
    jitted = jax.jit(lambda x: x + 1)
    assert ag.count_compiles(lambda x: jitted(x), [(np.ones(n, np.float32),) for n in (101, 102, 103)]) >= 3
    assert ag.count_compiles(lambda x: jitted(x), [(np.ones(101, np.float32),)] * 3) == 1


@pytest.mark.parametrize("wrap", [lambda f: f, lambda f: lambda x: f(x)], ids=["jitted", "called from Python"])
def test_a_compile_count_does_not_depend_on_what_ran_before(wrap):
    # One compilation per length: compiling some lengths beforehand (an earlier cell) hides none of them.
    lengths = [(np.ones(n, np.float32),) for n in (201, 202, 203)]
    fresh = ag.count_compiles(wrap(jax.jit(lambda x: x * 3)), lengths)
    warmed = jax.jit(lambda x: x * 3)
    for args in lengths[:2]:
        warmed(*args)
    assert ag.count_compiles(wrap(warmed), lengths) == fresh >= 3


def test_largest_intermediate_sees_the_hessian():
    x = v = jnp.ones(300)
    assert ag.largest_intermediate(hvp_forward_over_reverse, x, v)[:2] == (300, (300,))
    assert ag.largest_intermediate(hvp_via_hessian, x, v)[:2] == (90_000, (300, 300))
    # ... also inside a nested jit.
    assert ag.largest_intermediate(jax.jit(hvp_via_hessian), x, v)[0] == 90_000
    ag.check_largest_intermediate(hvp_forward_over_reverse, x, v, max_elements=3000, works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match=r"shape \(300, 300\) \(90,000 elements"):
        ag.check_largest_intermediate(hvp_via_hessian, x, v, max_elements=3000, what="hvp", works=ANY_VALUE)


def test_numpy_code_is_not_traceable_and_jnp_code_is():
    ag.check_traceable(plain, jnp.ones(3), works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="cannot be traced by JAX"):
        ag.check_traceable(lambda x: np.asarray(x) * 2, jnp.ones(3), works=ANY_VALUE)


def test_a_loop_under_jit_still_grows_the_program():
    loop = jax.jit(lambda x: jnp.stack([x[i] * 2 for i in range(x.shape[0])]))
    with pytest.raises(ag.CheckFailed, match="grows with the problem size"):
        ag.check_jaxpr_constant(loop, lambda n: (jnp.ones(n),), sizes=(4, 32), hint="vectorise", works=ANY_VALUE)


def test_code_that_compiles_nothing_is_not_jax():
    ag.check_compile_count(jax.jit(plain), [(jnp.ones(3),)], 1, at_least=1, works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="compiled 0 times"):
        ag.check_compile_count(lambda x: np.sin(x) * 2, [(np.ones(3),)], 1, at_least=1, works=ANY_VALUE)


def test_numpy_storing_a_traced_value_is_reported_as_untraceable():
    def stores_into_numpy(x):
        out = np.zeros(3, np.float32)
        out[0] = x[0]
        return out

    with pytest.raises(ag.CheckFailed, match=r"cannot be traced by JAX \(ConcretizationTypeError\)"):
        ag.check_traceable(stores_into_numpy, jnp.ones(3), works=ANY_VALUE)


def test_a_compile_report_replaced_inside_jax_is_refused(monkeypatch):
    """Replacing how JAX reports a compilation (through a name of its own for jax._src.dispatch) forges a count."""
    from jax._src import dispatch

    monkeypatch.setattr(dispatch, "record_event_duration_secs", lambda *args, **kwargs: None)
    with pytest.raises(ag.CheckFailed, match=r"jax\._src\.dispatch\.record_event_duration_secs.*\nTry: .*\nReread: "):
        ag.check_compile_count(jax.jit(plain), [(jnp.ones(3),)], 1, works=ANY_VALUE, section="04#Compilation")
