"""Structural checks: what a program is, read from its jaxpr, on any hardware."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import jax
import jax.extend
import numpy as np
from jax.extend.core import ClosedJaxpr, Jaxpr  # pyright: ignore[reportPrivateImportUsage]

from ._callbacks import refuse_callbacks
from ._diagnose import at_running_test, current_set, mistake_of
from ._errors import CheckFailed, name_of
from ._works import Works, confirm_call

_TRACER_ERRORS = (
    jax.errors.TracerArrayConversionError,
    jax.errors.ConcretizationTypeError,
    jax.errors.TracerBoolConversionError,
    jax.errors.TracerIntegerConversionError,
)


def _sub_jaxprs(params: dict) -> Iterable[Jaxpr]:
    for value in params.values():
        for item in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(item, ClosedJaxpr):
                yield item.jaxpr
            elif isinstance(item, Jaxpr):
                yield item


def _walk(jaxpr: Jaxpr) -> Iterable[Any]:
    for eqn in jaxpr.eqns:
        yield eqn
        for sub in _sub_jaxprs(eqn.params):
            yield from _walk(sub)


@contextmanager
def _tracing(what: str) -> Iterator[None]:
    """Turn JAX's error for code that cannot be traced into a `CheckFailed` that names the mistake."""
    try:
        yield
    except CheckFailed:
        raise
    except Exception as error:
        if "Leaked trace" in str(error):  # found by jax.checking_leaks, which check_pure runs and names
            raise
        # NumPy reports a traced value stored into its array (`a[0] = x`) as a ValueError caused by one of JAX's.
        mistake = at_running_test(error) or mistake_of(error)
        cause = next((e for e in (error, error.__cause__) if isinstance(e, _TRACER_ERRORS)), None)
        if mistake is None and cause is None:
            raise
        raise CheckFailed(
            f"{what} cannot be traced by JAX ({type(cause or error).__name__}), so it cannot be jitted or "
            f"transformed: {mistake.cause if mistake else 'it needs a concrete value where JAX has a traced one.'}",
            hint=mistake.hint if mistake else "write it with jnp and jax.lax only, not NumPy or Python numbers.",
            section=mistake.section(current_set()) if mistake else None,
        ) from None


def trace(f: Callable, *args: Any, static_argnums: Sequence[int] = (), what: str | None = None) -> ClosedJaxpr:
    """The jaxpr of `f(*args)`, or a `CheckFailed` that says why it cannot be traced."""
    what = name_of(f, what)
    with _tracing(what):
        return jax.make_jaxpr(f, static_argnums=tuple(static_argnums))(*args)


def primitives(f: Callable, *args: Any, static_argnums: Sequence[int] = ()) -> set[str]:
    """Names of every primitive in the jaxpr of `f(*args)`, nested jaxprs included."""
    return {eqn.primitive.name for eqn in _walk(trace(f, *args, static_argnums=static_argnums).jaxpr)}


def equation_count(f: Callable, *args: Any, static_argnums: Sequence[int] = ()) -> int:
    """How many equations the jaxpr of `f(*args)` has, nested jaxprs included."""
    return sum(1 for _ in _walk(trace(f, *args, static_argnums=static_argnums).jaxpr))


def is_jitted(f: Callable, *args: Any) -> bool:
    """True if `f` is a `jax.jit` function, or (given args) its whole jaxpr is one `jit` call."""
    if isinstance(f, jax.stages.Wrapped):
        return True
    if not args:
        return False
    eqns = trace(f, *args).jaxpr.eqns
    return len(eqns) == 1 and eqns[0].primitive.name == "jit"


def check_traceable(
    f: Callable,
    *args: Any,
    works: Works,
    static_argnums: Sequence[int] = (),
    what: str | None = None,
    section: str | None = None,
) -> None:
    """Check that JAX can trace `f(*args)`, as `jit`, `vmap` and `grad` must: jnp and lax, not NumPy.

    Every property check first confirms the values of `f(*args)` with `works` (`_works.py`); an `f` that
    traces as it runs (a `jax.vmap` or `jax.jit` of the answer) fails there, and is told why.
    """
    what = name_of(f, what)
    with _tracing(what):
        confirm_call(f, args, works, what=what, section=section)
    trace(f, *args, static_argnums=static_argnums, what=what)


