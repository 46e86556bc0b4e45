"""Why a Pallas kernel's values are wrong, when a check can tell: memory no program wrote, a block of an input
no program reads, or the values of a mistake the test names.

In interpret mode Pallas fills memory no program has written with NaN (an output block outside the grid, an
accumulator read before it was started, a block past the array's end). Run again with that memory set to zero,
such a NaN goes away, while an overflow's stays: that tells the two apart without guessing from the values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Literal

from ._errors import CheckFailed

# A mistake the test knows the values of: what the answer then does (after "it"), its values, and what to try.
Mistake = tuple[str, Callable[[], Any], str]

_NOT_STARTED = (
    "start the sum (the output block or scratch buffer that carries it) at the first step of the reduction "
    "axis, under @pl.when(pl.program_id(axis) == 0), before any program adds to it."
)


def _read(env: dict, var: Any) -> Any:
    return var.val if isinstance(var, Literal) else env[var]


def _zero_filled_call(values: Sequence[Any], params: dict) -> list[Any]:
    """One `pallas_call` run in the interpreter with the memory no program writes set to zero, not NaN."""
    from jax._src.pallas import hlo_interpreter, primitives

    original = primitives.uninitialized_value

    def zero(shape, dtype):
        return jnp.zeros(shape, dtype) if jnp.issubdtype(dtype, jnp.floating) else original(shape, dtype)

    primitives.uninitialized_value = zero
    try:
        kept = {k: v for k, v in params.items() if k != "interpret"}
        return list(hlo_interpreter.pallas_call_hlo_interpret(*values, **kept))
    finally:
        primitives.uninitialized_value = original


def _evaluate(jaxpr: Any, consts: Sequence[Any], args: Sequence[Any]) -> list[Any]:
    """`jaxpr` evaluated eagerly, its pallas_calls (also inside jit) by `_zero_filled_call`."""
    env: dict = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))
    for eqn in jaxpr.eqns:
        values = [_read(env, v) for v in eqn.invars]
        name = eqn.primitive.name
        if name == "pallas_call":
            outs = _zero_filled_call(values, eqn.params)
        elif name in ("jit", "pjit"):
            sub = eqn.params["jaxpr"]
            outs = _evaluate(sub.jaxpr, sub.consts, values)
        else:
            with eqn.ctx.manager:
                outs = eqn.primitive.bind(*values, **eqn.primitive.get_bind_params(eqn.params))
            outs = outs if eqn.primitive.multiple_results else [outs]
        env.update(zip(eqn.outvars, outs, strict=True))
    return [_read(env, v) for v in jaxpr.outvars]


def reads_unwritten_memory(closed: Any, args: Sequence[Any], value: Any) -> bool:
    """Whether the NaN in `value`, the output of the program `closed` on `args`, comes from memory no program
    of its kernels wrote: run with that memory at zero, those positions are finite."""
    leaves = [np.asarray(leaf) for leaf in jax.tree.leaves(value)]
    if not any(np.issubdtype(leaf.dtype, np.floating) and np.isnan(leaf).any() for leaf in leaves):
        return False
    try:
        filled = _evaluate(closed.jaxpr, closed.consts, [a for a in jax.tree.leaves(args)])
    except Exception:  # JAX's interpreter changed, or the program needs more than this evaluator does
        return False
    if len(filled) != len(leaves):
        return False
    return any(
        np.isnan(got).any() and np.isfinite(np.asarray(again)[np.isnan(got)]).all()
        for got, again in zip(leaves, filled, strict=True)
        if np.issubdtype(got.dtype, np.floating) and np.shape(again) == got.shape
    )


def unwritten_memory(what: str, section: str | None) -> CheckFailed:
    return CheckFailed(
        f"{what} holds NaN that no arithmetic made: in interpret mode Pallas fills memory no program has written "
        "with NaN, and your kernel reads some before writing it (with that memory set to zero, these positions "
        "come out as numbers). An accumulator never started is the usual cause: the first program along the "
        "reduction axis adds into an output block or scratch buffer that holds NaN (on a TPU, whatever VMEM held).",
        hint=_NOT_STARTED,
        section=section,
    )


def known_mistake(value: Any, mistakes: Sequence[Mistake], what: str, section: str | None) -> CheckFailed | None:
    """The first of the test's `mistakes` whose values `value` has, as the failure to raise; None if none."""
    got = [np.asarray(leaf, np.float64) for leaf in jax.tree.leaves(value)]
    for cause, wrong, hint in mistakes:
        try:
            expected = [np.asarray(leaf, np.float64) for leaf in jax.tree.leaves(wrong())]
        except Exception:
            continue
        if len(expected) == len(got) and all(
            a.shape == b.shape
            and np.allclose(
                a, b, rtol=1e-3, atol=1e-3 * max(1.0, float(np.nanmax(np.abs(b), initial=0))), equal_nan=True
            )
            for a, b in zip(got, expected, strict=True)
        ):
            return CheckFailed(f"{what} is wrong in a way the test recognises: it {cause}", hint=hint, section=section)
    return None
