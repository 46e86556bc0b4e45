"""Helpers the lectures share, imported as `from autograder.lecture import time_min, ...`.

They live in the installed package so that a lecture opened on Colab, where only the package is
installed, finds them too. This module needs JAX and NumPy only; neither the checks nor the
grading tools import it.
"""

from __future__ import annotations

import gzip
import time
from collections.abc import Callable, Iterator
from typing import Any

import jax
import numpy as np
from jax.extend.core import Jaxpr, JaxprEqn, jaxprs_in_params  # pyright: ignore[reportPrivateImportUsage]

from ._residuals import saved_residuals

__all__ = ["compare_times", "largest_array", "memory_profile_samples", "primitive_names", "residual_bytes", "time_min"]

# How a lecture says that a comparison it measured went against its text (the lecture test fails on it).
AGAINST_THE_TEXT = "Measured here, against the text:"


def time_min(f: Callable[..., Any], *args: Any, repeats: int = 5, block: bool = True) -> float:
    """Minimum wall-clock time of f(*args) in seconds, after one warm-up call."""
    jax.block_until_ready(f(*args))  # warm-up (compilation, caches)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = f(*args)
        if block:
            jax.block_until_ready(out)
        best = min(best, time.perf_counter() - t0)
        jax.block_until_ready(out)  # never let unfinished work pile up
    return best


def compare_times(faster: tuple[str, float], slower: tuple[str, float], *, by: float, otherwise: str) -> None:
    """Print what the text beside it claims of two measured times (seconds): that `faster` took at most 1/`by`
    of `slower`'s. Said as measured when it holds; when it does not (a busy or very different machine), said
    as such with `otherwise`, the reason a reader should know.

    A lecture's figures are measured as it runs, so its words must hold for whatever this machine measures:
    the lecture test fails on a comparison that went against the text.
    """
    (fast_name, fast), (slow_name, slow) = faster, slower
    ratio = slow / fast if fast > 0 else float("inf")
    times = f"{fast_name} {_duration(fast)}, {slow_name} {_duration(slow)}"
    if ratio >= by:
        print(f"{times}: {fast_name} is {ratio:.0f}x faster.")
    else:
        print(f"{AGAINST_THE_TEXT} {times} ({ratio:.2g}x, not the {by:g}x or more the text expects). {otherwise}")


def _duration(seconds: float) -> str:
    """A time as a reader takes it in: milliseconds below a second, seconds from there."""
    return f"{seconds:.3g} s" if seconds >= 1 else f"{seconds * 1e3:.3g} ms"


def primitive_names(jaxpr: Jaxpr) -> list[str]:
    """Primitive names of `jaxpr` in program order, descending into nested jaxprs (jit, loops, branches)."""
    names = []
    for eqn in jaxpr.eqns:
        names.append(eqn.primitive.name)
        for sub in jaxprs_in_params(eqn.params):
            names.extend(primitive_names(sub))
    return names


def _equations(jaxpr: Jaxpr) -> Iterator[JaxprEqn]:
    """Every equation of `jaxpr` in program order, each followed by those of the jaxprs nested in it."""
    for eqn in jaxpr.eqns:
        yield eqn
        for sub in jaxprs_in_params(eqn.params):
            yield from _equations(sub)


def largest_array(fn: Callable[..., Any], *args: Any) -> tuple[int, ...]:
    """The largest output shape of any equation in the jaxpr of fn(*args), nested jaxprs included."""
    shapes = (
        tuple(getattr(var.aval, "shape", ()))
        for eqn in _equations(jax.make_jaxpr(fn)(*args).jaxpr)
        for var in eqn.outvars
    )
    return max(shapes, key=lambda shape: int(np.prod(shape, dtype=np.int64)), default=())


def residual_bytes(fn: Callable[..., Any], *args: Any) -> int:
    """Bytes of the arrays the forward pass of fn(*args) computes and keeps for reverse mode.

    Read from the jaxpr of `jax.vjp(fn, *args)`, whose returned function holds the residuals as
    its leaves; inputs and constants it keeps cost nothing extra and are not counted.
    """
    return sum(size for _, _, size in saved_residuals(fn, *args))


def _varint(buf: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[at]
        value, shift, at = value | (byte & 0x7F) << shift, shift + 7, at + 1
        if byte < 0x80:
            return value, at


def _fields(buf: bytes) -> Iterator[tuple[int, int | bytes]]:
    """(field number, value) of a protobuf message: an int for a varint, bytes for anything length-delimited."""
    at = 0
    while at < len(buf):
        key, at = _varint(buf, at)
        if key & 7 == 0:
            value, at = _varint(buf, at)
        elif key & 7 == 2:
            size, at = _varint(buf, at)
            value, at = buf[at : at + size], at + size
        else:  # fixed 64- or 32-bit, which the pprof fields read here never use
            value, at = buf[at : at + (8 if key & 7 == 1 else 4)], at + (8 if key & 7 == 1 else 4)
        yield key >> 3, value


def _ints(value: int | bytes) -> list[int]:
    """A repeated integer field: one varint, or several packed into bytes."""
    if isinstance(value, int):
        return [value]
    found, at = [], 0
    while at < len(value):
        number, at = _varint(value, at)
        found.append(number)
    return found


def memory_profile_samples(data: bytes) -> list[tuple[int, int, str]]:
    """`(bytes, buffers, where)` per sample of `jax.profiler.device_memory_profile()`, largest first.

    The profile is pprof's format (a gzipped protobuf: `pprof` and speedscope open it too). `where` is
    the innermost Python frame outside JAX's own code that created the buffers, as `file:line function`.
    """
    profile = list(_fields(gzip.decompress(data)))
    strings = [value.decode() for field, value in profile if field == 6 and isinstance(value, bytes)]
    functions, locations, samples = {}, {}, []
    for field, value in profile:
        parts: dict[int, list] = {}
        for number, part in _fields(value) if isinstance(value, bytes) and field in (2, 4, 5) else ():
            parts.setdefault(number, []).append(part)
        if field == 5:  # Function: id, name, system name, file name
            functions[parts[1][0]] = (strings[parts.get(2, [0])[0]], strings[parts.get(4, [0])[0]])
        elif field == 4:  # Location: id, lines (function id, line number)
            lines = [dict(_fields(line)) for line in parts.get(4, [])]
            locations[parts[1][0]] = [(line.get(1, 0), line.get(2, 0)) for line in lines]
        elif field == 2:  # Sample: location ids (innermost first), values (count, bytes)
            ids = [i for chunk in parts.get(1, []) for i in _ints(chunk)]
            values = [v for chunk in parts.get(2, []) for v in _ints(chunk)]
            samples.append((ids, values))
    found = []
    for ids, values in samples:
        frames = [(functions.get(f, ("?", "?")), line) for i in ids for f, line in locations.get(i, [])]
        ours = [(name, file, line) for (name, file), line in frames if "/jax/" not in file and "/jaxlib/" not in file]
        user = [f"{file.rsplit('/', 1)[-1]}:{line} {name}" for name, file, line in ours]
        found.append((values[-1] if values else 0, values[0] if values else 0, user[0] if user else "(inside JAX)"))
    return sorted(found, reverse=True)
