"""A wall-clock budget for timing, and JAX's debugging modes off while it runs."""

from __future__ import annotations

import contextlib
import functools
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import CodeType

import jax

# Captured at import, before any student code runs, so that a student cell that
# replaces time.perf_counter cannot speed up its own measurement.
clock = time.perf_counter


class BudgetExceeded(BaseException):
    """Raised by the timer's alarm; not an Exception, so no `except Exception` in user or JAX code swallows it."""


def _on_alarm(signum, frame):
    raise BudgetExceeded


class Deadline:
    """Interrupts a call that outlives the budget, where Python lets us.

    SIGALRM only reaches the main thread, and only between Python bytecodes: a
    pure-Python loop is stopped, a long compiled XLA call is not (the grader's
    per-notebook timeout is the backstop there).
    """

    def __init__(self, seconds: float):
        self.end = clock() + seconds
        self.armed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")

    def left(self) -> float:
        return self.end - clock()

    def __enter__(self):
        if self.armed:
            self.previous = signal.signal(signal.SIGALRM, _on_alarm)
            signal.setitimer(signal.ITIMER_REAL, max(self.left(), 0.001))
        return self

    def __exit__(self, *exc):
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
        return False


class Stop:
    """Where `stopped_after` stopped its call: `at`, the clock then, or None while it has not."""

    at: float | None = None


class _Stopped(BaseException):
    """Raised inside a call by its own `stopped_after`, which alone catches it (by its `Stop`)."""

    def __init__(self, stop: Stop):
        super().__init__()
        self.stop = stop


def own_code(fn: Callable) -> CodeType | None:
    """The code of `fn`'s own body (through `functools.partial`), or None (a jitted or built-in function)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return getattr(fn, "__code__", None)


# sys.monitoring's tool ids left to tools other than debuggers, coverage, profilers and optimizers.
_FREE_TOOL_IDS = (3, 4)
_TOOL_NAME = "jax-course: a timed call stopped between its own statements"


@contextlib.contextmanager
def stopped_after(seconds: float, code: CodeType | None) -> Iterator[Stop]:
    """Stop the call below once it has run `seconds`, at its next statement of `code`; the `Stop` says when.

    Only there: never inside JAX, whose tracing, lowering and compiling a stop would leave half done. When the
    alarm finds the call elsewhere, `sys.monitoring` reports `code`'s next line (nothing else is watched). A
    `Deadline` around it still interrupts with `BudgetExceeded` when its time is up. Only this stop's own
    interruption ends quietly: anything else the call raises goes on as it would.
    """
    stop = Stop()
    armed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if code is None or not seconds < math.inf or not armed:  # no limit (infinite, or not a number)
        yield stop
        return
    monitoring = sys.monitoring
    start = clock()
    outer_left = signal.getitimer(signal.ITIMER_REAL)[0]  # a Deadline's alarm, if one is armed
    outer_end = start + outer_left if outer_left > 0 else math.inf
    watching: list[int] = []

    def stop_now(now: float) -> None:
        stop.at = now
        raise _Stopped(stop)

    def at_its_next_line(_code: CodeType, _line: int) -> None:
        stop_now(clock())

    def on_alarm(signum, frame):
        now = clock()
        if now >= outer_end:
            raise BudgetExceeded
        if now - start < seconds:
            signal.setitimer(signal.ITIMER_REAL, max(min(start + seconds, outer_end) - now, 1e-6))
            return
        if frame is not None and frame.f_code is code:
            stop_now(now)
        tool = next((t for t in _FREE_TOOL_IDS if monitoring.get_tool(t) is None), None)
        if tool is None or watching:  # every id taken (or watching already, the alarm early): look again soon
            signal.setitimer(signal.ITIMER_REAL, max(min(0.001, outer_end - now), 1e-6))
            return
        monitoring.use_tool_id(tool, _TOOL_NAME)
        watching.append(tool)
        monitoring.register_callback(tool, monitoring.events.LINE, at_its_next_line)
        monitoring.set_local_events(tool, code, monitoring.events.LINE)
        if not math.isinf(outer_end):
            signal.setitimer(signal.ITIMER_REAL, max(outer_end - now, 1e-6))

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, max(min(seconds, outer_end - start), 1e-6))
    budget_exceeded = False
    try:
        yield stop
    except _Stopped as stopped:
        if stopped.stop is not stop:
            raise
    except BudgetExceeded:
        budget_exceeded = True
        raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        for tool in watching:
            monitoring.set_local_events(tool, code, 0)
            monitoring.register_callback(tool, monitoring.events.LINE, None)
            monitoring.free_tool_id(tool)
        if not budget_exceeded and not math.isinf(outer_end):  # the Deadline's alarm, as it was
            signal.setitimer(signal.ITIMER_REAL, max(outer_end - clock(), 1e-6))


def plain_jax() -> contextlib.ExitStack:
    """JAX's debugging modes off while timing: a notebook that turns one on slows some programs far more than others."""
    stack = contextlib.ExitStack()
    for switch in (jax.debug_nans, jax.debug_infs, jax.disable_jit, jax.log_compiles, jax.check_tracer_leaks,
                   jax.enable_checks, jax.debug_key_reuse, jax.explain_cache_misses):  # fmt: skip
        stack.enter_context(switch(False))
    return stack
