"""Work counted as a program runs, and the work no check can read from a jaxpr: callbacks, tables, library solvers."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.experimental import io_callback

import autograder as ag
from autograder._config import REFERENCES

pytestmark = pytest.mark.unit


def halvings(n):
    """Steps from n down to 1 by halving: a loop as long as its input needs."""
    return lax.while_loop(lambda s: s[0] > 1, lambda s: (s[0] // 2, s[1] + 1), (n, jnp.zeros_like(n)))[1]


def fixed_halvings(n):
    """The same count from a loop of 40 steps whatever n is, a while_loop for show."""

    def step(s):
        i, m, count = s
        return i + 1, jnp.where(m > 1, m // 2, m), count + (m > 1)

    return lax.while_loop(lambda s: s[0] < 40, step, (0, n, jnp.zeros_like(n)))[2]


def works(value):
    return lambda got: ag.check_close(got, value, what="the answer")


def test_operations_run_counts_each_iteration_and_the_branch_taken():
    assert ag.operations_run(halvings, jnp.int32(1)) < ag.operations_run(halvings, jnp.int32(2**20)) / 10
    assert ag.operations_run(fixed_halvings, jnp.int32(1)) == ag.operations_run(fixed_halvings, jnp.int32(2**20))
    cheap = ag.operations_run(lambda x: lax.cond(x > 0, lambda x: x, lambda x: jnp.sin(jnp.cos(x)), x), 1.0)
    dear = ag.operations_run(lambda x: lax.cond(x > 0, lambda x: x, lambda x: jnp.sin(jnp.cos(x)), x), -1.0)
    assert cheap < dear
    assert ag.operations_run(jax.jit(halvings), jnp.int32(2**20)) == ag.operations_run(halvings, jnp.int32(2**20))


def test_check_work_grows_refuses_a_fixed_loop_a_table_and_a_callback():
    args = dict(factor=10, works=works(jnp.int32(20)), what="halvings")
    ag.check_work_grows(halvings, (jnp.int32(1),), (jnp.int32(2**20),), **args)
    with pytest.raises(ag.CheckFailed, match="fixed number of steps"):
        ag.check_work_grows(fixed_halvings, (jnp.int32(1),), (jnp.int32(2**20),), **args)
    table = np.array([0] + [int(np.log2(m)) for m in range(1, 2**11)], np.int32)
    with pytest.raises(ag.CheckFailed, match="table"):
        ag.check_work_grows(
            lambda n: jnp.asarray(table)[n],
            (jnp.int32(1),),
            (jnp.int32(1024),),
            **{**args, "works": works(jnp.int32(10))},
        )
    shape = jax.ShapeDtypeStruct((), jnp.int32)
    with pytest.raises(ag.CheckFailed, match="pure_callback"):
        ag.check_work_grows(
            lambda n: halvings(jax.pure_callback(lambda m: np.int32(m), shape, n)),
            (jnp.int32(1),),
            (jnp.int32(2**20),),
            **args,
        )


def test_size_and_depth_checks_refuse_callbacks():
    def numpy_cumsum(x):
        return io_callback(lambda v: np.cumsum(v).astype(v.dtype), jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    with pytest.raises(ag.CheckFailed, match="io_callback"):
        ag.check_jaxpr_constant(numpy_cumsum, lambda n: (jnp.ones(n),), sizes=(4, 8), works=works(jnp.arange(1.0, 5.0)))
    with pytest.raises(ag.CheckFailed, match="io_callback"):
        ag.check_log_depth(numpy_cumsum, lambda n: (jnp.ones(n),), sizes=(16, 256), works=works(jnp.arange(1.0, 17.0)))


def test_a_library_solver_counts_its_unknowns_as_steps():
    def running_sum(x):  # solves h_t - h_{t-1} = x_t, one unknown after another
        below = jnp.concatenate([jnp.zeros(1), -jnp.ones(x.shape[0] - 1)])
        return lax.linalg.tridiagonal_solve(below, jnp.ones_like(x), jnp.zeros_like(x), x[:, None])[:, 0]

    assert ag.depth(running_sum, jnp.ones(256)) >= 256
    with pytest.raises(ag.CheckFailed, match="tridiagonal_solve"):
        ag.check_log_depth(running_sum, lambda n: (jnp.ones(n),), sizes=(16, 256), works=works(jnp.arange(1.0, 17.0)))


def test_a_python_while_under_vmap_is_said_to_be_untraceable():
    def count_down(n):
        while n > 0:
            n = n - 1
        return n

    with pytest.raises(ag.CheckFailed, match="(?s)cannot be traced.*while_loop"):
        ag.check_traceable(jax.vmap(count_down), jnp.arange(3), works=works(jnp.zeros(3, jnp.int32)))


def test_a_reference_message_never_shows_the_expected_value(tmp_path, monkeypatch):
    monkeypatch.setenv(REFERENCES, str(tmp_path))
    ag.save_reference("demo/secret", (jnp.array([1.0, 2.0, 123.456]), jnp.array([7, 8], jnp.int32)), tmp_path)
    for wrong in (
        (jnp.array([1.0, 2.0, 0.5]), jnp.array([7, 8], jnp.int32)),
        (jnp.array([1.0, 2.0, jnp.nan]), jnp.array([7, 8], jnp.int32)),
        (jnp.array([1.0, 2.0, 123.456]), jnp.array([7, 9], jnp.int32)),
    ):
        with pytest.raises(ag.CheckFailed) as failed:
            ag.check_reference(wrong, "demo/secret", what="result")
        assert "differs" in str(failed.value) or "finite" in str(failed.value)
        assert "123" not in str(failed.value) and " 8" not in str(failed.value) and "122" not in str(failed.value)
