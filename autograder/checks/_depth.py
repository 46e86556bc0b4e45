"""Depth checks: how many steps a program must take one after another, read from its jaxpr.

A parallel prefix (`lax.associative_scan`) combines `n` elements in `O(log n)` rounds; a
sequential loop needs `n` steps, whether it is a `lax.scan`, a `fori_loop` or a Python loop
unrolled while tracing. Equation counts cannot tell these apart (an unrolled loop and a
parallel prefix both grow with `n`); the longest chain of dependent equations can.

Some single equations hide a chain of their own: a linear-algebra routine (a triangular or
tridiagonal solve, a factorisation) steps through its `n` unknowns one after another, and a
Python callback's work is not in the program at all.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from jax.extend.core import Jaxpr, JaxprEqn, Var  # pyright: ignore[reportPrivateImportUsage]

from ._callbacks import CALLBACKS, refuse_callbacks
from ._errors import CheckFailed, name_of
from ._structure import _sub_jaxprs, _walk, trace
from ._works import Works, confirm_call

# Library routines XLA runs as one operation whose algorithms (substitution, elimination, factorisation)
# take their n unknowns one after another: n steps, n read from the first operand's last axes.
_SEQUENTIAL_LIBRARY = frozenset(
    {"cholesky", "eig", "eigh", "geqp3", "geqrf", "hessenberg", "householder_product", "lu", "qr", "schur", "svd"}
    | {"triangular_solve", "tridiagonal", "tridiagonal_solve", "lu_pivots_to_permutation", "ormqr", "cholesky_update"}
)


def _unknowns(eqn: JaxprEqn) -> int:
    shape = tuple(getattr(eqn.invars[0].aval, "shape", ())) if eqn.invars else ()
    return max(1, min(shape[-2:])) if shape else 1


def _equation_depth(eqn: JaxprEqn) -> float:
    """Steps one equation takes: 1 for a primitive, its body's depth times its length for a `scan`,
    its number of unknowns for a sequential library routine."""
    subs = list(_sub_jaxprs(eqn.params))
    if eqn.primitive.name == "while" or eqn.primitive.name in CALLBACKS:
        return math.inf  # its number of iterations is not known until it runs; a callback's work is not seen
    if eqn.primitive.name in _SEQUENTIAL_LIBRARY:
        return _unknowns(eqn)
    if not subs:
        return 1
    inner = max(jaxpr_depth(sub) for sub in subs)  # a cond's branches: the deepest one
    if eqn.primitive.name == "scan":
        return eqn.params["length"] * max(inner, 1)  # unrolling does not shorten the chain
    return inner


def jaxpr_depth(jaxpr: Jaxpr) -> float:
    """The longest chain of dependent equations in `jaxpr`: a loop counts its body once per step,
    a `while_loop` counts as unbounded (`math.inf`)."""
    ready: dict[Var, float] = {}
    for eqn in jaxpr.eqns:
        start = max((ready.get(v, 0) for v in eqn.invars if isinstance(v, Var)), default=0)
        done = start + _equation_depth(eqn)
        for var in eqn.outvars:
            ready[var] = done
    return max((ready.get(v, 0) for v in jaxpr.outvars if isinstance(v, Var)), default=0)


def _chain_cause(jaxpr: Jaxpr, total: float) -> str:
    """What makes the chain of `jaxpr` long: the loop or library routine holding most of it, else many single steps."""
    candidates = [e for e in _walk(jaxpr) if e.primitive.name == "scan" or e.primitive.name in _SEQUENTIAL_LIBRARY]
    eqn = max(candidates, key=_equation_depth, default=None)
    if eqn is None or _equation_depth(eqn) < total / 2:
        return "its steps run one after another, as a Python loop unrolled while tracing makes them"
    if eqn.primitive.name == "scan":
        return (
            f"most of that chain is a loop of {eqn.params['length']} steps (lax.scan, or a fori_loop, which "
            "becomes one), whose body runs once per step, one after another"
        )
    return (
        f"most of that chain is `{eqn.primitive.name}`, a library routine that is one operation in the program "
        f"but works through its {_unknowns(eqn)} unknowns one after another"
    )


def depth(f: Callable, *args: Any, static_argnums: Sequence[int] = ()) -> float:
    """The depth of the program of `f(*args)` (see `jaxpr_depth`)."""
    return jaxpr_depth(trace(f, *args, static_argnums=static_argnums).jaxpr)


def check_log_depth(
    f: Callable,
    make_args: Callable[[int], tuple],
    sizes: Sequence[int] = (64, 1024),
    *,
    works: Works,
    slack: float = 1.5,
    static_argnums: Sequence[int] = (),
    what: str | None = None,
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that the depth of `f(*make_args(n))` grows like `log n`, not like `n`.

    From the smallest size to the largest, the depth may grow by at most `slack` times the
    ratio of their logarithms (x1.67 from 64 to 1024, so x2.5 with the default slack); a
    sequential loop's grows with `n` itself (x16). A `while_loop` fails outright.
    """
    what = name_of(f, what)
    small, big = min(sizes), max(sizes)
    confirm_call(f, make_args(small), works, what=f"{what} at n={small}", section=section)
    jaxprs = {n: trace(f, *make_args(n), static_argnums=static_argnums, what=what).jaxpr for n in (small, big)}
    hint = hint or "combine elements in pairs with jax.lax.associative_scan, which needs O(log n) rounds."
    found = {eqn.primitive.name for eqn in _walk(jaxprs[big])}
    refuse_callbacks(found, what=what, measures="the depth read from its program", hint=hint, section=section)
    depths = {n: jaxpr_depth(jaxpr) for n, jaxpr in jaxprs.items()}
    if math.isinf(depths[big]) or math.isinf(depths[small]):
        raise CheckFailed(
            f"{what} runs a jax.lax.while_loop, whose number of steps is not known in advance: "
            "it cannot be shown to finish in O(log n) rounds.",
            hint=hint,
            section=section,
        )
    allowed = slack * math.log(big) / math.log(small)
    grew = depths[big] / max(depths[small], 1)
    if grew > allowed:
        raise CheckFailed(
            f"the longest chain of steps in {what} grows from {depths[small]:g} at n={small} to "
            f"{depths[big]:g} at n={big} (x{grew:.1f}, for x{big // small} the size): "
            f"{_chain_cause(jaxprs[big], depths[big])}. O(log n) depth may grow at most x{allowed:.1f} here.",
            hint=hint,
            section=section,
        )
