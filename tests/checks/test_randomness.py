"""Randomness checks pass correct random code and catch each kind of mistake."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograder as ag

from support import ANY_VALUE

pytestmark = pytest.mark.unit


def rows_split(key, batch, d):
    return jax.vmap(lambda k: jax.random.normal(k, (d,)))(jax.random.split(key, batch))


def rows_same_key(key, batch, d):
    return jnp.stack([jax.random.normal(key, (d,)) for _ in range(batch)])


def rows_reusing_parent(key, batch, d):
    rows = rows_split(key, batch, d)
    return rows.at[0].set(jax.random.normal(key, (d,)))


def test_no_key_reuse_passes_split_keys_and_returns_the_result():
    out = ag.check_no_key_reuse(rows_split, jax.random.key(0), 4, 8, works=ANY_VALUE)
    assert out.shape == (4, 8)


@pytest.mark.parametrize(
    "reuser", [rows_same_key, rows_reusing_parent, jax.jit(rows_reusing_parent, static_argnums=(1, 2))]
)
def test_key_reuse_is_caught_eagerly_and_under_jit(reuser):
    with pytest.raises(ag.CheckFailed, match="same PRNG key more than once") as info:
        ag.check_no_key_reuse(reuser, jax.random.key(0), 4, 8, section="07#Key reuse is a bug", works=ANY_VALUE)
    assert "jax.random.split" in str(info.value) and "07_prng.ipynb#Key-reuse-is-a-bug" in str(info.value)


def test_key_reuse_checking_is_switched_off_again():
    ag.check_no_key_reuse(rows_split, jax.random.key(0), 2, 8, works=ANY_VALUE)
    key = jax.random.key(1)
    jax.random.normal(key)
    jax.random.normal(key)  # would raise if the checker had stayed on


def estimate(key, n=1000):
    return 4 * jnp.mean(jnp.sum(jax.random.uniform(key, (2, n)) ** 2, axis=0) <= 1)


def test_reproducible_passes_a_function_of_its_key():
    ag.check_reproducible(estimate, jax.random.key(0), jax.random.key(1), works=ANY_VALUE)


def test_reproducible_catches_hidden_state_and_an_ignored_key():
    rng = np.random.default_rng(0)
    with pytest.raises(ag.CheckFailed, match="different answers for the same key"):
        ag.check_reproducible(lambda key: rng.random(), jax.random.key(0), jax.random.key(1), works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="same answer for three different keys"):
        ag.check_reproducible(
            lambda key: estimate(jax.random.key(7)), jax.random.key(0), jax.random.key(1), works=ANY_VALUE
        )


def test_an_ignored_key_is_named_before_the_wrong_values_it_gives():
    """An epoch that never shuffles gives other values than the reference: the cause is the unused key."""
    with pytest.raises(ag.CheckFailed, match="does not use its key") as info:
        ag.check_reproducible(lambda key: jnp.arange(3.0), jax.random.key(0), jax.random.key(1), works="no/such/id")
    assert "jax.random.permutation" in str(info.value)


def test_reproducible_catches_state_that_agrees_twice_by_chance():
    """An estimate that ignores its key coincides with itself now and then (about 1 in 60 for 2000
    points): one repeat would pass it; the third call here differs."""
    answers = iter([3.14, 3.0, 3.2, 3.3, 3.14, 3.14, 3.1])  # the key, three other keys, the key again
    with pytest.raises(ag.CheckFailed, match="different answers for the same key"):
        ag.check_reproducible(lambda key: next(answers), jax.random.key(0), jax.random.key(1), works=ANY_VALUE)


def test_reproducible_allows_two_keys_to_agree_by_chance():
    # An estimate from a few thousand points takes few values: two keys can share one.
    def coarse(key):
        data = np.asarray(jax.random.key_data(key))
        if any(np.array_equal(data, np.asarray(jax.random.key_data(jax.random.key(s)))) for s in (0, 1)):
            return jnp.float32(3.14)
        return estimate(key)

    ag.check_reproducible(coarse, jax.random.key(0), jax.random.key(1), works=ANY_VALUE)


def test_within_sigmas_accepts_noise_and_rejects_bias():
    ag.check_within_sigmas(3.15, np.pi, 0.0116)
    with pytest.raises(ag.CheckFailed, match=r"2\.83.*standard errors from 3\.14159"):
        ag.check_within_sigmas(2.83, np.pi, 0.0116, what="estimate_pi")
    with pytest.raises(ag.CheckFailed, match="standard errors"):
        ag.check_within_sigmas(float("nan"), np.pi, 0.0116)
    with pytest.raises(ag.CheckFailed, match="one number"):
        ag.check_within_sigmas(jnp.ones(3), np.pi, 0.0116)


def test_a_correct_estimator_fails_six_sigmas_essentially_never():
    keys = jax.random.split(jax.random.key(3), 200)
    estimates = jax.vmap(lambda k: estimate(k, 4000))(keys)
    error = float(np.sqrt(np.pi * (4 - np.pi) / 4000))
    for value in estimates:
        ag.check_within_sigmas(value, np.pi, error)
    # ... while the spread is what the standard error says.
    assert 0.7 < float(np.std(estimates)) / error < 1.3


def test_independent_rows_pass_and_repeated_or_correlated_rows_fail():
    ag.check_independent_rows(rows_split(jax.random.key(0), 16, 256))
    with pytest.raises(ag.CheckFailed, match="row 1 equals an earlier row"):
        ag.check_independent_rows(rows_same_key(jax.random.key(0), 4, 64))
    base = np.asarray(rows_split(jax.random.key(1), 2, 64))
    correlated = np.stack([base[0], base[0] + 0.1 * base[1]])
    with pytest.raises(ag.CheckFailed, match="rows 0 and 1 .* correlate"):
        ag.check_independent_rows(correlated)
    with pytest.raises(ag.CheckFailed, match="shape"):
        ag.check_independent_rows(jnp.ones(10))


def test_a_value_read_while_tracing_is_not_reproducible():
    import time

    @jax.jit
    def estimate(key):  # the clock is read once per trace: every call of the cached function agrees
        return jax.random.uniform(key) + (time.perf_counter_ns() % 1000)

    with pytest.raises(ag.CheckFailed, match="traced|tracing"):
        ag.check_reproducible(estimate, jax.random.key(0), jax.random.key(1), works=ANY_VALUE)
