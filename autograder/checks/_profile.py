"""The operations a profiler trace records, and a check of a student's reading of one.

`jax.profiler.trace(folder)` writes an XSpace file (`*.xplane.pb`) under `folder/plugins/profile/`;
`jax.profiler.ProfileData.from_file` reads it back. Every event the device ran for a compiled
program carries an `hlo_op` stat (the XLA operation's name, such as `sort.0` or a fusion); the
host's Python events do not. Summing the durations of those events per name gives each
operation's total time, on CPU, GPU and TPU alike.
"""

from __future__ import annotations

import collections
import pathlib
import re
import tempfile
import warnings
from collections.abc import Callable
from typing import Any

import jax

from ._deadline import plain_jax
from ._errors import CheckFailed


def _record(f: Callable, args: tuple, repeats: int) -> Any:
    """The `ProfileData` of `repeats` calls of `f(*args)`, written to and read back from a temporary folder."""
    with tempfile.TemporaryDirectory() as folder:
        try:
            session = jax.profiler.trace(folder)
            session.__enter__()
        except RuntimeError:  # a trace an earlier cell left running: end it, or no trace can start
            jax.profiler.stop_trace()
            session = jax.profiler.trace(folder)
            session.__enter__()
        try:
            for _ in range(repeats):
                jax.block_until_ready(f(*args))
        finally:
            session.__exit__(None, None, None)
        (xspace,) = pathlib.Path(folder).rglob("*.xplane.pb")
        return jax.profiler.ProfileData.from_file(str(xspace))


def op_times(f: Callable, *args: Any, repeats: int = 3) -> dict[str, float]:
    """Total nanoseconds per XLA operation over `repeats` calls of `jax.jit(f)(*args)`, compilation excluded."""
    with plain_jax():
        jitted = jax.jit(f)
        jax.block_until_ready(jitted(*args))
        data = _record(jitted, args, repeats)
    totals: collections.Counter[str] = collections.Counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # jaxlib's stats type lacks __module__
        for plane in data.planes:
            for line in plane.lines:
                for event in line.events:
                    op = dict(event.stats).get("hlo_op")
                    if op is not None:
                        totals[str(op)] += event.duration_ns
    return dict(totals)


def _base(name: str) -> str:
    """`sort.0` -> `sort`: XLA numbers the copies of an operation, and the numbers may change between compilations."""
    return re.sub(r"(\.\d+)+$", "", name)


def check_hottest_op(
    hottest_op: Callable,
    f: Callable,
    *args: Any,
    what: str = "hottest_op(f, *args)",
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that `hottest_op(f, *args)` names the XLA operation with the most total time in a trace of `jax.jit(f)`.

    The check records its own trace (`op_times`) and requires the top operation to dominate (3x the next one,
    re-measured up to twice), so the verdict does not depend on noise. Names compare without XLA's `.N` suffixes.
    """
    with plain_jax():  # a debugging mode an earlier cell left on would change the program that runs
        answer = hottest_op(f, *args)
    if not isinstance(answer, str):
        raise CheckFailed(f"{what} returned {answer!r} of type {type(answer).__name__}, not an operation's name (a str).",
                          hint=hint, section=section)  # fmt: skip
    for _ in range(3):
        ranked = sorted(op_times(f, *args).items(), key=lambda item: -item[1])
        if len(ranked) < 2 or ranked[0][1] >= 3 * ranked[1][1]:
            break
    top = ranked[0][0]
    if _base(answer) != _base(top):
        table = ", ".join(f"{name} {ns / 1e6:.3f} ms" for name, ns in ranked[:4])
        known = "" if _base(answer) in {_base(name) for name, _ in ranked} else " It is not an XLA operation of this program."
        raise CheckFailed(f"{what} returned {answer!r}, but the operation with the most total time is {top!r} "
                          f"(the trace's top operations: {table}).{known}", hint=hint, section=section)  # fmt: skip
