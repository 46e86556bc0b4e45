"""Inputs no timed call has seen: a function that remembers earlier results gains nothing.

Floating-point values are scaled element by element by up to 1%, typed PRNG keys are
folded with the call's number; integers and non-numbers (sizes, indices, static
arguments) pass through unchanged.
"""

from __future__ import annotations

import itertools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

# Golden-ratio steps spread the per-call offsets evenly over [0, 1), never repeating.
_PHI = 0.6180339887498949
# At most this many bytes of fresh inputs are held for one block.
_FRESH_BYTES = 256 * 2**20
# Numbers the calls of every measurement in this process: a re-measurement, or the hidden
# test's timing after the visible one, never repeats an input an earlier one used.
_call_numbers = itertools.count(1)


@jax.jit
def _rescale(x, pattern, offset):
    # Each element scaled by a factor in (0.99, 1]: values stay in the input's range (probabilities
    # stay probabilities), and no two calls see the same array, not even up to a common factor.
    factor = 1.0 - 0.01 * jnp.mod(pattern + offset, 1.0)
    return x * factor.astype(x.dtype)


def _is_key(x: Any) -> bool:
    return isinstance(x, jax.Array) and jnp.issubdtype(x.dtype, jax.dtypes.prng_key)


def _varies(x: Any) -> bool:
    if isinstance(x, float):
        return True
    if isinstance(x, (jax.Array, np.ndarray)):
        return _is_key(x) or np.issubdtype(x.dtype, np.inexact)
    return False


class fresh_inputs:
    """Copies of `args` that differ from each other and from `args` (see the module docstring).

    Integer arrays, Python ints and anything that is not a number are passed through
    unchanged: they often mean a size, an index or a static argument.
    """

    def __init__(self, args: tuple):
        self.leaves, self.tree = jax.tree.flatten(args)
        rng = np.random.default_rng(len(self.leaves))
        self.patterns = {}
        for i, leaf in enumerate(self.leaves):
            if _varies(leaf) and not _is_key(leaf) and not isinstance(leaf, float):
                pattern = rng.random(np.shape(leaf)).astype(np.float32)
                self.patterns[i] = jax.device_put(pattern, leaf.sharding) if isinstance(leaf, jax.Array) else pattern
        nbytes = sum(getattr(leaf, "nbytes", 8) for leaf in self.leaves if _varies(leaf))
        self.most = max(1, min(4096, _FRESH_BYTES // max(nbytes, 1)))

    def _leaf(self, i: int, leaf: Any, k: int) -> Any:
        if not _varies(leaf):
            return leaf
        if _is_key(leaf):
            return jax.random.fold_in(leaf, k)
        offset = (k * _PHI) % 1.0  # in float64: exact enough for millions of calls
        if isinstance(leaf, float):
            return leaf * (1.0 - 0.01 * offset)
        if isinstance(leaf, np.ndarray):
            factor = 1.0 - 0.01 * np.mod(self.patterns[i] + offset, 1.0)
            return (leaf * factor).astype(leaf.dtype)
        return _rescale(leaf, self.patterns[i], np.float32(offset))

    def take(self, n: int) -> list[tuple]:
        """`n` new argument tuples (at most `self.most`), computed and ready before any is timed."""
        batch = []
        for _ in range(min(n, self.most)):
            k = next(_call_numbers)
            leaves = [self._leaf(i, leaf, k) for i, leaf in enumerate(self.leaves)]
            batch.append(jax.tree.unflatten(self.tree, leaves))
        return jax.block_until_ready(batch)
