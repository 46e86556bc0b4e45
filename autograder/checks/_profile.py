"""The operations a profiler trace records, and a check of a student's reading of one.

`jax.profiler.trace(folder)` writes an XSpace file (`*.xplane.pb`) under `folder/plugins/profile/`;
`jax.profiler.ProfileData.from_file` reads it back. Every event the device ran for a compiled
program carries an `hlo_op` stat (the XLA operation's name, such as `sort.0` or a fusion); the
host's Python events do not. Summing the durations of those events per name gives each
operation's time, on CPU, GPU and TPU alike.
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
import numpy as np

from ._deadline import plain_jax
from ._errors import CheckFailed

# Taken when the package is imported, before any cell of a notebook runs: a cell that rebinds them through another
# name for the module (`p = jax.profiler; p.ProfileData = ...`) cannot forge the trace the check records and reads.
_OWN = {
    "jax.jit": jax.jit,
    "jax.profiler.trace": jax.profiler.trace,
    "jax.profiler.stop_trace": jax.profiler.stop_trace,
    "jax.profiler.ProfileData.from_file": jax.profiler.ProfileData.from_file,
}
# Set while a check runs a student's hottest_op, which must read a trace of its own: not ask this module for one.
_asking = {"answering": False, "asked": False}


def _replaced() -> list[str]:
    """The functions of `_OWN` that code in the notebook has replaced since the package was imported."""
    found = []
    for name, own in _OWN.items():
        value: Any = jax
        for attr in name.split(".")[1:]:
            value = getattr(value, attr, None)
        if value is not own:
            found.append(name)
    return found


def _record(f: Callable, args: tuple, repeats: int) -> Any:
    """The `ProfileData` of `repeats` calls of `f(*args)`, written to and read back from a temporary folder."""
    with tempfile.TemporaryDirectory() as folder:
        try:
            session = _OWN["jax.profiler.trace"](folder)
            session.__enter__()
        except RuntimeError:  # a trace an earlier cell left running: end it, or no trace can start
            _OWN["jax.profiler.stop_trace"]()
            session = _OWN["jax.profiler.trace"](folder)
            session.__enter__()
        try:
            for _ in range(repeats):
                jax.block_until_ready(f(*args))
        finally:
            session.__exit__(None, None, None)
        (xspace,) = pathlib.Path(folder).rglob("*.xplane.pb")
        return _OWN["jax.profiler.ProfileData.from_file"](str(xspace))


def op_times(f: Callable, *args: Any, repeats: int = 5) -> dict[str, float]:
    """Nanoseconds per call of each XLA operation of `jax.jit(f)(*args)`, compilation excluded.

    The median over `repeats` calls (events of one call share a `run_id` stat), so one call that the
    machine disturbed does not decide which operation looks hottest. While a check runs a student's
    `hottest_op`, it refuses to answer (and the check fails): the exercise is to read a trace oneself.
    """
    if _asking["answering"]:
        _asking["asked"] = True
        raise CheckFailed("the check's own reading of a trace cannot answer for hottest_op.")
    with plain_jax():
        jitted = _OWN["jax.jit"](f)
        jax.block_until_ready(jitted(*args))
        data = _record(jitted, args, repeats)
    per_call: dict[str, collections.Counter[Any]] = collections.defaultdict(collections.Counter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # jaxlib's stats type lacks __module__
        for plane in data.planes:
            for line in plane.lines:
                for event in line.events:
                    stats = dict(event.stats)
                    if "hlo_op" in stats:
                        per_call[str(stats["hlo_op"])][stats.get("run_id")] += event.duration_ns
    calls = {run for runs in per_call.values() for run in runs}
    return {op: float(np.median([runs.get(run, 0.0) for run in calls])) for op, runs in per_call.items()}


def _base(name: str) -> str:
    """`sort.0` -> `sort`: XLA numbers the copies of an operation, and the numbers may change between compilations."""
    return re.sub(r"(\.\d+)+$", "", name)


def _answer(hottest_op: Callable, f: Callable, args: tuple, what: str, section: str | None) -> Any:
    """`hottest_op(f, *args)`; a failure if it asked this module for a trace (`op_times`) instead of reading its own."""
    _asking.update(answering=True, asked=False)
    try:
        with plain_jax():  # a debugging mode an earlier cell left on would change the program that runs
            answer = hottest_op(f, *args)
    except Exception:
        if not _asking["asked"]:
            raise
        answer = None
    finally:
        _asking["answering"] = False
    if _asking["asked"]:
        raise CheckFailed(
            f"{what} called the check's own reading of a trace (ag.op_times, or ag.check_hottest_op to read the answer "
            "off its message), which refuses to answer for it: the exercise is to record a trace and read it yourself.",
            hint="record a few calls with jax.profiler.trace into a temporary folder, read the file back with "
            "jax.profiler.ProfileData.from_file, and sum event.duration_ns per event's hlo_op stat.",
            section=section,
        )
    return answer


def check_hottest_op(
    hottest_op: Callable,
    f: Callable,
    *args: Any,
    what: str = "hottest_op(f, *args)",
    hint: str | None = None,
    section: str | None = None,
    reveal: bool = True,
) -> None:
    """Check that `hottest_op(f, *args)` names the XLA operation with the most total time in a trace of `jax.jit(f)`.

    The check records its own trace (`op_times`, medians per call); the functions graded should have one
    operation that dominates by far. A wrong name is asked for twice more, since the student's trace may
    have caught a disturbed call. Names compare without XLA's `.N` suffixes. A hidden test passes
    `reveal=False`: its failure names no operation of the program, which could be returned instead.
    """
    ranked = sorted(op_times(f, *args).items(), key=lambda item: -item[1])
    top, answer = (ranked[0][0] if ranked else None), ""
    for _ in range(3):  # the student's own trace may catch a disturbed call: it gets two more tries
        answer = _answer(hottest_op, f, args, what, section)
        if not isinstance(answer, str):
            kind = type(answer).__name__
            message = f"{what} returned {answer!r} of type {kind}, not an operation's name (a str)."
            raise CheckFailed(message, hint=hint, section=section)
        if top is not None and _base(answer) == _base(top):
            return
    known = {_base(name) for name, _ in ranked}
    unknown = "" if _base(answer) in known else " It is not an XLA operation of this program."
    if _replaced():  # what the notebook forged did not reach the check's trace: say so, it explains the verdict
        unknown += (
            f" Code in this notebook replaced {', '.join(_replaced())}: the check records and reads its trace "
            "with JAX's own functions, taken before any cell ran."
        )
    if not reveal:
        raise CheckFailed(
            f"{what} returned {answer!r}, which is not the operation with the most time in the check's own trace "
            f"of the program.{unknown}",
            hint=hint or "sum each operation's time over the trace's device events; the program's text cannot tell.",
            section=section,
        )
    table = ", ".join(f"{name} {ns / 1e6:.3f} ms" for name, ns in ranked[:4])
    raise CheckFailed(
        f"{what} returned {answer!r}, but the operation with the most time is {top!r} "
        f"(the trace's top operations, per call: {table}).{unknown}",
        hint=hint,
        section=section,
    )
