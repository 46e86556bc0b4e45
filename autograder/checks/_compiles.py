"""Compilations: how many times calling a function compiles, counted from empty caches."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import jax
from jax._src import dispatch as _dispatch
from jax._src import monitoring as _monitoring
from jax._src.interpreters import pxla as _pxla

from ._errors import CheckFailed, name_of
from ._works import Works, confirm_call

# Taken when the package is imported, before any cell of a notebook runs: a cell that rebinds these names
# through another name for the module (`m = jax.monitoring; m.register_event_duration_secs_listener = ...`)
# can then neither forge the events counted nor keep what earlier cells compiled.
_register = jax.monitoring.register_event_duration_secs_listener
_unregister = jax.monitoring.unregister_event_duration_listener
_clear_caches = jax.clear_caches
# How JAX reports a compilation, inside jax._src, as imported: a cell that replaces one of these through a name of
# its own for the module (`d = jax._src.dispatch; d.record_event_duration_secs = ...`) could hide compilations, or
# let one through, and is refused instead.
_REPORTING = {
    "jax._src.dispatch.record_event_duration_secs": (_dispatch, "record_event_duration_secs"),
    "jax._src.dispatch.log_elapsed_time": (_dispatch, "log_elapsed_time"),
    "jax._src.monitoring.record_event_duration_secs": (_monitoring, "record_event_duration_secs"),
    "jax._src.interpreters.pxla.dispatch": (_pxla, "dispatch"),
    "jax._src.interpreters.pxla._cached_compilation": (_pxla, "_cached_compilation"),
}
_AS_IMPORTED = {name: getattr(module, attribute) for name, (module, attribute) in _REPORTING.items()}


def _refuse_replaced_reporting(section: str | None) -> None:
    replaced = [name for name, (module, attr) in _REPORTING.items() if getattr(module, attr) is not _AS_IMPORTED[name]]
    if replaced:
        raise CheckFailed(
            f"code in this notebook replaced {', '.join(replaced)}, through which JAX reports its compilations, "
            "so they cannot be counted.",
            hint="remove the code that changes JAX's internals and run the notebook again.",
            section=section,
        )


def count_compiles(f: Callable, calls: Iterable[tuple], *, section: str | None = None) -> int:
    """How many times calling `f` on each argument tuple in `calls` compiles.

    Every XLA compilation during the calls counts (JAX's public `jax.monitoring`
    events), eager operations' included. Every cache is emptied first, so what
    earlier cells compiled hides nothing. `section`: what a failure says to reread.
    """
    calls = list(calls)
    _refuse_replaced_reporting(section)
    _clear_caches()
    events: list[str] = []

    def listen(event: str, duration_secs: float, **_: str | int) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            events.append(event)

    _register(listen)
    try:
        for args in calls:
            jax.block_until_ready(f(*args))
    finally:
        try:
            _unregister(listen)  # JAX asserts that it is still registered
            heard = True
        except (AssertionError, ValueError):
            heard = False
    if not heard:
        raise CheckFailed(
            "JAX's compile events stopped reaching the check while the calls ran: code in this notebook removed "
            "its listener (jax.monitoring), so the compilations cannot be counted.",
            hint="remove the code that changes jax.monitoring's listeners and run the notebook again.",
            section=section,
        )
    _refuse_replaced_reporting(section)
    return len(events)


def check_compile_count(
    f: Callable,
    calls: Iterable[tuple],
    max_compiles: int,
    *,
    works: Works,
    at_least: int = 0,
    what: str | None = None,
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that `f` compiles at most `max_compiles` times over `calls`, and at least `at_least` times.

    `works` confirms the values of the first call; the count starts afresh after it.
    """
    what = name_of(f, what)
    calls = list(calls)
    confirm_call(f, calls[0], works, what=what, section=section)
    n = count_compiles(f, calls, section=section)
    if n < at_least:
        raise CheckFailed(
            f"{what} compiled {n} times over these calls, so JAX did none of its work: the exercise asks for "
            "jax.numpy and jax.jit, not NumPy.",
            hint="compute with jnp inside a jitted function; NumPy is fine only for preparing its input.",
            section=section,
        )
    if n > max_compiles:
        raise CheckFailed(
            f"{what} compiled {n} times over these calls; at most {max_compiles} allowed.",
            hint=hint or "each new input shape or static value compiles again: pad inputs to a few fixed sizes.",
            section=section,
        )
