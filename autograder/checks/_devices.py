"""Devices: collectives read from the program, and the layout of arrays across devices."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from ._diagnose import on_one_device
from ._errors import CheckFailed, name_of
from ._structure import _walk, trace
from ._works import Works, confirm, confirm_call

# Where JAX 0.12 defines `jax.pmap`: an operation it staged has this file among its traceback's frames.
_PMAP_SOURCE = "jax/_src/pmap.py"


def uses_pmap(eqns: list[Any]) -> bool:
    """Whether any of these equations was staged by `jax.pmap` (since JAX 0.10 pmap is a jit around a shard_map,
    so its equations are told apart only by where they were made)."""
    for eqn in eqns:
        traceback = eqn.source_info.traceback
        if traceback is not None and any(_PMAP_SOURCE in frame.file_name for frame in traceback.frames):
            return True
    return False


def collectives(f: Callable, *args: Any, static_argnums: Sequence[int] = ()) -> set[tuple[str, str]]:
    """`{(collective, axis name)}` used by the program of `f(*args)`, such as `("psum", "data")`.

    Inside `shard_map` JAX 0.12 writes `psum` as `psum_invariant`; both count as `psum`.
    """
    return _collectives(list(_walk(trace(f, *args, static_argnums=static_argnums).jaxpr)))


def _collectives(eqns: list[Any]) -> set[tuple[str, str]]:
    found = set()
    for eqn in eqns:
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
    eqns = list(_walk(trace(f, *args, static_argnums=static_argnums).jaxpr))
    found = _collectives(eqns)
    if any(name == kind and (over is None or axis == over) for name, axis in found):
        return
    used = ", ".join(f"{name} over {axis!r}" for name, axis in sorted(found)) or "no collective at all"
    target = f"{kind} over the mesh axis {over!r}" if over else kind
    older = (
        " It is written with jax.pmap, the older interface, whose collectives run over pmap's own axis and "
        "devices, not the mesh's: the lecture teaches jax.shard_map over the mesh instead "
        "(jax.shard_map(f, mesh=mesh, in_specs=..., out_specs=...), with the collective over mesh.axis_names[0])."
        if over is not None and uses_pmap(eqns)
        else ""
    )
    raise CheckFailed(
        f"{what} should combine the devices' values with {target}, but it uses {used}.{older}",
        hint=hint,
        section=section,
    )


def check_sharding(
    x: Any,
    expected: jax.sharding.Sharding,
    *,
    works: Works,
    what: str = "your result",
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that array `x` is laid out across devices as `expected` says, once `works` confirms its values."""
    confirm(x, works, what=what, section=section)
    actual = getattr(x, "sharding", None)
    if actual is None:
        raise CheckFailed(
            f"{what} is not a JAX array (it is a {type(x).__name__}), so it has no sharding.",
            hint="build it with JAX (jnp operations, jax.jit or jax.device_put), not NumPy, so that it lives on the "
            "devices.",
            section=section,
        )
    if not actual.is_equivalent_to(expected, np.ndim(x)):
        spec = getattr(expected, "spec", expected)
        failure = CheckFailed(
            f"{what} is laid out as {actual}, not as requested ({spec}).",
            hint=hint
            or "ask jit for it with out_shardings=NamedSharding(mesh, P(...)), or move the result with "
            "jax.device_put / jax.reshard.",
            section=section,
        )
        raise on_one_device(failure, actual, section)
