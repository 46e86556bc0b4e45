"""Settings read from the environment: the timing mode and the grader seed."""

from __future__ import annotations

import pytest

import autograder as ag

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("variable", ["BINDER_REQUEST", "COLAB_RELEASE_TAG"])
def test_timing_is_advisory_on_shared_machines_unless_told_otherwise(monkeypatch, variable):
    monkeypatch.delenv("JAXCOURSE_TIMING")
    monkeypatch.setenv(variable, "1")
    assert ag.timing_mode() == "advisory"
    monkeypatch.setenv("JAXCOURSE_TIMING", "enforce")
    assert ag.timing_mode() == "enforce"


def test_unknown_timing_mode_is_an_error(monkeypatch):
    monkeypatch.setenv("JAXCOURSE_TIMING", "sometimes")
    with pytest.raises(ValueError, match="enforce"):
        ag.timing_mode()


def test_a_bad_seed_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("JAXCOURSE_GRADER_SEED", "secret")
    with pytest.raises(ValueError, match="whole number"):
        ag.grader_seed()
