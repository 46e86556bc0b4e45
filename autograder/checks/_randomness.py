"""Checks for random programs: keys used once, reproducible, and statistically right."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from ._errors import CheckFailed, name_of
from ._works import Works, confirm


def check_no_key_reuse(
    f: Callable, *args: Any, works: Works, what: str | None = None, section: str | None = None
) -> Any:
    """Run `f(*args)` with `jax_debug_key_reuse` on and fail if it consumes a key twice.

    JAX tracks only typed keys (`jax.random.key`), so pass those. `works` confirms the result,
    which is returned.
    """
    what = name_of(f, what)
    try:
        with jax.debug_key_reuse(True):
            value = jax.block_until_ready(f(*args))
    except jax.errors.KeyReuseError as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "a key was consumed twice"
        raise CheckFailed(
            f"{what} uses the same PRNG key more than once (JAX's key-reuse checker says: {first}). "
            "Two draws from one key are not independent: they repeat or correlate.",
            hint="split the key (jax.random.split(key, n)) and give every draw its own subkey; "
            "never use a key again after splitting it.",
            section=section,
        ) from None
    confirm(value, works, what=what, section=section)
    return value


def check_reproducible(
    f: Callable,
    key: jax.Array,
    other_key: jax.Array,
    *args: Any,
    works: Works,
    what: str | None = None,
    section: str | None = None,
) -> None:
    """Check that `f(key, *args)` gives the same answer every time and `f(other_key, *args)` another one.

    Answers with few possible values (an estimate from 2000 points) can coincide by chance, both
    ways: so "the same" means four calls with `key`, each traced anew, agree (an answer that ignores its key passes
    that about as often as it draws one value four times), and "another one" means not the same for
    `other_key` and two keys folded from it.
    """
    what = name_of(f, what)
    answer = jax.block_until_ready(f(key, *args))
    first = jax.tree.map(np.asarray, answer)

    def same(a: Any, b: Any) -> bool:
        la, lb = jax.tree.leaves(a), jax.tree.leaves(b)
        return len(la) == len(lb) and all(
            x.shape == y.shape and np.array_equal(x, y, equal_nan=True) for x, y in zip(la, lb, strict=False)
        )

    # A key that is not used is the cause of any wrong value it comes with: said before the values.
    if all(
        same(first, jax.tree.map(np.asarray, f(k, *args)))
        for k in (other_key, jax.random.fold_in(other_key, 1), jax.random.fold_in(other_key, 2))
    ):
        raise CheckFailed(
            f"{what} gave the same answer for three different keys: it does not use its key.",
            hint="draw the random numbers from the key that is passed in (a shuffle too: "
            "jax.random.permutation(key, n)).",
            section=section,
        )
    confirm(answer, works, what=what, section=section)

    def again() -> Any:
        # Traced anew, as in a new session: a value read while tracing (the clock, np.random) then differs.
        jax.clear_caches()
        return jax.tree.map(np.asarray, f(key, *args))

    if not all(same(first, again()) for _ in range(3)):
        raise CheckFailed(
            f"{what} gave different answers for the same key, so its results cannot be reproduced.",
            hint="draw every random number from the key argument with jax.random (not np.random, not the "
            "clock, not a key kept outside the function); a value read while tracing changes in every session.",
            section=section,
        )


def check_within_sigmas(
    estimate: Any,
    expected: float,
    standard_error: float,
    *,
    sigmas: float = 6.0,
    what: str = "your estimate",
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that a random `estimate` lies within `sigmas` standard errors of `expected`.

    A correct estimator fails at 6 sigmas with probability about 2e-9, so a
    failure means a mistake, not bad luck.
    """
    value = np.asarray(estimate)
    if value.shape != () or not np.issubdtype(value.dtype, np.number):
        raise CheckFailed(
            f"{what} should be one number, but it has shape {value.shape} and dtype {value.dtype}.", section=section
        )
    value = float(value)
    off = abs(value - expected) / standard_error
    if not math.isfinite(value) or off > sigmas:
        raise CheckFailed(
            f"{what} is {value:.6g}, {off:.1f} standard errors from {expected:.6g}; a correct answer "
            f"lies within {sigmas:g} (one standard error is {standard_error:.3g}).",
            hint=hint,
            section=section,
        )


def check_independent_rows(samples: Any, *, what: str = "your samples", section: str | None = None) -> None:
    """Check that the rows of a 2-d sample look independent of each other.

    No two rows may be equal, and no two rows may correlate more than six
    standard errors (`6 / sqrt(columns)`) would allow for independent rows.
    """
    x = np.asarray(samples, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 8:
        raise CheckFailed(
            f"{what} should have shape (batch, d) with batch >= 2 and d >= 8, not {x.shape}.", section=section
        )
    hint = "give every row its own key: keys = jax.random.split(key, batch), then jax.vmap over keys."
    _, first = np.unique(x, axis=0, return_index=True)
    if len(first) < x.shape[0]:
        repeated = sorted(set(range(x.shape[0])) - set(first.tolist()))
        raise CheckFailed(
            f"rows of {what} repeat (row {repeated[0]} equals an earlier row): they were drawn with the same key.",
            hint=hint,
            section=section,
        )
    centred = x - x.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(centred, axis=1)
    if np.any(norms == 0):
        raise CheckFailed(
            f"some rows of {what} are constant, so they are not random samples.", hint=hint, section=section
        )
    corr = (centred / norms[:, None]) @ (centred / norms[:, None]).T
    np.fill_diagonal(corr, 0.0)
    i, j = np.unravel_index(np.argmax(np.abs(corr)), corr.shape)
    bound = 6.0 / math.sqrt(x.shape[1])
    if abs(corr[i, j]) > bound:
        raise CheckFailed(
            f"rows {i} and {j} of {what} correlate ({corr[i, j]:+.2f}; independent rows stay within ±{bound:.2f}).",
            hint=hint,
            section=section,
        )
