"""Checking a timer the student wrote: does it follow the timing protocol of lecture 01?

The check times a function it builds itself, whose true cost per call it knows. Each call
returns at once, like a JAX operation dispatched asynchronously; its result's
`block_until_ready()` (what `jax.block_until_ready` calls on every leaf) sleeps until the
"device" has finished. Calls queue one after another, as work on one device does. Two runs
isolate the parts of the protocol:

- disturbed: the first call after the warm-up takes several times longer, as a call another
  process interrupts does. A timer that never blocks measures ~0; one that times a single call
  measures the disturbed one. A minimum, a median or a mean of several calls passes.
- compiling: the first call spends a long time before it returns, as compilation does. A timer
  without a warm-up call counts it.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._errors import CheckFailed

# Accepted: [LOW, HIGH] times the true cost. Sleeping never ends early, so a blocking timer never
# measures less than the cost; the mean of 5 calls with the disturbances below stays under 1.7.
LOW, HIGH = 0.8, 2.0
COMPILE = 7.0  # the first call's extra time, in calls: a mean of 5 that includes it is >= 2.4
_SECTION = "01#Asynchronous dispatch and timing"


class _Pending:
    """A result the fake device is still computing until `ready_at` (a `time.perf_counter()` value)."""

    def __init__(self, ready_at: float):
        self.ready_at = ready_at

    def block_until_ready(self) -> _Pending:
        left = self.ready_at - time.perf_counter()
        if left > 0:
            time.sleep(left)
        return self

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        # Reading the value waits for it, as for a JAX array: np.asarray, float, jax.device_get.
        self.block_until_ready()
        return np.zeros((), dtype=dtype)

    def __float__(self) -> float:
        return float(self.__array__())


class _FakeDevice:
    """A function with a known cost: call k costs `costs[k]` seconds of work (`wait` past the list)."""

    def __init__(self, wait: float, costs: Sequence[float] = (), compile_seconds: float = 0.0):
        self.wait, self.costs, self.compile_seconds = wait, list(costs), compile_seconds
        self.calls, self.free_at = 0, 0.0

    def __call__(self, *args: Any, **kwargs: Any) -> _Pending:
        if self.calls == 0 and self.compile_seconds:
            time.sleep(self.compile_seconds)  # compilation happens in the call, before dispatch
        cost = self.costs[self.calls] if self.calls < len(self.costs) else self.wait
        self.calls += 1
        self.free_at = max(time.perf_counter(), self.free_at) + cost
        return _Pending(self.free_at)


def _measure(timer: Callable, device: _FakeDevice, repeats: int, what: str) -> float:
    result = timer(device, 1.0, repeats=repeats)
    if isinstance(result, bool) or not isinstance(result, numbers.Real) or not math.isfinite(float(result)):
        raise CheckFailed(
            f"{what} returned {result!r}, not a number of seconds.",
            hint="return the time of one call as a float, in seconds.",
            section=_SECTION,
        )
    return float(result)


def _verdict(measured: float, wait: float, too_long: str, what: str, section: str | None, called: bool = True) -> None:
    ratio = measured / wait
    if not called and not LOW <= ratio <= HIGH:  # a number that fits one wait by chance, not a measurement
        raise CheckFailed(
            f"{what} returned {measured * 1e3:.1f} ms for a function whose calls each take {wait * 1e3:.1f} ms, "
            "without calling the function it was given: it measures nothing.",
            hint="call f(*args) between two readings of time.perf_counter(), after a warm-up call, and block on "
            "its output.",
            section=section,
        )
    if ratio < LOW:
        raise CheckFailed(
            f"{what} measured {measured * 1e3:.3f} ms for a function whose calls each take {wait * 1e3:.1f} ms "
            f"of device work ({ratio:.2g} times the true time): the clock stopped before the work finished.",
            hint="block on every output with jax.block_until_ready(out) before you read the clock again.",
            section=section,
        )
    if ratio > HIGH:
        raise CheckFailed(
            f"{what} measured {measured * 1e3:.1f} ms for a function whose calls each take {wait * 1e3:.1f} ms "
            f"({ratio:.1f} times the true time): {too_long}",
            hint="call the function once before timing (warm-up), then time several blocked calls and keep "
            "the minimum.",
            section=section,
        )


def check_timing_protocol(
    timer: Callable,
    *,
    wait: float = 0.04,
    disturbed: Sequence[float] = (3.0,),
    repeats: int = 5,
    what: str = "your timer",
    section: str | None = _SECTION,
) -> None:
    """Check that `timer(f, *args, repeats=repeats)` returns the seconds one call of `f` takes.

    `wait` is the true cost of a call; `disturbed` the factors by which the calls right after
    the first are slower. The timer must warm up, block on the output and repeat.
    """
    if getattr(timer, "__module__", None) == "autograder.lecture":
        raise CheckFailed(
            f"{what} is the lecture's own helper; this problem asks you to write it yourself.",
            section=section,
        )
    costs = [wait, *(factor * wait for factor in disturbed)]
    device = _FakeDevice(wait, costs)
    measured = _measure(timer, device, repeats, what)
    slowest = max(disturbed, default=1.0)
    _verdict(
        measured,
        wait,
        f"a call right after the warm-up was disturbed ({slowest:.1f} times slower), and one timed call, "
        "or too few, cannot leave it out. Repeat the timing and keep the minimum.",
        what,
        section,
        called=device.calls > 0,
    )
    measured = _measure(timer, _FakeDevice(wait, compile_seconds=COMPILE * wait), repeats, what)
    _verdict(
        measured,
        wait,
        f"the first call compiles for {COMPILE * wait * 1e3:.0f} ms, and your timing includes it. Call the "
        "function once, and block on its output, before you start the clock.",
        what,
        section,
    )
