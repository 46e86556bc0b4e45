"""What a function's forward pass keeps for its backward pass, and gradients that cannot be taken.

Reverse mode runs the function forward and keeps **residuals**, the arrays the backward pass
will need; they stay in memory until it runs. `jax.vjp` returns them inside the function it
hands back (a pytree whose leaves are the residuals), so tracing `jax.vjp` shows each one's
shape and where it came from, on any hardware and without running anything. Arrays that are
the function's own inputs or constants cost nothing more and are not counted; `jax.checkpoint`
shrinks the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax

from .._residuals import saved_residuals
from ._errors import CheckFailed
from ._works import Works, confirm_call

__all__ = ["check_saved_residuals", "reverse_mode_grad", "saved_residuals"]


_REMAT_HINT = (
    "wrap the repeated piece in jax.checkpoint, so its insides are recomputed in the backward pass instead of "
    "stored; a policy decides what is still saved."
)


def check_saved_residuals(
    f: Callable,
    *args: Any,
    max_bytes: int,
    works: Works,
    what: str = "your function",
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that the forward pass of `f(*args)` keeps at most `max_bytes` of computed residuals for reverse mode."""
    confirm_call(f, args, works, what=what, section=section)
    found = saved_residuals(f, *args)
    total = sum(size for _, _, size in found)
    if total > max_bytes:
        biggest = sorted(found, key=lambda r: -r[2])[:3]
        shown = ", ".join(f"{dtype}{list(shape)}" for shape, dtype, _ in biggest)
        raise CheckFailed(
            f"the forward pass of {what} keeps {total:,} bytes in {len(found)} arrays for the backward pass "
            f"(the largest: {shown}); at most {max_bytes:,} bytes are allowed here.",
            hint=hint or _REMAT_HINT,
            section=section,
        )


_REVERSE_MODE_ERROR = "Reverse-mode differentiation does not work"


def reverse_mode_grad(
    f: Callable, *args: Any, argnums: int | Sequence[int] = 0, what: str = "your function", section: str | None = None
) -> Any:
    """`jax.grad(f, argnums)(*args)`, or a `CheckFailed` saying why reverse mode cannot go through `f`'s loop."""
    try:
        return jax.grad(f, argnums=argnums)(*args)
    except ValueError as error:
        if _REVERSE_MODE_ERROR not in str(error):
            raise
        raise CheckFailed(
            f"jax.grad cannot differentiate {what}: reverse mode does not go through lax.while_loop (or a "
            "fori_loop whose bounds are traced). Its number of steps is known only when it runs, so JAX cannot "
            "set aside room for each step's residuals; forward mode (jax.jvp) would work.",
            hint="loop a fixed number of times with jax.lax.fori_loop(0, steps, ...) where steps is a Python int, "
            "or with jax.lax.scan.",
            section=section,
        ) from None