def check_jitted(f: Callable, *args: Any, works: Works, what: str | None = None, section: str | None = None) -> None:
    """Check that `f` is compiled as a whole with `jax.jit`."""
    what = name_of(f, what)
    confirm_call(f, args, works, what=what, section=section)
    if not is_jitted(f, *args):
        raise CheckFailed(
            f"{what} is not jitted.",
            hint="decorate it with @jax.jit (use static_argnames for arguments that fix shapes).",
            section=section,
        )


def check_jaxpr_constant(
    f: Callable,
    make_args: Callable[[int], tuple],
    sizes: Sequence[int] = (8, 64),
    *,
    works: Works,
    static_argnums: Sequence[int] = (),
    what: str | None = None,
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that the jaxpr of `f(*make_args(n))` has as many equations for every `n`.

    A Python loop over `n` is unrolled while tracing and grows the program with
    `n`; `lax.fori_loop`, `lax.scan` and vectorised code do not. A Python loop moved into a
    callback does not either, so callbacks fail. `works` confirms the values at the first size.
    """
    what = name_of(f, what)
    confirm_call(f, make_args(sizes[0]), works, what=f"{what} at n={sizes[0]}", section=section)
    jaxprs = {n: trace(f, *make_args(n), static_argnums=static_argnums, what=what).jaxpr for n in sizes}
    found = {eqn.primitive.name for eqn in _walk(jaxprs[sizes[0]])}
    refuse_callbacks(found, what=what, measures="the size of its program", hint=hint, section=section)
    counts = {n: sum(1 for _ in _walk(jaxpr)) for n, jaxpr in jaxprs.items()}
    if len(set(counts.values())) > 1:
        shown = ", ".join(f"{c} for n={n}" for n, c in counts.items())
        raise CheckFailed(
            f"the program JAX traces from {what} grows with the problem size ({shown} equations): "
            "a Python loop is being unrolled.",
            hint=hint or "replace the Python loop with jax.lax.fori_loop or jax.lax.scan, or vectorise it.",
            section=section,
        )


def check_primitives(
    f: Callable,
    *args: Any,
    contains: Iterable[str] = (),
    avoids: Iterable[str] = (),
    only: Iterable[str] | None = None,
    works: Works,
    static_argnums: Sequence[int] = (),
    what: str | None = None,
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that the jaxpr of `f(*args)` uses every primitive in `contains`, none in
    `avoids`, and (when `only` is given) nothing outside `only`.
    """
    what = name_of(f, what)
    confirm_call(f, args, works, what=what, section=section)
    found = primitives(f, *args, static_argnums=static_argnums)
    if only is not None:
        others = sorted(found - set(only))
        if others:
            raise CheckFailed(
                f"{what} uses {', '.join(others)}, but should need only {', '.join(sorted(set(only)))}.",
                hint=hint,
                section=section,
            )
    missing = sorted(set(contains) - found)
    if missing:
        raise CheckFailed(
            f"{what} never uses {', '.join(missing)} (its program uses: {', '.join(sorted(found)) or 'nothing'}).",
            hint=hint,
            section=section,
        )
    present = sorted(set(avoids) & found)
    if present:
        raise CheckFailed(
            f"{what} uses {', '.join(present)}, which this exercise rules out.", hint=hint, section=section
        )


def largest_intermediate(
    f: Callable, *args: Any, static_argnums: Sequence[int] = ()
) -> tuple[int, tuple[int, ...], str]:
    """The largest array the program of `f(*args)` builds: `(elements, shape, primitive)`.

    Read from the jaxpr (nested jaxprs included), so it says what the program
    would allocate on any backend without running it.
    """
    best: tuple[int, tuple[int, ...], str] = (0, (), "")
    for eqn in _walk(trace(f, *args, static_argnums=static_argnums).jaxpr):
        for var in eqn.outvars:
            shape = tuple(getattr(var.aval, "shape", ()))
            size = int(np.prod(shape, dtype=np.int64)) if shape else 1
            if size > best[0]:
                best = (size, shape, eqn.primitive.name)
    return best


def check_largest_intermediate(
    f: Callable,
    *args: Any,
    max_elements: int,
    works: Works,
    static_argnums: Sequence[int] = (),
    what: str | None = None,
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that no array the program of `f(*args)` builds has more than `max_elements` elements."""
    what = name_of(f, what)
    confirm_call(f, args, works, what=what, section=section)
    size, shape, primitive = largest_intermediate(f, *args, static_argnums=static_argnums)
    if size > max_elements:
        raise CheckFailed(
            f"{what} builds an array of shape {shape} ({size:,} elements, made by `{primitive}`); "
            f"at most {max_elements:,} elements are needed here.",
            hint=hint,
            section=section,
        )
