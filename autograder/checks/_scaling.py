"""Scaling across devices: checks of what the compiler made of a sharded program (read by `_compiled.py`):
its collectives, its memory per device, no replicated copy of what should be split, and figures predicted
rather than read from the compiler."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import jax
import numpy as np

from ._compiled import Collective, compiled_collectives, memory_per_device
from ._compiles import _refuse_replaced_reporting, _register, _unregister
from ._diagnose import on_one_device
from ._errors import CheckFailed, name_of
from ._works import Works, confirm, confirm_call

_MEANS = {
    "all-gather": "every device receiving the pieces of an array the others hold",
    "reduce-scatter": "partial results summed across devices, each device keeping one piece of the sum",
    "all-reduce": "partial results summed across devices, every device getting the whole sum",
    "all-to-all": "every device sending a different piece to each of the others",
    "collective-permute": "each device sending its array to one other",
}


def _describe(found: list[Collective]) -> str:
    if not found:
        return "no collective at all"
    counts = Counter(c.kind for c in found)
    parts = []
    for kind, count in counts.items():
        axes = sorted({axis for c in found if c.kind == kind for axis in c.axes})
        over = f" over {', '.join(repr(a) for a in axes)}" if axes else ""
        parts.append(f"{count} {kind}{'s' if count > 1 else ''}{over}")
    return ", ".join(parts)


def check_collectives(
    f: Callable,
    *args: Any,
    works: Works,
    uses: Iterable[str | tuple[str, ...]] = (),
    counts: Mapping[str, int] | None = None,
    not_uses: Iterable[str] = (),
    same_on: tuple[tuple, str, str] | None = None,
    what: str | None = None,
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check the collectives the compiler put in the program of `f(*args)`, once `works` confirms its values.

    `uses`: kinds (or tuples of kinds, any one of which will do) that must appear; `counts`: kinds that must
    appear exactly so many times; `not_uses`: kinds that must not appear. Kinds are HLO's: "all-gather",
    "reduce-scatter", "all-reduce", "all-to-all", "collective-permute". `same_on`: `(other_args, "what args
    are", "what other_args are")`, arguments on which the strategy sends the same bytes per device (a larger
    batch, for a strategy that moves only parameters): the program of `f(*other_args)` may send at most 5%
    more than that of `f(*args)`.
    """
    what = name_of(f, what)
    confirm_call(f, args, works, what=what, section=section)
    found = compiled_collectives(f, *args, section=section)
    kinds = Counter(c.kind for c in found)
    shown = _describe(found)
    for wanted in uses:
        options = (wanted,) if isinstance(wanted, str) else tuple(wanted)
        if not any(kinds[k] for k in options):
            raise CheckFailed(
                f"{what} compiles to {shown}, with no {' or '.join(options)} ({_MEANS[options[0]]}) that its "
                "strategy needs.",
                hint=hint,
                section=section,
            )
    for kind, count in (counts or {}).items():
        if kinds[kind] != count:
            raise CheckFailed(
                f"{what} compiles to {shown}: {kinds[kind]} {kind}s where its strategy needs exactly {count}.",
                hint=hint,
                section=section,
            )
    for kind in not_uses:
        if kinds[kind]:
            raise CheckFailed(
                f"{what} compiles to {shown}: the {kind} ({_MEANS[kind]}) is communication its strategy avoids.",
                hint=hint,
                section=section,
            )
    if same_on is not None:
        _check_same_traffic(f, found, same_on, what=what, hint=hint, section=section)


def _check_same_traffic(
    f: Callable, found: list[Collective], same_on: tuple[tuple, str, str], *, what: str, hint: str | None,
    section: str | None,
) -> None:  # fmt: skip
    other_args, these, those = same_on
    sent, other = sum(c.sent for c in found), sum(c.sent for c in compiled_collectives(f, *other_args, section=section))
    if other > 1.05 * sent + 64:  # a few bytes for scalars, such as a loss summed across devices
        raise CheckFailed(
            f"{what} sends {sent / 2**20:.3f} MiB per device in its collectives on {these}, and "
            f"{other / 2**20:.3f} MiB on {those}: it moves data that grows with them (activations, when the batch "
            "grows), where its strategy moves the same bytes on both.",
            hint=hint,
            section=section,
        )


