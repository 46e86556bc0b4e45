"""Purity: a function leaves its inputs and the world as it found them."""

from __future__ import annotations

import contextlib
import inspect
import io
import types
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
from jax._src import core as jax_core
from jax.core import Tracer

from ._errors import CheckFailed, name_of
from ._structure import trace
from ._works import Works, confirm


def _fingerprint(value: Any) -> Any:
    """A comparable snapshot of a value, for spotting in-place changes."""
    leaves, treedef = jax.tree.flatten(value, is_leaf=lambda x: not isinstance(x, (list, tuple, dict)))
    out = []
    for leaf in leaves:
        if isinstance(leaf, Tracer):  # leaked by an earlier trace: it has no value to read
            out.append(("tracer", id(leaf)))
        elif isinstance(leaf, (np.ndarray, jax.Array)):
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


def check_pure(f: Callable, *args: Any, works: Works, what: str | None = None, section: str | None = None) -> None:
    """Check that `f(*args)` leaves its inputs alone, prints nothing while tracing,
    keeps no state in globals or closures, and leaks no tracer; `works` confirms its value first.
    """
    what = name_of(f, what)
    snapshot = _fingerprint(args)
    module = _referenced_globals(f)
    module_before = {name: (id(v), _fingerprint(v)) for name, v in module.items()}
    owner = inspect.unwrap(f)
    cells = [c for c in (getattr(owner, "__closure__", None) or ()) if _cell_is_data(c)]
    cells_before = [_fingerprint(c.cell_contents) for c in cells]

    value = jax.block_until_ready(f(*args))
    confirm(value, works, what=what, section=section)
    if _fingerprint(args) != snapshot:
        raise CheckFailed(
            f"{what} changed its input in place.",
            hint="build and return a new value (a new dict, x.at[i].set(v)) and leave the arguments untouched.",
            section="02#Functional state updates",
        )

    printed = io.StringIO()
    # A print, a leak or a counter runs only when JAX traces; an earlier cell's jit may have cached
    # this trace, so empty the caches: the verdict must not depend on what ran before.
    jax.clear_caches()
    try:
        with contextlib.redirect_stdout(printed), jax.checking_leaks(), _leaks_told_briefly():
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
    changed += [
        "a captured variable"
        for c, before in zip(cells, cells_before, strict=True)
        if _fingerprint(c.cell_contents) != before
    ]
    if changed:
        raise CheckFailed(
            f"{what} changes state outside itself ({', '.join(changed)}) each time it runs or is traced.",
            hint="pass state in as an argument and return the new state.",
            section="02#Functional state updates",
        )


@contextlib.contextmanager
def _leaks_told_briefly():
    """JAX explains a leaked tracer by walking the whole heap for what holds it (seconds in a kernel that has
    imported much); the check says what it means in its own words, so JAX is asked only to say that it leaked."""
    saved = getattr(jax_core, "leaked_tracer_error", None)
    if saved is None:  # another JAX: its own explanation, however long it takes
        yield
        return
    jax_core.leaked_tracer_error = lambda name, *_: Exception(f"Leaked {name}")
    try:
        yield
    finally:
        jax_core.leaked_tracer_error = saved


def _cell_is_data(cell: Any) -> bool:
    try:
        value = cell.cell_contents
    except ValueError:  # an empty cell
        return False
    return not isinstance(value, (types.ModuleType, types.FunctionType, type, types.BuiltinFunctionType))
