"""A program far larger than a good answer's is refused before it compiles, in seconds, with the reason."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import autograder as ag
from autograder._config import REFERENCES
from autograder.checks._size import check_compiled_size, compiled_size

pytestmark = pytest.mark.unit
BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"  # as autograder/checks/_compiles.py hears it

ARGS = (0.0, 1.0, 0.5, 0.25, 1000)


@partial(jax.jit, static_argnames="n")
def recurrence_fori(a0, a1, c1, c2, n):
    a = jnp.zeros(n, dtype=jnp.float32).at[0].set(a0).at[1].set(a1)
    return lax.fori_loop(2, n, lambda i, a: a.at[i].set(c1 * a[i - 1] + c2 * a[i - 2]), a)


@partial(jax.jit, static_argnums=4)
def recurrence_unrolled(a0, a1, c1, c2, n):
    """The tutorial's version: compiling it takes minutes at n = 1000."""
    a = jnp.zeros(n).at[0].set(a0).at[1].set(a1)
    for i in range(2, n):
        a = a.at[i].set(c1 * a[i - 1] + c2 * a[i - 2])
    return a


def recurrence_eager(a0, a1, c1, c2, n):
    return recurrence_unrolled.__wrapped__(a0, a1, c1, c2, n)


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    """A good answer's size for the problem "p/recurrence", as `jax-course references` records it."""
    ag.save_reference("p/recurrence_program", np.int64(compiled_size(recurrence_fori, ARGS)), tmp_path)
    monkeypatch.setenv(REFERENCES, str(tmp_path))


def test_sizes_count_what_is_compiled_as_one_program():
    assert compiled_size(recurrence_fori, ARGS) < 100
    assert compiled_size(recurrence_unrolled, (0.0, 1.0, 0.5, 0.25, 64)) > 500
    assert compiled_size(recurrence_eager, (0.0, 1.0, 0.5, 0.25, 64)) < 10  # op by op: nothing big compiles
    assert compiled_size(lambda x: np.asarray(x) + 1, (jnp.ones(3),)) is None  # cannot be traced


def test_an_unrolled_loop_is_refused_before_it_compiles_and_named(recorded):
    """Compiling it would take minutes: the refusal comes from its traced size, with no XLA compilation."""
    compiles = []

    def listen(event, duration_secs, **_):
        if event == BACKEND_COMPILE_EVENT:
            compiles.append(duration_secs)

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        with pytest.raises(ag.CheckFailed, match=r"10,\d{3} operations .* unrolled") as failure:
            check_compiled_size(recurrence_unrolled, ARGS, "p/recurrence", what="recurrence")
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    assert compiles == []
    assert "lax.fori_loop" in str(failure.value)


def test_good_and_eager_answers_and_unrecorded_problems_pass(recorded):
    check_compiled_size(recurrence_fori, ARGS, "p/recurrence", what="recurrence")
    check_compiled_size(recurrence_eager, ARGS, "p/recurrence", what="recurrence")
    check_compiled_size(recurrence_unrolled, ARGS, "p/never_recorded", what="recurrence")
