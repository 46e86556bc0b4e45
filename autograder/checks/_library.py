"""Which library functions a program was built with, read from where its jaxpr's equations came from."""

from __future__ import annotations

import importlib
import importlib.machinery
import inspect
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ._errors import CheckFailed, name_of
from ._structure import _walk, trace
from ._works import Works, confirm_call


def _package_folder(package: str) -> str | None:
    """The folder an installed top-level `package` lives in, or None when it is not installed.

    JAX's from the module `guard()` trusts; any other's found on `sys.path` by the import system's own
    finder, not read from `sys.modules`, where a cell could put a module of its own under the name.
    """
    if package == "jax":
        return os.path.dirname(sys.modules["jax"].__file__ or "") + os.sep
    spec = importlib.machinery.PathFinder.find_spec(package)
    if spec is None or spec.origin is None:
        return None
    return os.path.dirname(spec.origin) + os.sep


def _code_of(name: str) -> tuple[str, str, int] | None:
    """`(file, function, first line)` of the library function a dotted public name like `jax.nn.softmax` names.

    Resolved from the library's own modules, and refused unless it lives in that library's package: a name
    a cell rebound to its own function is not the library's. None for a library that is not installed
    (`optax.safe_norm` without Optax), which no program can have called.
    """
    package = name.partition(".")[0]
    folder = _package_folder(package)
    if folder is None:
        return None
    module_name, _, attribute = name.rpartition(".")
    fn: Any = getattr(importlib.import_module(module_name), attribute)
    for _ in range(8):
        fn = inspect.unwrap(fn)
        if hasattr(fn, "__code__"):
            break
        fn = getattr(fn, "__wrapped__", None) or getattr(fn, "__func__", None) or getattr(fn, "fun", None)
    code = getattr(fn, "__code__", None)
    if code is None or not code.co_filename.startswith(folder):
        owner = "JAX" if package == "jax" else package
        raise CheckFailed(
            f"`{name}` is not {owner}'s own function any more: code in this notebook replaced it, so this check "
            "cannot be trusted. Remove the code that rebinds it and run the notebook again."
        )
    return code.co_filename, code.co_qualname, code.co_firstlineno


def library_calls(
    f: Callable, *args: Any, names: Iterable[str], static_argnums: Sequence[int] = (), inside: bool = False
) -> set[str]:
    """Which of the dotted public library functions `names` (JAX's, or another installed library's such as
    `optax.safe_norm`) built any equation of the program of `f(*args)`.

    Every equation keeps the Python stack it was traced from, so a call through a helper,
    an alias (`from jax.nn import softmax as sm`) or a nested `jit` is seen too. With `inside`, a function
    defined inside a named one counts as it: the update of the transformation `optax.scale_by_adam` returns
    runs long after `optax.scale_by_adam` itself, and is that library's code all the same.
    """
    wanted = {code: name for name in names if (code := _code_of(name)) is not None}
    outer = {(file, function): name for (file, function, _), name in wanted.items()} if inside else {}
    jaxpr = trace(f, *args, static_argnums=static_argnums).jaxpr
    found: set[str] = set()
    seen_a_stack = False
    for eqn in _walk(jaxpr):
        traceback = eqn.source_info.traceback
        if traceback is None:
            continue
        seen_a_stack = True
        for frame in traceback.frames:
            name = wanted.get((frame.file_name, frame.function_name, frame.function_start_line))
            name = name or outer.get((frame.file_name, frame.function_name.split(".<locals>.")[0]))
            if name:
                found.add(name)
    if jaxpr.eqns and not seen_a_stack:
        raise CheckFailed("JAX recorded no source for this program, so which functions built it cannot be checked.")
    return found


def check_not_calling(
    f: Callable,
    *args: Any,
    names: Iterable[str],
    works: Works,
    static_argnums: Sequence[int] = (),
    what: str | None = None,
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that none of the library functions `names` (dotted, like `"jax.nn.softmax"`) builds `f(*args)`.

    For problems whose skill is writing what the library already has: the library's one-liner
    gives the right numbers and skips the skill.
    """
    what = name_of(f, what)
    confirm_call(f, args, works, what=what, section=section)
    used = sorted(library_calls(f, *args, names=names, static_argnums=static_argnums))
    if used:
        raise CheckFailed(
            f"{what} calls {', '.join(f'`{n}`' for n in used)}: this problem asks you to write it yourself.",
            hint=hint or "build it from jnp operations, as the lecture does; the library's version is for later.",
            section=section,
        )
