"""Helpers the lectures share, imported as `from autograder.lecture import time_min, ...`.

They live in the installed package so that a lecture opened on Colab, where only the package is
installed, finds them too. This module needs JAX and NumPy only; neither the checks nor the
grading tools import it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import jax
import numpy as np
from jax.extend.core import Jaxpr, JaxprEqn, Literal, jaxprs_in_params  # pyright: ignore[reportPrivateImportUsage]

__all__ = ["largest_array", "primitive_names", "residual_bytes", "time_min"]


def time_min(f: Callable[..., Any], *args: Any, repeats: int = 5, block: bool = True) -> float:
    """Minimum wall-clock time of f(*args) in seconds, after one warm-up call."""
    jax.block_until_ready(f(*args))  # warm-up (compilation, caches)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = f(*args)
        if block:
            jax.block_until_ready(out)
        best = min(best, time.perf_counter() - t0)
        jax.block_until_ready(out)  # never let unfinished work pile up
    return best


def primitive_names(jaxpr: Jaxpr) -> list[str]:
    """Primitive names of `jaxpr` in program order, descending into nested jaxprs (jit, loops, branches)."""
    names = []
    for eqn in jaxpr.eqns:
        names.append(eqn.primitive.name)
        for sub in jaxprs_in_params(eqn.params):
            names.extend(primitive_names(sub))
    return names


def _equations(jaxpr: Jaxpr) -> Iterator[JaxprEqn]:
    """Every equation of `jaxpr` in program order, each followed by those of the jaxprs nested in it."""
    for eqn in jaxpr.eqns:
        yield eqn
        for sub in jaxprs_in_params(eqn.params):
            yield from _equations(sub)


def largest_array(fn: Callable[..., Any], *args: Any) -> tuple[int, ...]:
    """The largest output shape of any equation in the jaxpr of fn(*args), nested jaxprs included."""
    shapes = (
        tuple(getattr(var.aval, "shape", ()))
        for eqn in _equations(jax.make_jaxpr(fn)(*args).jaxpr)
        for var in eqn.outvars
    )
    return max(shapes, key=lambda shape: int(np.prod(shape, dtype=np.int64)), default=())


def residual_bytes(fn: Callable[..., Any], *args: Any) -> int:
    """Bytes of the arrays the forward pass of fn(*args) computes and keeps for reverse mode.

    Read from the jaxpr of `jax.vjp(fn, *args)`, whose returned function holds the residuals as
    its leaves; inputs and constants it keeps cost nothing extra and are not counted.
    """
    closed = jax.make_jaxpr(lambda *a: jax.tree.leaves(jax.vjp(fn, *a)[1]))(*args)
    produced = {var for eqn in closed.jaxpr.eqns for var in eqn.outvars}
    kept = {var for var in closed.jaxpr.outvars if not isinstance(var, Literal) and var in produced}
    sizes = [(getattr(var.aval, "shape", ()), np.dtype(getattr(var.aval, "dtype", np.float32))) for var in kept]
    return sum(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize for shape, dtype in sizes)
