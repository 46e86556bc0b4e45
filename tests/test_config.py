"""Settings read from the environment: the timing mode and the grader seed."""

from __future__ import annotations

import os

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


def test_environment_with_sets_values_then_restores_the_environment_even_after_an_error(monkeypatch):
    from autograder._config import environment_with

    monkeypatch.setenv("JAXCOURSE_TEST_KEPT", "before")
    monkeypatch.delenv("JAXCOURSE_TEST_NEW", raising=False)
    before = dict(os.environ)
    with pytest.raises(RuntimeError), environment_with({"JAXCOURSE_TEST_KEPT": "during", "JAXCOURSE_TEST_NEW": "1"}):
        assert os.environ["JAXCOURSE_TEST_KEPT"] == "during" and os.environ["JAXCOURSE_TEST_NEW"] == "1"
        os.environ["JAXCOURSE_TEST_SET_INSIDE"] = "x"
        raise RuntimeError("grading failed")
    assert dict(os.environ) == before
