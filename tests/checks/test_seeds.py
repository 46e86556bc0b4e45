"""Hidden inputs come from the grader's seed."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import autograder as ag

pytestmark = pytest.mark.unit


def test_grader_rng_is_reproducible_and_differs_by_problem():
    a = ag.grader_rng("01_arrays/x").normal(size=4)
    np.testing.assert_array_equal(a, ag.grader_rng("01_arrays/x").normal(size=4))
    assert not np.allclose(a, ag.grader_rng("01_arrays/y").normal(size=4))


def test_the_grader_seed_changes_every_hidden_input(monkeypatch):
    default = ag.grader_rng("p/q").normal(size=4)
    monkeypatch.setenv("JAXCOURSE_GRADER_SEED", "12345")
    assert ag.grader_seed() == 12345
    assert not np.allclose(default, ag.grader_rng("p/q").normal(size=4))


def test_grader_key_is_a_typed_key():
    key = ag.grader_key("07_prng/pi")
    assert jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key)
    assert (jax.random.key_data(key) == jax.random.key_data(ag.grader_key("07_prng/pi"))).all()
