"""A program's size, read from its trace before anything compiles it.

A Python loop inside `jax.jit` is unrolled: every iteration becomes operations of one
program, and compiling thousands of them takes minutes. Tracing takes about a second,
so the checks that compile or time a student's function look first, and refuse a
compiled program far larger than a good answer's for the same inputs. The good
answer's size is recorded from the solutions with the reference outputs.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import numpy as np

from ._errors import CheckFailed
from ._reference import _RECORD_DIR, load_reference, record_reference
from ._structure import _sub_jaxprs, _walk

# Refused above this many times a good answer's size, and this many operations more.
_TIMES, _MORE = 20, 400


def compiled_size(f: Callable, args: tuple) -> int | None:
    """Operations in the largest piece of `f(*args)` compiled as one program (None if it cannot be traced).

    Array arguments are traced; Python numbers stay as they are, since they often
    size the program (a static `n`). Eager operations compile one by one and do not count.
    """
    traced = [i for i, a in enumerate(args) if isinstance(a, (jax.Array, np.ndarray))]

    def with_arrays(*arrays):
        full = list(args)
        for i, array in zip(traced, arrays, strict=True):
            full[i] = array
        return f(*full)

    try:
        jaxpr = jax.make_jaxpr(with_arrays)(*[args[i] for i in traced])
    except Exception:  # NumPy code, a shape error: the measurement that follows says what is wrong
        return None
    sizes = [sum(1 for _ in _walk(sub)) for eqn in _walk(jaxpr.jaxpr) if eqn.primitive.name in ("jit", "pjit")
             for sub in _sub_jaxprs(eqn.params)]  # fmt: skip
    return max(sizes, default=0)


def _record_name(problem: str) -> str:
    return f"{problem}_program"


def check_compiled_size(f: Callable, args: tuple, problem: str, *, what: str, section: str | None = None) -> None:
    """Refuse, before compiling, a program far larger than a good answer's for these inputs."""
    size = compiled_size(f, args)
    if _RECORD_DIR is not None:
        if size is not None:
            record_reference(_record_name(problem), np.int64(size), _RECORD_DIR)
        return
    try:
        (good,), _, _ = load_reference(_record_name(problem))
    except (FileNotFoundError, ValueError):
        return  # not one of the course's problems, or its size was never recorded: nothing to compare with
    good = int(good)
    if size is not None and size > max(_TIMES * good, good + _MORE):
        needed = "a few" if good < 10 else f"about {good:,}"
        raise CheckFailed(
            f"{what} is compiled as one program of {size:,} operations for these inputs, where a good answer "
            f"needs {needed}: a Python loop inside jax.jit is unrolled, one copy of its body per "
            "iteration, and compiling that would take minutes, so it was not run.",
            hint="replace the Python loop: vectorise it (broadcasting, jax.vmap), or, for steps that depend on each "
            "other, write it with jax.lax.fori_loop or jax.lax.scan, so that its body is compiled once.",
            section=section,
        )
