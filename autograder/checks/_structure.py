"""Structural checks: what a program is, read from its jaxpr, on any hardware."""

from __future__ import annotations

import contextlib
import inspect
import io
import types
from typing import Any, Callable, Iterable, Sequence

import jax
import jax.extend
import numpy as np

from ._errors import CheckFailed

_NOT_TRACEABLE_HINT = (
    "write it with jnp and jax.lax only: NumPy calls (np.*), float()/int() and Python "
    "if/while on array values need concrete numbers, which JAX does not have while tracing."
)


def _sub_jaxprs(params: dict) -> Iterable[jax.extend.core.Jaxpr]:
    for value in params.values():
        for item in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(item, jax.extend.core.ClosedJaxpr):
                yield item.jaxpr
            elif isinstance(item, jax.extend.core.Jaxpr):
                yield item


def _walk(jaxpr: jax.extend.core.Jaxpr) -> Iterable[Any]:
    for eqn in jaxpr.eqns:
        yield eqn
        for sub in _sub_jaxprs(eqn.params):
            yield from _walk(sub)


def trace(f: Callable, *args: Any, static_argnums: Sequence[int] = (), what: str = "your function") -> jax.extend.core.ClosedJaxpr:
    """The jaxpr of `f(*args)`, or a `CheckFailed` that says why it cannot be traced."""
    try:
        return jax.make_jaxpr(f, static_argnums=tuple(static_argnums))(*args)
    except (
        jax.errors.TracerArrayConversionError,
        jax.errors.ConcretizationTypeError,
        jax.errors.TracerBoolConversionError,
        jax.errors.TracerIntegerConversionError,
    ) as error:
        kind = type(error).__name__
        raise CheckFailed(
            f"{what} cannot be traced by JAX ({kind}), so it cannot be jitted or transformed.",
            hint=_NOT_TRACEABLE_HINT,
            section="01#jax.numpy and NumPy",
        ) from None


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


def check_jitted(f: Callable, *args: Any, what: str = "your function", section: str | None = None) -> None:
    """Check that `f` is compiled as a whole with `jax.jit`."""
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
    static_argnums: Sequence[int] = (),
    what: str = "your function",
    section: str | None = None,
) -> None:
    """Check that the jaxpr of `f(*make_args(n))` has as many equations for every `n`.

    A Python loop over `n` is unrolled while tracing and grows the program with
    `n`; `lax.fori_loop`, `lax.scan` and vectorised code do not.
    """
    counts = {n: equation_count(f, *make_args(n), static_argnums=static_argnums) for n in sizes}
    if len(set(counts.values())) > 1:
        shown = ", ".join(f"{c} for n={n}" for n, c in counts.items())
        raise CheckFailed(
            f"the program JAX traces from {what} grows with the problem size ({shown} equations): "
            "a Python loop is being unrolled.",
            hint="replace the Python loop with jax.lax.fori_loop or jax.lax.scan, or vectorise it.",
            section=section,
        )


