"""A call's inputs: drawn as its hidden test draws them (the verifier, and the recording of references),
or described by shape and dtype alone (the kernel, which exports the answer for them)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jax
import numpy as np

from .._verified import Arg, Call, Problem
from ..checks._seeds import grader_rng


def _key_dtype() -> Any:
    """A typed key's dtype, asked for only when needed: at import it would start JAX's backends before the
    verifier sets its device count."""
    return jax.eval_shape(lambda: jax.random.key(0)).dtype


def _draw(arg: Arg, rng: np.random.Generator) -> Any:
    if arg.draw == "tree":
        return {name: _draw(leaf, rng) for name, leaf in arg.tree}
    if arg.draw == "key":
        return jax.random.key(int(rng.integers(0, 2**31 - 1)))
    if arg.draw == "integers":
        low, high = (int(p) for p in arg.params)
        return np.asarray(rng.integers(low, high, size=arg.shape), dtype=arg.dtype)
    return np.asarray(getattr(rng, arg.draw)(*arg.params, size=arg.shape), dtype=arg.dtype)


def draw(call: Call, rng: np.random.Generator) -> tuple:
    """The call's inputs, drawn from `rng` in order (a dict's entries by sorted key)."""
    return tuple(_draw(arg, rng) for arg in call.args)


def drawn(problem: Problem) -> Iterator[tuple[Call, tuple]]:
    """Each call of `problem` with its inputs, drawn in order from the problem's generator: the verifier and
    the recording of its references must see the same inputs, so both draw them here."""
    rng = grader_rng(problem.draws_from)
    for call in problem.calls:
        yield call, draw(call, rng)


def _aval(arg: Arg) -> Any:
    if arg.draw == "tree":
        return {name: _aval(leaf) for name, leaf in arg.tree}
    return jax.ShapeDtypeStruct(arg.shape, _key_dtype() if arg.draw == "key" else arg.dtype)


def avals(call: Call) -> tuple:
    """The call's inputs as shapes and dtypes, what `jax.export` needs."""
    return tuple(_aval(arg) for arg in call.args)


def signature(call: Call) -> list[tuple[tuple[int, ...], str]]:
    """Each input leaf's shape and dtype, in the order an exported program lists them."""
    return [(tuple(a.shape), str(a.dtype)) for a in jax.tree.leaves(avals(call))]
