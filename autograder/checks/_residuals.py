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
from ._errors import CheckFailed, name_of
from ._structure import _walk, trace
from ._works import Works, confirm_call

__all__ = ["check_saved_residuals", "reverse_mode_grad", "saved_residuals"]


_REMAT_HINT = (
    "wrap the repeated piece in jax.checkpoint, so its insides are recomputed in the backward pass instead of "
    "stored; a policy decides what is still saved."
)
# The primitive jax.checkpoint (jax.remat) binds, under the names JAX has given it.
_CHECKPOINTS = {"checkpoint", "remat", "remat2"}


def _policy_name(policy: Any) -> str:
    # A policy made by a factory (save_only_these_names(...)) is a closure: name the factory.
    name = getattr(policy, "__qualname__", None) or getattr(policy, "__name__", None) or type(policy).__name__
    return name.partition(".<locals>")[0]


def _why_kept(f: Callable, args: tuple) -> tuple[str, str]:
    """Why the program of `f(*args)` keeps its residuals, and what to try: read from its checkpoints and their policies.

    Too many bytes kept has three causes, which call for different fixes: nothing is checkpointed (a `jax.jit`
    in its place changes nothing), a checkpoint's policy saves what it could recompute, or a checkpoint covers
    only part of the work, so what is used outside it is kept.
    """
    eqns = list(_walk(trace(f, *args).jaxpr))
    policies = [eqn.params.get("policy") for eqn in eqns if eqn.primitive.name in _CHECKPOINTS]
    if not policies:
        jitted = any(eqn.primitive.name in ("jit", "pjit") for eqn in eqns)
        return (
            "nothing in it is checkpointed (its program has no jax.checkpoint)"
            + ("; jax.jit compiles the work but keeps the same residuals" if jitted else ""),
            _REMAT_HINT,
        )
    saving = sorted({_policy_name(p) for p in policies if p is not None} - {"nothing_saveable"})
    if saving:
        return (
            f"its jax.checkpoint has the policy {', '.join(saving)}, which saves arrays computed inside it",
            "use a policy that saves nothing inside the checkpoint: jax.checkpoint_policies.nothing_saveable, "
            "the default.",
        )
    return (
        "its jax.checkpoint saves nothing inside it, so what is kept is computed, or used, outside it: the "
        "checkpoint covers only part of the repeated work",
        "wrap the whole repeated piece (every layer's work, not a part of it) in one jax.checkpoint.",
    )


def check_saved_residuals(
    f: Callable,
    *args: Any,
    max_bytes: int,
    works: Works,
    what: str | None = None,
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that the forward pass of `f(*args)` keeps at most `max_bytes` of computed residuals for reverse mode.

    When it keeps more, the message says why, from the program's checkpoints (`_why_kept`); `hint`, when
    given, replaces what to try.
    """
    what = name_of(f, what)
    confirm_call(f, args, works, what=what, section=section)
    found = saved_residuals(f, *args)
    total = sum(size for _, _, size in found)
    if total > max_bytes:
        biggest = sorted(found, key=lambda r: -r[2])[:3]
        shown = ", ".join(f"{dtype}{list(shape)}" for shape, dtype, _ in biggest)
        why, to_try = _why_kept(f, args)
        raise CheckFailed(
            f"the forward pass of {what} keeps {total:,} bytes in {len(found)} arrays for the backward pass "
            f"(the largest: {shown}); at most {max_bytes:,} bytes are allowed here: {why}.",
            hint=hint or to_try,
            section=section,
        )


_REVERSE_MODE_ERROR = "Reverse-mode differentiation does not work"
# What JAX says when asked to differentiate jax.pure_callback or io_callback ("Pure callbacks do not support JVP").
_CALLBACK_ERROR = "callbacks do not support jvp"


def reverse_mode_grad(
    f: Callable, *args: Any, argnums: int | Sequence[int] = 0, what: str | None = None, section: str | None = None
) -> Any:
    """`jax.grad(f, argnums)(*args)`, or a `CheckFailed` saying why reverse mode cannot go through `f`'s loop."""
    what = name_of(f, what)
    try:
        return jax.grad(f, argnums=argnums)(*args)
    except ValueError as error:
        if _CALLBACK_ERROR in str(error).lower():
            raise CheckFailed(
                f"jax.grad cannot differentiate {what}: it calls back into Python (jax.pure_callback or io_callback), "
                "code JAX runs but cannot see into, so it has no derivative.",
                hint="compute it in JAX, with jnp and a loop jax.grad goes through: jax.lax.fori_loop(0, steps, ...) "
                "where steps is a Python int, or jax.lax.scan.",
                section=section,
            ) from None
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
