"""A budget for timing, and a call stopped once it has run long enough, between its own statements."""

from __future__ import annotations

import math
import signal
import sys
import time

import pytest

from autograder.checks import _deadline
from autograder.checks._deadline import BudgetExceeded, Deadline, Stop, clock, own_code, stopped_after

pytestmark = pytest.mark.unit


class Loop:
    """A loop that spends almost all of its time in a helper of its own: a stop there would leave it half done."""

    def __init__(self):
        self.turns, self.in_helper = 0, False

    def helper(self) -> None:
        self.in_helper = True
        end = clock() + 0.001
        while clock() < end:
            pass
        self.in_helper = False

    def run(self, turns: int = 10_000) -> int:
        for _ in range(turns):
            self.helper()
            self.turns += 1
        return self.turns


def _no_alarm_left() -> bool:
    return signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_stop_lands_between_the_functions_own_statements():
    loop, start = Loop(), clock()
    with stopped_after(0.02, own_code(Loop.run)) as stop:
        loop.run()
    assert stop.at is not None and stop.at - start >= 0.02, stop.at  # not before it has run that long
    assert 0 < loop.turns < 10_000 and not loop.in_helper  # stopped in `run`, never in its helper
    assert _no_alarm_left()


def test_without_a_limit_or_a_python_body_the_call_runs_to_its_end():
    previous = signal.getsignal(signal.SIGALRM)
    with stopped_after(math.inf, own_code(Loop.run)) as stop:
        assert Loop().run(30) == 30
    assert stop.at is None
    with stopped_after(0.0, own_code(len)) as stop:  # a built-in has no statements of its own to stop between
        assert own_code(len) is None
        assert Loop().run(30) == 30
    assert stop.at is None
    assert signal.getsignal(signal.SIGALRM) is previous and _no_alarm_left()


def test_only_the_stops_own_interruption_ends_quietly():
    """A call that raises a stop it was not given (an answer that would end its own timing early) raises it."""

    def stops_itself():
        raise _deadline._Stopped(Stop())

    with pytest.raises(_deadline._Stopped):
        with stopped_after(10.0, own_code(stops_itself)):
            stops_itself()
    assert _no_alarm_left()


def test_a_deadline_around_a_stop_still_interrupts_when_due():
    previous = signal.getsignal(signal.SIGALRM)
    with pytest.raises(BudgetExceeded):
        with Deadline(0.05):
            with stopped_after(30.0, own_code(Loop.run)):
                Loop().run()
    assert signal.getsignal(signal.SIGALRM) is previous and _no_alarm_left()


def test_after_a_stop_the_deadline_around_it_is_armed_again():
    with pytest.raises(BudgetExceeded):
        with Deadline(0.2) as deadline:
            with stopped_after(0.01, own_code(Loop.run)) as stop:
                Loop().run()
            assert stop.at is not None and deadline.left() > 0
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
        loop = Loop()
        with stopped_after(0.005, own_code(Loop.run)):
            loop.run(50)
        assert not loop.in_helper
        assert [monitoring.get_tool(tool) for tool in taken] == ["another tool"] * len(taken)
    finally:
        for tool in taken:
            monitoring.free_tool_id(tool)
    assert _no_alarm_left()
