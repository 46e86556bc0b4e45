"""The slow but correct versions that speed checks time against, and that some tests compare with.

They live in the package, not in the notebook, so that nothing a student's cell does can
slow them down or change what they return. A test cell names them as `ag.baselines.NAME`
(or `ag.baselines.timed(problem)`), and `check_speedup` refuses any baseline that is not
the one registered here for its problem. Students read the same code in a read-only cell
of the exercise (tests/checks/test_baselines.py keeps the two identical).
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


def pairwise_sq_dists_loop(x, y):
    """Correct but slow: one Python iteration, and several small JAX operations, per row."""
    return jnp.stack([jnp.sum((x[i] - y) ** 2, axis=1) for i in range(x.shape[0])])


def recurrence_eager(a0, a1, c1, c2, n):
    """Correct but slow: a Python loop that dispatches several small operations per element."""
    a = jnp.zeros(n, dtype=jnp.float32).at[0].set(a0).at[1].set(a1)
    for i in range(2, n):
        a = a.at[i].set(c1 * a[i - 1] + c2 * a[i - 2])
    return a


def recurrence_on_host(a0, a1, c1, c2, n):
    """The eager loop's values, computed in NumPy's float32 on the host at a thousandth of its cost: what a test
    compares an answer with at the timed length (nothing is timed against it)."""
    a = np.zeros(n, dtype=np.float32)
    a[0], a[1] = a0, a1
    c1, c2 = np.float32(c1), np.float32(c2)
    for i in range(2, n):
        a[i] = c1 * a[i - 1] + c2 * a[i - 2]
    return a


def logistic_map_eager(x, r, steps):
    """Correct but slow: three dispatched operations per step."""
    for _ in range(steps):
        x = r * x * (1.0 - x)
    return x


def pairwise_cosine_loop(X, Y):
    """Correct but slow: one Python iteration, and several dispatched operations, per row of X."""
    return jnp.stack([(Y @ x) / (jnp.linalg.norm(Y, axis=1) * jnp.linalg.norm(x)) for x in X])


def estimate_pi_loop(key, n):
    """Correct but slow: one point, and a few dispatched operations, per Python iteration."""
    inside = 0
    for _ in range(n):
        key, subkey = jax.random.split(key)
        x, y = jax.random.uniform(subkey, (2,))
        inside += int(x * x + y * y <= 1.0)
    return 4.0 * inside / n


def _forward_one(params, x):
    for layer in params[:-1]:
        x = jnp.tanh(x @ layer["W"] + layer["b"])
    return x @ params[-1]["W"] + params[-1]["b"]


def _loss_fn(params, X, y):
    # The capstone's loss with the course's own predict, so a student's predict cannot slow it.
    log_probs = jax.nn.log_softmax(jax.vmap(_forward_one, in_axes=(None, 0))(params, X))
    return -jnp.mean(jnp.take_along_axis(log_probs, y[:, None], axis=1))


def train_step_naive(params, X, y, lr):
    """Correct but slow: a gradient per example, summed in Python, nothing compiled."""
    total, losses = None, []
    for i in range(X.shape[0]):
        loss, grads = jax.value_and_grad(_loss_fn)(params, X[i : i + 1], y[i : i + 1])
        total = grads if total is None else jax.tree.map(jnp.add, total, grads)
        losses.append(loss)
    return jax.tree.map(lambda p, g: p - lr * g / X.shape[0], params, total), jnp.mean(jnp.stack(losses))


# What each speed check times, with the arguments its test cell fixes.
_TIMED: dict[str, Callable[..., Any]] = {
    "01_arrays/pairwise_speed": pairwise_sq_dists_loop,
    "04_jit/recurrence_speed": recurrence_eager,
    # r = 2.5: every start converges to the fixed point 0.6, so a jitted answer's last-bit rounding (fused
    # or not, split across cores or not) fades. At r = 3.2 a start that lands near the repelling point
    # 0.6875 grows an ulp to 4e-4 in 50 steps, and one machine's correct answer "differs" from another's.
    "04_jit/logistic_speed": functools.partial(logistic_map_eager, r=2.5, steps=50),
    "05_vmap/pairwise_speed": pairwise_cosine_loop,
    "07_prng/pi_speed": functools.partial(estimate_pi_loop, n=2000),
    "09_capstone/step_speed": train_step_naive,
}
TIMED = types.MappingProxyType(_TIMED)


def timed(problem: str) -> Callable[..., Any]:
    """The baseline the speed check of `problem` times."""
    try:
        return TIMED[problem]
    except KeyError:
        raise KeyError(f"no baseline for {problem!r} in autograder/checks/baselines.py") from None


__all__ = [
    "estimate_pi_loop",
    "logistic_map_eager",
    "pairwise_cosine_loop",
    "pairwise_sq_dists_loop",
    "recurrence_eager",
    "recurrence_on_host",
    "timed",
    "train_step_naive",
]