def check_memory_per_device(
    f: Callable,
    *args: Any,
    at_most: float,
    works: Works,
    parts: Iterable[str] = ("argument", "output", "temp"),
    what: str | None = None,
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that the compiled program of `f(*args)` needs at most `at_most` bytes per device, adding up the
    `parts` of its `memory_analysis()` ("argument", "output", "temp"), once `works` confirms its values."""
    what = name_of(f, what)
    confirm_call(f, args, works, what=what, section=section)
    memory = memory_per_device(f, *args, section=section)
    parts = tuple(parts)
    total = sum(memory[part] for part in parts)
    if total > at_most:
        detail = ", ".join(f"{part} {memory[part] / 2**20:.2f} MiB" for part in parts)
        raise CheckFailed(
            f"{what} needs {total / 2**20:.2f} MiB per device ({detail}), more than the {at_most / 2**20:.2f} MiB "
            "a sharded layout needs: some device holds a whole copy of what should be split.",
            hint=hint,
            section=section,
        )


def check_not_replicated(
    tree: Any, *, works: Works, what: str = "your arrays", hint: str | None = None, section: str | None = None
) -> None:
    """Check that no array of `tree` (scalars aside) is whole on a device: each is split across devices."""
    confirm(tree, works, what=what, section=section)
    for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
        if getattr(leaf, "ndim", 0) == 0:
            continue
        where = f"leaf {jax.tree_util.keystr(path)} of {what}" if path else what
        sharding = getattr(leaf, "sharding", None)
        if sharding is None:
            raise CheckFailed(
                f"{where} is not a JAX array on the devices (it is a {type(leaf).__name__}).",
                hint=hint,
                section=section,
            )
        if tuple(sharding.shard_shape(leaf.shape)) == tuple(leaf.shape):
            place = (
                "on its one device"
                if len(sharding.device_set) == 1
                else f"on each of {len(sharding.device_set)} devices"
            )
            failure = CheckFailed(
                f"{where} is whole {place} (shape {tuple(leaf.shape)}, {leaf.nbytes / 2**20:.2f} MiB each): a "
                "replicated copy, where each device should hold only its piece.",
                hint=hint or "lay it out with NamedSharding(mesh, P(axis)), and keep that layout in the outputs.",
                section=section,
            )
            raise on_one_device(failure, sharding, section)


def check_no_program_built(
    f: Callable,
    *args: Any,
    warm_up: tuple,
    works: Works,
    what: str | None = None,
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that `f(*args)` computes its figures from its arguments alone: after one call on `warm_up`, the
    call on `args` (other shapes) makes JAX trace, lower or compile nothing, so it asked no compiler."""
    what = name_of(f, what)
    f(*warm_up)
    _refuse_replaced_reporting(section)
    events: list[str] = []

    def listen(event: str, duration_secs: float, **_: Any) -> None:
        if event.startswith("/jax/core/compile/"):
            events.append(event)

    _register(listen)
    try:
        value = f(*args)
    finally:
        _unregister(listen)
    _refuse_replaced_reporting(section)
    confirm(value, works, what=what, section=section)
    if events:
        raise CheckFailed(
            f"{what} built a program for these shapes while it ran (JAX traced or compiled {len(events)} times): it "
            "reads the figures from the compiler instead of predicting them.",
            hint=hint or "compute them from the shapes and the item size with plain arithmetic, as the lecture does.",
            section=section,
        )


def check_figures(
    actual: Any,
    expected: Any,
    *,
    rtol: float = 1e-3,
    what: str = "your figures",
    hidden: bool = False,
    hint: str | None = None,
    section: str | None = None,
    causes: Mapping[str, Iterable[tuple[float, str]]] | None = None,
) -> None:
    """Check figures a student predicted against those the compiler reports: a number, a word (`"compute"`),
    None, or a dict of them by name, each number within `rtol` relative. On hidden inputs (`hidden`) a message
    names the figure that differs, never the figure expected. `causes`: for a figure's name, `(value, cause)`
    pairs, known mistakes and the figure each gives; a figure within `rtol` of one is said to have that cause."""
    if not isinstance(expected, dict):
        actual, expected = {"": actual}, {"": expected}
    elif not isinstance(actual, dict) or set(actual) != set(expected):
        keys = sorted(actual) if isinstance(actual, dict) else type(actual).__name__
        raise CheckFailed(
            f"{what} should be a dict with keys {sorted(expected)}, not {keys}.",
            hint="return one entry for each figure the problem lists, under the name it gives.",
            section=section,
        )
    for key, want in expected.items():
        got, name = actual[key], f"{what}[{key!r}]" if key else what
        if _number(want):
            if not _number(got):
                raise CheckFailed(f"{name} is a {type(got).__name__}, not a number.", hint=hint, section=section)
            if abs(float(got) - want) <= rtol * abs(want):
                continue
            told = f"{float(got):.6g} where the compiler's figures give {want:.6g}"
        elif got == want:
            continue
        else:
            told = f"{got!r} where the compiler's figures give {want!r}"
        shown = "does not match the compiler's figure" if hidden else f"is {told}"
        known = [
            cause
            for value, cause in (causes or {}).get(key, ())
            if _number(got) and abs(float(got) - value) <= rtol * abs(value)
        ]
        because = f": {known[0]}" if known else ""
        raise CheckFailed(
            f"{name} {shown} (allowed: a relative difference of {rtol:g}){because}.", hint=hint, section=section
        )


def _number(value: Any) -> bool:
    return isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
