"""What the compiler made of a program for several devices, read from the compiled program.

Its collectives, read from the HLO text with the bytes each device sends; its memory per device
(`memory_analysis`); its flops and bytes (`cost_analysis`). The checks built on them are in `_scaling.py`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax

from ._errors import CheckFailed, name_of
from ._structure import _tracing, _walk, trace

KINDS = ("all-gather", "reduce-scatter", "all-reduce", "all-to-all", "collective-permute")
_OP = re.compile(rf"^\s*(?:ROOT )?%\S+ = (?P<type>.+?) (?P<kind>{'|'.join(KINDS)})\(")
_SHAPE = re.compile(r"\b([a-z][a-z0-9]*)\[([0-9,]*)\]")
# Bits per element of HLO's element types; the 8-bit floats (f8e4m3fn, ...) are the rest.
# Where lecture 16 makes a strategy a choice of layouts, with jit and its shardings.
_LAYOUTS = "16#A model to scale"
_BITS = {"pred": 8, "s4": 4, "u4": 4, "s8": 8, "u8": 8, "s16": 16, "u16": 16, "f16": 16, "bf16": 16}
_BITS |= {"s32": 32, "u32": 32, "f32": 32, "s64": 64, "u64": 64, "f64": 64, "c64": 64, "c128": 128}


@dataclass(frozen=True)
class Collective:
    """One collective of a compiled program: its kind, the bytes of its result on each device, and how
    many devices take part in each of its groups (the mesh axes they span, when the HLO names them)."""

    kind: str
    result_bytes: int
    group: int
    axes: tuple[str, ...] = ()

    @property
    def sent(self) -> float:
        """Bytes each device sends: a ring for all-gather, reduce-scatter and all-reduce (a reduce-scatter
        then an all-gather), one piece straight to each other device for all-to-all."""
        n, size = self.group, self.result_bytes
        if self.kind == "reduce-scatter":
            return size * (n - 1)  # the result is one piece of n
        if self.kind == "all-reduce":
            return 2 * size * (n - 1) / n
        if self.kind == "collective-permute":
            return float(size)
        return size * (n - 1) / n  # all-gather: the whole array; all-to-all: this device's share


def _bytes(hlo_type: str) -> int:
    bits = sum(
        math.prod(int(d) for d in dims.split(",") if d) * _BITS.get(dtype, 8)
        for dtype, dims in _SHAPE.findall(hlo_type)
    )
    return bits // 8


def _group(line: str, partitions: int) -> tuple[int, tuple[str, ...]]:
    """Devices per group, and the mesh axes they span, from an instruction's `replica_groups`."""
    if m := re.search(r"replica_groups=mesh\[([^\]]*)\]\s*\{([^}]*)\}", line):
        sizes = {axis: int(size) for axis, size in re.findall(r"'([^']+)'=(\d+)", m[1])}
        axes = tuple(re.findall(r"'([^']+)'", m[2]))
        return math.prod(sizes.get(axis, 1) for axis in axes), axes
    if m := re.search(r"replica_groups=\[([\d,]+)\]<=", line):
        return int(m[1].split(",")[-1]), ()
    if m := re.search(r"replica_groups=\{\{([\d,]*)\}", line):
        return len(m[1].split(",")), ()
    return partitions, ()


def hlo_collectives(program: Any) -> list[Collective]:
    """The collectives of a compiled program (or of its HLO text), in program order."""
    text = program if isinstance(program, str) else program.as_text()
    partitions = re.search(r"num_partitions=(\d+)", text)
    found = []
    for line in text.splitlines():
        if m := _OP.match(line):
            group, axes = _group(line, int(partitions[1]) if partitions else 1)
            found.append(Collective(m["kind"], _bytes(m["type"]), group, axes))
    return found


def _moved_to_one_device(f: Callable, args: tuple, what: str) -> bool:
    """Whether the program of `f(*args)` puts an array on one device (`jax.device_put(x, device)`): under `jit`
    that is only a hint, but called as written it pulls the work after it onto that device."""
    if not any(isinstance(leaf, jax.Array) and len(leaf.sharding.device_set) > 1 for leaf in jax.tree.leaves(args)):
        return False  # nothing is spread over devices: there is nothing to pull onto one
    for eqn in _walk(trace(f, *args, what=what).jaxpr):
        targets = eqn.params.get("devices", ()) if eqn.primitive.name == "device_put" else ()
        if any(isinstance(t, jax.Device) or (isinstance(t, jax.sharding.Sharding) and len(t.device_set) == 1)
               for t in targets):  # fmt: skip
            return True
    return False


def compile_program(f: Callable, *args: Any, what: str | None = None, section: str | None = None) -> Any:
    """The compiled program of `f(*args)`: `f.lower` for a jitted `f` (its shardings kept), else `jax.jit(f)`.
    `section`: the lecture section a failure sends the student back to (by default, where strategies are layouts)."""
    what = name_of(f, what)
    section = section or _LAYOUTS
    if _moved_to_one_device(f, args, what):
        raise CheckFailed(
            f"{what} moves arrays onto one device (jax.device_put(x, device)): the work after that runs there, "
            "not spread over the devices, whatever layout its result is given afterwards.",
            hint="keep the arrays on the mesh and let jit (with shardings) or shard_map split the work.",
            section=section,
        )
    own: Any = getattr(f, "lower", None)
    lower: Callable[..., Any] = own if callable(own) else jax.jit(f).lower  # a jitted f keeps its shardings
    with _tracing(what):
        try:
            return lower(*args).compile()
        except CheckFailed:
            raise
        except Exception as error:
            if isinstance(error, (jax.errors.TracerArrayConversionError, jax.errors.ConcretizationTypeError)):
                raise
            first = (str(error).strip().splitlines() or [""])[0][:300]
            raise CheckFailed(
                f"{what} could not be compiled into one program for the devices ({type(error).__name__}: {first}).",
                hint="build it from JAX operations on the arrays as they are laid out (jit, shard_map), not NumPy "
                "on the host or arrays moved to one device.",
                section=section,
            ) from None


def compiled_collectives(f: Callable, *args: Any, section: str | None = None) -> list[Collective]:
    """The collectives of the compiled program of `f(*args)`."""
    return hlo_collectives(compile_program(f, *args, section=section))


def collective_bytes(f: Callable, *args: Any) -> dict[str, float]:
    """Bytes each device sends in the compiled program of `f(*args)`, by kind of collective."""
    sent: dict[str, float] = {}
    for c in compiled_collectives(f, *args):
        sent[c.kind] = sent.get(c.kind, 0.0) + c.sent
    return sent


def memory_per_device(f: Callable, *args: Any, section: str | None = None) -> dict[str, int]:
    """Bytes per device of the compiled program of `f(*args)`: its arguments, outputs and temporaries, and how
    much of the outputs reuses the arguments' buffers (`alias`), from `memory_analysis()`."""
    stats = compile_program(f, *args, section=section).memory_analysis()
    return {part: int(getattr(stats, f"{part}_size_in_bytes")) for part in ("argument", "output", "temp", "alias")}


def compiled_cost(f: Callable, *args: Any) -> dict[str, float]:
    """The flops and bytes accessed the compiler counts for `f(*args)`, from `cost_analysis()`."""
    analysis = compile_program(f, *args).cost_analysis()
    analysis = analysis[0] if isinstance(analysis, (list, tuple)) else analysis
    return {"flops": float(analysis.get("flops", 0.0)), "bytes": float(analysis.get("bytes accessed", 0.0))}
