"""`check_not_calling` sees a library one-liner however it is reached, and only then."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from jax.nn import softmax as aliased_softmax
from jax.scipy.special import logsumexp

import autograder as ag

from support import ANY_VALUE

pytestmark = pytest.mark.unit

SOFTMAXES = ("jax.nn.softmax", "jax.nn.log_softmax", "jax.scipy.special.softmax")
X = jnp.arange(12.0).reshape(3, 4)


def by_hand(x):
    e = jnp.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def through_logsumexp(x):
    return jnp.exp(x - logsumexp(x, axis=-1, keepdims=True))


def helper(x):
    return aliased_softmax(x, axis=-1)


@pytest.mark.parametrize(
    "answer",
    [
        lambda x: jax.nn.softmax(x, axis=-1),
        lambda x: helper(x),
        jax.jit(helper),
        lambda x: jnp.exp(jax.nn.log_softmax(x)),
        lambda x: jax.scipy.special.softmax(x, axis=-1),
    ],
    ids=["direct", "through a helper and an alias", "inside jit", "log_softmax", "scipy"],
)
def test_a_library_softmax_is_seen(answer):
    with pytest.raises(ag.CheckFailed, match="asks you to write it yourself"):
        ag.check_not_calling(answer, X, names=SOFTMAXES, what="softmax", works=ANY_VALUE)


@pytest.mark.parametrize("answer", [by_hand, through_logsumexp, jax.jit(by_hand)])
def test_a_softmax_written_by_hand_passes(answer):
    ag.check_not_calling(answer, X, names=SOFTMAXES, works=ANY_VALUE)
    assert ag.library_calls(answer, X, names=SOFTMAXES) == set()


def test_a_jitted_library_function_is_seen_after_its_cache_is_warm():
    gcd_names = ["jax.numpy.gcd"]
    a = jnp.array([12, 18])
    jnp.gcd(a, a)  # traced before, as an earlier cell would
    assert ag.library_calls(lambda a, b: jnp.gcd(a, b), a, a, names=gcd_names) == {"jax.numpy.gcd"}


def test_a_rebound_library_name_makes_the_check_fail(monkeypatch):
    monkeypatch.setattr(jax.nn, "softmax", by_hand)
    with pytest.raises(ag.CheckFailed, match="not JAX's own function"):
        ag.check_not_calling(by_hand, X, names=SOFTMAXES, works=ANY_VALUE)


def test_another_installed_library_is_seen_and_a_missing_one_is_no_call():
    optax = pytest.importorskip("optax")
    v = jnp.array([3.0, 4.0])
    names = ["optax.safe_norm", "no_such_library_here.safe_norm"]
    assert ag.library_calls(lambda x: optax.safe_norm(x, 0.0), v, names=names) == {"optax.safe_norm"}
    assert ag.library_calls(lambda x: jnp.sqrt(jnp.sum(x**2)), v, names=names) == set()
    with pytest.raises(ag.CheckFailed, match="optax.safe_norm"):
        ag.check_not_calling(lambda x: optax.safe_norm(x, 0.0), v, names=names, works=ANY_VALUE)


def test_a_rebound_name_of_another_library_makes_the_check_fail(monkeypatch):
    optax = pytest.importorskip("optax")
    monkeypatch.setattr(optax, "safe_norm", lambda x, min_norm: jnp.linalg.norm(x))
    with pytest.raises(ag.CheckFailed, match="not optax's own function"):
        ag.check_not_calling(by_hand, X, names=["optax.safe_norm"], works=ANY_VALUE)


def test_inside_sees_the_functions_a_library_function_returns():
    """Optax's transformations do their work in closures: `inside` counts them as the function that made them."""
    optax = pytest.importorskip("optax")
    params = {"w": jnp.ones(3)}
    names = ["optax.scale_by_adam", "optax.clip_by_global_norm", "optax.add_decayed_weights"]
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(0.1))
    state = tx.init(params)

    def update(grads, state):
        return tx.update(grads, state, params)[0]

    assert ag.library_calls(update, params, state, names=names) == set()  # made before the trace, run inside it
    assert ag.library_calls(update, params, state, names=names, inside=True) == set(names[:2])
    by_hand = optax.GradientTransformation(lambda p: optax.EmptyState(), lambda g, s, p=None: (g, s))

    def update_by_hand(grads, state):
        return by_hand.update(grads, state)[0]

    assert ag.library_calls(update_by_hand, params, by_hand.init(params), names=names, inside=True) == set()
