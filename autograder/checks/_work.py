"""How much work a program does on given inputs: its operations counted as they run.

A loop that stops when its element is done runs its body little for an input that is done at
once and often for one that needs many steps. A loop of a fixed number of steps runs it as often
for both, and so does a fixed loop dressed up with a `while_loop` for show. Evaluating the jaxpr
one equation at a time, each `while_loop` and `cond` as it goes, counts the operations each input
really runs, without timing anything. Work done where the count cannot see it, in a Python
callback or in a table of answers computed ahead, is refused rather than counted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np
from jax.extend.core import Jaxpr, Literal  # pyright: ignore[reportPrivateImportUsage]

from ._callbacks import refuse_callbacks
from ._errors import CheckFailed, name_of
from ._structure import _sub_jaxprs, _walk, trace
from ._works import Works, confirm_call

# Primitives that only wrap a jaxpr and call it on their own inputs: their body runs once, as it is.
_WRAPPERS = frozenset(
    {"jit", "pjit", "closed_call", "core_call", "remat2", "checkpoint", "custom_jvp_call", "custom_vjp_call"}
)


def _run(jaxpr: Jaxpr, args: Sequence[Any], counter: list[int]) -> list[Any]:
    """The outputs of `jaxpr` on `args`, adding the operations it runs to `counter[0]`."""
    env: dict[Any, Any] = dict(zip(jaxpr.constvars, getattr(jaxpr, "consts", ()), strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))
    for eqn in jaxpr.eqns:
        values = [v.val if isinstance(v, Literal) else env[v] for v in eqn.invars]
        env.update(zip(eqn.outvars, _run_equation(eqn, values, counter), strict=True))
    return [v.val if isinstance(v, Literal) else env[v] for v in jaxpr.outvars]


def _run_equation(eqn: Any, args: list[Any], counter: list[int]) -> list[Any]:
    name, params = eqn.primitive.name, eqn.params
    if name == "while":
        cond_consts, rest = args[: params["cond_nconsts"]], args[params["cond_nconsts"] :]
        body_consts, carry = rest[: params["body_nconsts"]], rest[params["body_nconsts"] :]
        while bool(_run(params["cond_jaxpr"], [*cond_consts, *carry], counter)[0]):
            carry = _run(params["body_jaxpr"], [*body_consts, *carry], counter)
        return carry
    if name == "cond":
        return _run(params["branches"][int(args[0])], args[1:], counter)
    subs = list(_sub_jaxprs(params))
    if name in _WRAPPERS and len(subs) == 1 and len(subs[0].invars) == len(args):
        return _run(subs[0], args, counter)
    # Anything else (a scan, a fori_loop): run as one, counted by its size, times its length for a loop.
    counter[0] += max(1, sum(1 for sub in subs for _ in _walk(sub))) * int(params.get("length", 1))
    out = eqn.primitive.bind(*args, **params)
    return list(out) if eqn.primitive.multiple_results else [out]


def operations_run(f: Callable, *args: Any) -> int:
    """How many operations `f(*args)` runs: each loop's body counted every time it runs (a `scan`'s
    by its length), the branch a `cond` takes and not the other."""
    counter = [0]
    _run(trace(f, *args).jaxpr, jax.tree.leaves(args), counter)
    return counter[0]


def _largest_constant(jaxpr: Jaxpr) -> tuple[int, tuple[int, ...]]:
    """The most elements any array the program holds as a constant has, and its shape."""
    best: tuple[int, tuple[int, ...]] = (0, ())
    for value in [
        *getattr(jaxpr, "consts", ()),
        *(v.val for e in jaxpr.eqns for v in e.invars if isinstance(v, Literal)),
    ]:
        shape = tuple(np.shape(value))
        best = max(best, (int(np.prod(shape, dtype=np.int64)), shape))
    for eqn in jaxpr.eqns:
        for sub in (v for item in eqn.params.values() for v in (item if isinstance(item, tuple) else (item,))):
            if isinstance(sub, Jaxpr):
                best = max(best, _largest_constant(sub))
    return best


def check_work_grows(
    f: Callable,
    small: tuple,
    large: tuple,
    *,
    factor: float,
    works: Works,
    max_constant: int = 256,
    what: str | None = None,
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that `f(*small)` runs at most `1 / factor` of the operations `f(*large)` runs.

    For a loop whose length depends on the data: an input that needs no steps must cost next to
    nothing, one that needs many must cost more. A Python callback, or a constant array of more than
    `max_constant` elements (a table of answers), would hide the work: both fail. `works` confirms
    the values of `f(*large)`.
    """
    what = name_of(f, what)
    confirm_call(f, large, works, what=f"{what}{_shown(large)}", section=section)
    jaxpr = trace(f, *large, what=what).jaxpr
    refuse_callbacks(
        {eqn.primitive.name for eqn in _walk(jaxpr)}, what=what, measures="the work counted", hint=hint, section=section
    )
    size, shape = _largest_constant(jaxpr)
    if size > max_constant:
        raise CheckFailed(
            f"{what} holds a constant array of shape {shape} ({size:,} elements), made before it runs: a table of "
            "answers computed ahead of time is not a loop, and it ends where the table ends.",
            hint=hint,
            section=section,
        )
    light, heavy = operations_run(f, *small), operations_run(f, *large)
    if light * factor > heavy:
        raise CheckFailed(
            f"{what}{_shown(small)} runs {light:,} operations and {what}{_shown(large)} {heavy:,} (each loop's body "
            f"counted every time it runs): the first should be at least {factor:g} times cheaper, since it has next "
            "to nothing to do. The loop runs a fixed number of steps, not until the work is done.",
            hint=hint,
            section=section,
        )


def _shown(args: tuple) -> str:
    """`(1, 27)` for small arguments, their shapes for arrays."""
    parts = [str(np.asarray(a).tolist()) if np.size(a) <= 4 else f"<array of shape {np.shape(a)}>" for a in args]
    return f"({', '.join(parts)})"
