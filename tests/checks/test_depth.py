"""`check_log_depth` passes a parallel prefix and fails every sequential way to the same values."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import pytest
from jax import lax

import autograder as ag

from support import ANY_VALUE

pytestmark = pytest.mark.unit


def combine(left, right):
    (a1, b1), (a2, b2) = left, right
    return a1 * a2, a2 * b1 + b2


def parallel(a, b):
    return lax.associative_scan(combine, (a, b))[1]


def sequential_scan(a, b):
    return lax.scan(lambda h, ab: (ab[0] * h + ab[1],) * 2, jnp.zeros((), a.dtype), (a, b))[1]


def fori(a, b):
    return lax.fori_loop(0, a.shape[0], lambda i, h: h.at[i].set(a[i] * h[i - 1] * (i > 0) + b[i]), jnp.zeros_like(b))


def while_loop(a, b):
    def step(state):
        i, h = state
        return i + 1, h.at[i].set(a[i] * h[i - 1] * (i > 0) + b[i])

    return lax.while_loop(lambda s: s[0] < a.shape[0], step, (0, jnp.zeros_like(b)))[1]


def python_loop(a, b):
    h, out = jnp.zeros((), a.dtype), []
    for i in range(a.shape[0]):
        h = a[i] * h + b[i]
        out.append(h)
    return jnp.stack(out)


def make_args(n):
    return jnp.full(n, 0.5, jnp.float32), jnp.ones(n, jnp.float32)


@pytest.mark.parametrize("answer", [parallel, jax.jit(parallel), jax.vmap(parallel, in_axes=None, axis_size=2)])
def test_a_parallel_prefix_passes(answer):
    ag.check_log_depth(answer, make_args, works=ANY_VALUE)


def test_depth_counts_a_scan_body_once_per_step():
    assert ag.depth(sequential_scan, *make_args(64)) == 64 * ag.depth(sequential_scan, *make_args(1)) > 64
    assert ag.depth(lambda a, b: a * b + b, *make_args(5)) == 2
    assert math.isinf(ag.depth(while_loop, *make_args(8)))


@pytest.mark.parametrize("answer", [sequential_scan, fori])
def test_a_sequential_loop_fails(answer):
    with pytest.raises(ag.CheckFailed, match="one after another"):
        ag.check_log_depth(answer, make_args, what="linear_recurrence", works=ANY_VALUE)


def test_an_unrolled_python_loop_fails():
    with pytest.raises(ag.CheckFailed, match="x16 the size"):
        ag.check_log_depth(python_loop, make_args, sizes=(16, 256), works=ANY_VALUE)


def test_a_while_loop_fails():
    with pytest.raises(ag.CheckFailed, match="while_loop"):
        ag.check_log_depth(while_loop, make_args, works=ANY_VALUE)
