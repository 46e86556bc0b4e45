"""What a forward pass keeps for reverse mode is read from its program; a while_loop's gradient says why it fails."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from jax import lax

import autograder as ag
from autograder.checks._residuals import saved_residuals

from support import ANY_VALUE

pytestmark = pytest.mark.unit

X = jnp.ones((32, 16), jnp.float32)
W = jnp.full((5, 16, 16), 0.1, jnp.float32)


def layer(w, x):
    return jnp.tanh(x @ w)


def deep(layer_fn):
    def loss(ws, x):
        return jnp.sum(lax.scan(lambda x, w: (layer_fn(w, x), None), x, ws)[0] ** 2)

    return loss


def test_inputs_and_constants_are_not_counted_and_a_checkpoint_keeps_nothing():
    scale = jnp.full_like(X, 0.5)
    assert saved_residuals(lambda x: jnp.sum(x * scale), X) == []  # keeps only the constant
    assert saved_residuals(jax.checkpoint(lambda x: jnp.sum(jnp.sin(x) ** 2)), X) == []
    kept = saved_residuals(lambda x: jnp.sum(jnp.tanh(x)), X)
    assert kept and all(shape == (32, 16) and dtype == "float32" and size == 32 * 16 * 4 for shape, dtype, size in kept)


def test_checkpointing_each_layer_keeps_fewer_bytes_and_the_same_gradient():
    plain, remat = deep(layer), deep(jax.checkpoint(layer))
    full = sum(size for *_, size in saved_residuals(plain, W, X))
    less = sum(size for *_, size in saved_residuals(remat, W, X))
    assert less < full
    ag.check_saved_residuals(remat, W, X, max_bytes=less, works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match=rf"keeps {full:,} bytes .* float32\[5, 32, 16\].* at most {less:,} bytes"):
        ag.check_saved_residuals(plain, W, X, max_bytes=less, section="11#Rematerialisation", works=ANY_VALUE)
    ag.check_close(jax.grad(remat)(W, X), jax.grad(plain)(W, X))


def test_a_jitted_function_is_read_through_its_jit():
    assert saved_residuals(jax.jit(deep(layer)), W, X) == saved_residuals(deep(layer), W, X)


def test_reverse_mode_through_a_while_loop_is_explained_and_a_fori_loop_is_differentiated():
    def fixed(x):
        return lax.fori_loop(0, 5, lambda i, x: jnp.sin(x), x)

    def until_small(x):
        return lax.while_loop(lambda x: x > 0.5, jnp.sin, x)

    assert float(ag.reverse_mode_grad(fixed, 1.0)) == pytest.approx(float(jax.grad(fixed)(1.0)))
    with pytest.raises(ag.CheckFailed, match=r"(?s)while_loop.*Reread: course/11_custom_derivatives"):
        ag.reverse_mode_grad(until_small, 1.0, what="until_small", section="11#Gradients through loops")
    with pytest.raises(TypeError):  # any other error is left alone
        ag.reverse_mode_grad(lambda x: x, 1)


@pytest.mark.parametrize(
    ("layer_fn", "says"),
    [
        (layer, r"nothing in it is checkpointed \(its program has no jax.checkpoint\)\.\n"),
        (jax.jit(layer), r"no jax.checkpoint\); jax.jit compiles the work but keeps the same residuals"),
        (jax.checkpoint(layer, policy=jax.checkpoint_policies.everything_saveable), r"the policy everything_saveable"),
        (
            jax.checkpoint(layer, policy=jax.checkpoint_policies.save_only_these_names("h")),
            r"the policy save_only_these_names,",
        ),
        (lambda w, x: jnp.tanh(jax.checkpoint(lambda x, w: x @ w)(x, w)), r"covers only part of the repeated work"),
    ],
    ids=["no checkpoint", "jit", "a policy that saves", "a policy from a factory", "part of the layer"],
)
def test_too_many_residuals_are_explained_by_the_program_s_checkpoints(layer_fn, says):
    with pytest.raises(ag.CheckFailed, match=says):
        ag.check_saved_residuals(deep(layer_fn), W, X, max_bytes=0, works=ANY_VALUE)


def test_a_callback_s_missing_derivative_is_explained():
    def on_the_host(x):
        return jax.pure_callback(lambda a: a * 2, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    with pytest.raises(ag.CheckFailed, match=r"(?s)calls back into Python \(jax.pure_callback.*fori_loop"):
        ag.reverse_mode_grad(lambda x: jnp.sum(on_the_host(x)), X, what="on_the_host")
