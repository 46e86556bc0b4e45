"""A budget for timing, and a call stopped once it has run long enough, between its own statements."""

from __future__ import annotations

import math
import signal
import sys
import time
import traceback

import pytest

from autograder.checks import _deadline
from autograder.checks._deadline import BudgetExceeded, Deadline, LongEnough, clock, own_code, stopped_after

pytestmark = pytest.mark.unit


def _spin(seconds: float) -> None:
    end = clock() + seconds
    while clock() < end:
        pass


def loops_through_a_helper(turns: int = 10_000) -> int:
    """Almost all of its time in `_spin`, a function of its own: a stop there would be inside someone else's code."""
    done = 0
    for _ in range(turns):
        _spin(0.001)
        done += 1
    return done


def _no_alarm_left() -> bool:
    return signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_stop_lands_between_the_functions_own_statements():
    start = clock()
    with pytest.raises(LongEnough) as stopped:
        with stopped_after(0.02, own_code(loops_through_a_helper)):
            loops_through_a_helper()
    assert stopped.value.at - start >= 0.02  # not before it has run that long
    frames = [frame.f_code for frame, _ in traceback.walk_tb(stopped.value.__traceback__)]
    interrupted = [code for code in frames if code.co_filename != _deadline.__file__][-1]  # the stop's own: no
    assert interrupted is loops_through_a_helper.__code__, frames
    assert _no_alarm_left()


def test_without_a_limit_or_a_python_body_the_call_runs_to_its_end():
    previous = signal.getsignal(signal.SIGALRM)
    with stopped_after(math.inf, own_code(loops_through_a_helper)):
        assert loops_through_a_helper(30) == 30
    with stopped_after(0.0, own_code(len)):  # a built-in has no statements of its own to stop between
        assert own_code(len) is None
        assert loops_through_a_helper(30) == 30
    assert signal.getsignal(signal.SIGALRM) is previous and _no_alarm_left()


def test_a_deadline_around_a_stop_still_interrupts_when_due():
    previous = signal.getsignal(signal.SIGALRM)
    with pytest.raises(BudgetExceeded):
        with Deadline(0.05):
            with stopped_after(30.0, own_code(loops_through_a_helper)):
                loops_through_a_helper()
    assert signal.getsignal(signal.SIGALRM) is previous and _no_alarm_left()


def test_after_a_stop_the_deadline_around_it_is_armed_again():
    with pytest.raises(BudgetExceeded):
        with Deadline(0.2) as deadline:
            with pytest.raises(LongEnough):
                with stopped_after(0.01, own_code(loops_through_a_helper)):
                    loops_through_a_helper()
            assert deadline.left() > 0
            end = time.monotonic() + 30
            while time.monotonic() < end:  # the deadline's alarm ends this, not the clock
                pass
            pytest.fail("the deadline's alarm was lost after the stop")
    assert _no_alarm_left()


def test_tools_already_watching_keep_their_ids():
    """With every id it may use taken (a debugger's, a profiler's), a stop only lands where an alarm finds the call
    in its own statements, and the others' ids stay theirs."""
    monitoring = sys.monitoring
    taken = [tool for tool in _deadline._FREE_TOOL_IDS if monitoring.get_tool(tool) is None]
    for tool in taken:
        monitoring.use_tool_id(tool, "another tool")
    try:
        try:
            with stopped_after(0.005, own_code(loops_through_a_helper)):
                assert loops_through_a_helper(50) == 50
        except LongEnough as stopped:
            frames = [frame.f_code for frame, _ in traceback.walk_tb(stopped.__traceback__)]
            assert [code for code in frames if code.co_filename != _deadline.__file__][-1] is own_code(
                loops_through_a_helper
            )
        assert [monitoring.get_tool(tool) for tool in taken] == ["another tool"] * len(taken)
    finally:
        for tool in taken:
            monitoring.free_tool_id(tool)
    assert _no_alarm_left()
