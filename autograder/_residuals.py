"""The residuals of reverse mode, read from a program: shared by the checks and the lectures' helpers.

`jax.vjp` returns the forward pass's residuals inside the function it hands back (a pytree whose
leaves are the saved arrays), so tracing `jax.vjp` shows each one's shape, on any hardware and
without running anything. Needs JAX only; it imports neither side of the package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np
from jax.extend.core import Literal  # pyright: ignore[reportPrivateImportUsage]


def saved_residuals(f: Callable, *args: Any) -> list[tuple[tuple[int, ...], str, int]]:
    """`(shape, dtype, bytes)` of every array the forward pass of `f(*args)` computes and keeps for reverse mode.

    Read from the jaxpr of `jax.vjp(f, *args)`: residuals that are inputs, constants or literals are left out,
    and one array kept twice counts once.
    """
    closed = jax.make_jaxpr(lambda *a: jax.tree.leaves(jax.vjp(f, *a)[1]))(*args)
    produced = {var for eqn in closed.jaxpr.eqns for var in eqn.outvars}
    found, seen = [], set()
    for var in closed.jaxpr.outvars:
        if isinstance(var, Literal) or var not in produced or var in seen:
            continue
        seen.add(var)
        shape, dtype = tuple(getattr(var.aval, "shape", ())), np.dtype(getattr(var.aval, "dtype", np.float32))
        found.append((shape, dtype.name, int(np.prod(shape, dtype=np.int64)) * dtype.itemsize))
    return found
