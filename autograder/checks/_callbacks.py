"""Calls out of a traced program into Python, which every check that reads the program must refuse.

`jax.pure_callback` and `jax.experimental.io_callback` run a Python function, NumPy loops and all,
where the jaxpr shows one equation. A check that reads the program (its size, its depth, the work
its loops do) would judge that one equation and not what the callback does; so it refuses it.
`jax.debug.callback` returns nothing to the program, so it hides no work and is not refused.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._errors import CheckFailed

CALLBACKS = {"pure_callback": "jax.pure_callback", "io_callback": "jax.experimental.io_callback"}


def refuse_callbacks(
    primitives: Iterable[str], *, what: str, measures: str, hint: str | None = None, section: str | None = None
) -> None:
    """Fail when the program whose `primitives` are given calls back into Python to compute its result."""
    found = sorted(CALLBACKS[name] for name in set(primitives) & set(CALLBACKS))
    if found:
        raise CheckFailed(
            f"{what} calls back into Python ({', '.join(found)}): the work done there is outside the program JAX "
            f"traces, so {measures} says nothing about it, and the callback has no gradient and runs on the host.",
            hint="compute the result in the program, with jnp and jax.lax, not in a callback"
            + (f": {hint}" if hint else "."),
            section=section,
        )
