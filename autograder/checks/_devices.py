"""Devices: collectives read from the program, and the layout of arrays across devices."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from ._errors import CheckFailed, name_of
from ._structure import _walk, trace
from ._works import Works, confirm, confirm_call


def collectives(f: Callable, *args: Any, static_argnums: Sequence[int] = ()) -> set[tuple[str, str]]:
    """`{(collective, axis name)}` used by the program of `f(*args)`, such as `("psum", "data")`.

    Inside `shard_map` JAX 0.12 writes `psum` as `psum_invariant`; both count as `psum`.
    """
    found = set()
    for eqn in _walk(trace(f, *args, static_argnums=static_argnums).jaxpr):
        name = eqn.primitive.name.removesuffix("_invariant")
        axes = eqn.params.get("axes", eqn.params.get("axis_name"))
        if (
            name in ("psum", "pmax", "pmin", "all_gather", "ppermute", "all_to_all", "reduce_scatter")
            and axes is not None
        ):
            for axis in axes if isinstance(axes, (tuple, list)) else (axes,):
                if isinstance(axis, str):
                    found.add((name, axis))
    return found


def check_collective(
    f: Callable,
    *args: Any,
    kind: str = "psum",
    over: str | None = None,
    works: Works,
    static_argnums: Sequence[int] = (),
    what: str | None = None,
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that `f(*args)` combines values across devices with collective `kind`
    (`psum` also covers `pmean`), over mesh axis `over` when given.
    """
    what = name_of(f, what)
    confirm_call(f, args, works, what=what, section=section)
    found = collectives(f, *args, static_argnums=static_argnums)
    if any(name == kind and (over is None or axis == over) for name, axis in found):
        return
    used = ", ".join(f"{name} over {axis!r}" for name, axis in sorted(found)) or "no collective at all"
    target = f"{kind} over the mesh axis {over!r}" if over else kind
    raise CheckFailed(
        f"{what} should combine the devices' values with {target}, but it uses {used}.", hint=hint, section=section
    )


def check_sharding(
    x: Any, expected: jax.sharding.Sharding, *, works: Works, what: str = "your result", section: str | None = None
) -> None:
    """Check that array `x` is laid out across devices as `expected` says, once `works` confirms its values."""
    confirm(x, works, what=what, section=section)
    actual = getattr(x, "sharding", None)
    if actual is None:
        raise CheckFailed(
            f"{what} is not a JAX array (it is a {type(x).__name__}), so it has no sharding.", section=section
        )
    if not actual.is_equivalent_to(expected, np.ndim(x)):
        spec = getattr(expected, "spec", expected)
        raise CheckFailed(
            f"{what} is laid out as {actual}, not as requested ({spec}).",
            hint="ask jit for it with out_shardings=NamedSharding(mesh, P(...)), or move the result with "
            "jax.device_put / jax.reshard.",
            section=section,
        )
