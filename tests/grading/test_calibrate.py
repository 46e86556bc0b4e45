"""A self-check enforces timing only where timings mean something."""

from __future__ import annotations

import pytest

from autograder.grading.selfcheck._calibrate import decide_timing


@pytest.mark.unit
def test_timing_mode_follows_the_variable_or_a_calibration(monkeypatch):
    monkeypatch.setenv("JAXCOURSE_TIMING", "advisory")
    assert decide_timing() == ("advisory", "set by JAXCOURSE_TIMING")
    monkeypatch.delenv("JAXCOURSE_TIMING")
    monkeypatch.setenv("BINDER_REQUEST", "1")
    assert decide_timing()[0] == "advisory"
    monkeypatch.delenv("BINDER_REQUEST")
    assert decide_timing(spread_limit=1e9)[0] == "enforce"
    assert decide_timing(spread_limit=0.5)[0] == "advisory"  # any spread counts as busy