def check_primitives(
    f: Callable,
    *args: Any,
    contains: Iterable[str] = (),
    avoids: Iterable[str] = (),
    only: Iterable[str] | None = None,
    static_argnums: Sequence[int] = (),
    what: str = "your function",
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that the jaxpr of `f(*args)` uses every primitive in `contains`, none in
    `avoids`, and (when `only` is given) nothing outside `only`.
    """
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
        raise CheckFailed(f"{what} uses {', '.join(present)}, which this exercise rules out.", hint=hint, section=section)


def count_compiles(f: Callable, calls: Iterable[tuple]) -> int:
    """How many times calling `f` on each argument tuple in `calls` compiles.

    For a jitted `f` this is the growth of its own cache. Otherwise every XLA
    compilation counts, the ones for eager operations included.
    """
    calls = list(calls)
    if hasattr(f, "_cache_size"):
        before = f._cache_size()
        for args in calls:
            jax.block_until_ready(f(*args))
        return f._cache_size() - before
    events: list[str] = []

    def listen(event: str, duration: float, **_: Any) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            events.append(event)

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        for args in calls:
            jax.block_until_ready(f(*args))
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    return len(events)


def check_compile_count(
    f: Callable,
    calls: Iterable[tuple],
    max_compiles: int,
    *,
    what: str = "your function",
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that `f` compiles at most `max_compiles` times over `calls`."""
    n = count_compiles(f, calls)
    if n > max_compiles:
        raise CheckFailed(
            f"{what} compiled {n} times over these calls; at most {max_compiles} allowed.",
            hint=hint or "each new input shape or static value compiles again: pad inputs to a few fixed sizes.",
            section=section,
        )


# --- purity ----------------------------------------------------------------------------


def _fingerprint(value: Any) -> Any:
    """A comparable snapshot of a value, for spotting in-place changes."""
    leaves, treedef = jax.tree.flatten(value, is_leaf=lambda x: not isinstance(x, (list, tuple, dict)))
    out = []
    for leaf in leaves:
        if isinstance(leaf, (np.ndarray, jax.Array)):
            out.append(("array", id(leaf), np.asarray(leaf).tobytes(), np.shape(leaf), str(np.asarray(leaf).dtype)))
        elif isinstance(leaf, (int, float, complex, str, bytes, bool, type(None))):
            out.append(("value", leaf))
        elif isinstance(leaf, (set, frozenset)):
            out.append(("set", repr(sorted(map(repr, leaf)))))
        else:
            out.append(("object", id(leaf)))
    return str(treedef), out


def _referenced_globals(f: Callable) -> dict[str, Any]:
    """Module-level names the function's code refers to, which a side effect could change."""
    f = inspect.unwrap(f)
    code, module = getattr(f, "__code__", None), getattr(f, "__globals__", {})
    if code is None:
        return {}
    names: set[str] = set()
    stack = [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    skip = (types.ModuleType, types.FunctionType, type, types.BuiltinFunctionType)
    return {name: module[name] for name in names if name in module and not isinstance(module[name], skip)}


def check_pure(f: Callable, *args: Any, what: str = "your function", section: str | None = None) -> None:
    """Check that `f(*args)` leaves its inputs alone, prints nothing while tracing,
    keeps no state in globals or closures, and leaks no tracer.
    """
    snapshot = _fingerprint(args)
    module = _referenced_globals(f)
    module_before = {name: (id(v), _fingerprint(v)) for name, v in module.items()}
    owner = inspect.unwrap(f)
    cells = [c for c in (getattr(owner, "__closure__", None) or ()) if _cell_is_data(c)]
    cells_before = [_fingerprint(c.cell_contents) for c in cells]

    jax.block_until_ready(f(*args))
    if _fingerprint(args) != snapshot:
        raise CheckFailed(
            f"{what} changed its input in place.",
            hint="build and return a new value (a new dict, x.at[i].set(v)) and leave the arguments untouched.",
            section="02#Functional state updates",
        )

    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), jax.checking_leaks():
            trace(f, *args, what=what)
    except CheckFailed:
        raise
    except Exception as error:
        if "Leaked" in str(error) or "leak" in type(error).__name__.lower():
            raise CheckFailed(
                f"{what} leaks a traced value out of the function (it stores it somewhere outside).",
                hint="return every result instead of saving it in a global, a list or an attribute.",
                section=section,
            ) from None
        raise
    if printed.getvalue():
        raise CheckFailed(
            f"{what} prints while JAX traces it (it printed {printed.getvalue().strip()[:80]!r}); "
            "under jit that print runs once at compile time, not on every call.",
            hint="use jax.debug.print, or return the value and print it outside.",
            section=section,
        )
    module_after = {name: (id(v), _fingerprint(v)) for name, v in _referenced_globals(f).items()}
    changed = sorted(n for n in module_before if module_after.get(n) != module_before[n])
    changed += ["a captured variable" for c, before in zip(cells, cells_before) if _fingerprint(c.cell_contents) != before]
    if changed:
        raise CheckFailed(
            f"{what} changes state outside itself ({', '.join(changed)}) each time it runs or is traced.",
            hint="pass state in as an argument and return the new state.",
            section="02#Functional state updates",
        )


def _cell_is_data(cell: Any) -> bool:
    try:
        value = cell.cell_contents
    except ValueError:  # an empty cell
        return False
    return not isinstance(value, (types.ModuleType, types.FunctionType, type, types.BuiltinFunctionType))


# --- memory ----------------------------------------------------------------------------


def largest_intermediate(f: Callable, *args: Any, static_argnums: Sequence[int] = ()) -> tuple[int, tuple[int, ...], str]:
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
    static_argnums: Sequence[int] = (),
    what: str = "your function",
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that no array the program of `f(*args)` builds has more than `max_elements` elements."""
    size, shape, primitive = largest_intermediate(f, *args, static_argnums=static_argnums)
    if size > max_elements:
        raise CheckFailed(
            f"{what} builds an array of shape {shape} ({size:,} elements, made by `{primitive}`); "
            f"at most {max_elements:,} elements are needed here.",
            hint=hint,
            section=section,
        )


# --- collectives and shardings ---------------------------------------------------------------


def collectives(f: Callable, *args: Any, static_argnums: Sequence[int] = ()) -> set[tuple[str, str]]:
    """`{(collective, axis name)}` used by the program of `f(*args)`, such as `("psum", "data")`.

    Inside `shard_map` JAX 0.12 writes `psum` as `psum_invariant`; both count as `psum`.
    """
    found = set()
    for eqn in _walk(trace(f, *args, static_argnums=static_argnums).jaxpr):
        name = eqn.primitive.name.removesuffix("_invariant")
        axes = eqn.params.get("axes", eqn.params.get("axis_name"))
        if name in ("psum", "pmax", "pmin", "all_gather", "ppermute", "all_to_all", "reduce_scatter") and axes is not None:
            for axis in axes if isinstance(axes, (tuple, list)) else (axes,):
                if isinstance(axis, str):
                    found.add((name, axis))
    return found


def check_collective(
    f: Callable,
    *args: Any,
    kind: str = "psum",
    over: str | None = None,
    static_argnums: Sequence[int] = (),
    what: str = "your function",
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that `f(*args)` combines values across devices with collective `kind`
    (`psum` also covers `pmean`), over mesh axis `over` when given.
    """
    found = collectives(f, *args, static_argnums=static_argnums)
    if any(name == kind and (over is None or axis == over) for name, axis in found):
        return
    used = ", ".join(f"{name} over {axis!r}" for name, axis in sorted(found)) or "no collective at all"
    target = f"{kind} over the mesh axis {over!r}" if over else kind
    raise CheckFailed(f"{what} should combine the devices' values with {target}, but it uses {used}.", hint=hint, section=section)


def check_sharding(x: Any, expected: jax.sharding.Sharding, *, what: str = "your result", section: str | None = None) -> None:
    """Check that array `x` is laid out across devices as `expected` says."""
    actual = getattr(x, "sharding", None)
    if actual is None:
        raise CheckFailed(f"{what} is not a JAX array (it is a {type(x).__name__}), so it has no sharding.", section=section)
    if not actual.is_equivalent_to(expected, np.ndim(x)):
        spec = getattr(expected, "spec", expected)
        raise CheckFailed(
            f"{what} is laid out as {actual}, not as requested ({spec}).",
            hint="ask jit for it with out_shardings=NamedSharding(mesh, P(...)), or move the result with "
            "jax.device_put / jax.reshard.",
            section=section,
        )
