"""The verifier's processes (`autograder/grading/verification/_verifier.py`): failures confined, and kept warm."""

from __future__ import annotations

import os
import sys

import jax
import jax.numpy as jnp
import pytest

from autograder._verified import problems
from autograder.grading.kernels import _nursery
from autograder.grading.verification import _verifier, _verifier_process
from autograder.verifying import _hand_over


def _handed(**functions) -> dict:
    """What set 01's hand-over cells would display for these answers (by grade id)."""
    handed = {}
    for grade_id, function in functions.items():
        problem = problems("01_arrays")[grade_id]
        answers = [(_hand_over.answer(problem, call, {problem.function: function}), call) for call in problem.calls]
        handed[grade_id] = [{"program": _hand_over.exported(answer, call)} for answer, call in answers]
    return handed


def _softmax(x):
    e = jnp.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.unit
def test_a_verifier_that_cannot_run_fails_every_verified_test_saying_why(monkeypatch):
    def no_nursery(env):
        raise _nursery.NurseryError("the kernel nursery did not finish importing its libraries")

    monkeypatch.setattr(_verifier_process, "nursery_for", no_nursery)
    monkeypatch.setattr(sys, "executable", "/bin/false")
    verdicts = _verifier.Verifier("01_arrays", {}).verdicts({})
    assert set(verdicts) == set(problems("01_arrays"))
    assert all(not v["passed"] and "could not verify" in v["message"] for v in verdicts.values())


@pytest.mark.unit
def test_a_verifier_kept_warm_judges_the_next_notebook_as_a_new_one_would():
    env = dict(os.environ)
    with _verifier.verifier_for("01_arrays", env) as first:
        assert first is not None
        right = first.verdicts(_handed(test_softmax=_softmax))
        pid = first.process.pid if first.process else None
    with _verifier.verifier_for("01_arrays", env) as again:
        assert again is first and again.process is not None and again.process.pid == pid
        junk = again.verdicts(_handed(test_softmax=lambda x: x))
    fresh = _verifier.Verifier("01_arrays", env)
    try:
        assert fresh.verdicts(_handed(test_softmax=lambda x: x)) == junk
    finally:
        fresh.close()
    assert right["test_softmax"]["passed"] and not junk["test_softmax"]["passed"]
    assert "was not handed to the grader" in junk["test_pairwise"]["message"]


def _holds_a_gigabyte(x, y):
    """A 1.8 KB program that keeps 1 GB in the verifier for as long as it runs (about forever)."""
    big = jax.lax.fori_loop(0, 10**9, lambda i, big: big + 1.0, jnp.zeros((2**28,)) + x[0, 0])
    return jnp.zeros((x.shape[0], y.shape[0])) + big[0]


def _never_ends(x, y):  # stops on no input: its condition stays true
    return jax.lax.while_loop(lambda d: d[0, 0] > -1.0, lambda d: d + 1.0, jnp.zeros((x.shape[0], y.shape[0])))


def _started(monkeypatch) -> _verifier.Verifier:
    """A verifier past its imports, whose problems then time out after 6 s (the new process that takes over
    imports JAX again within them)."""
    verifier = _verifier.Verifier("01_arrays", dict(os.environ))
    verifier.verdicts({})
    monkeypatch.setattr(_verifier, "PROBLEM_TIMEOUT", 6)
    return verifier


# Each waits out a problem's timeout (6 s) in a verifier process: of the grading tier, not the quick one.
@pytest.mark.grading
@pytest.mark.parametrize("asked_ahead", [False, True], ids=["decided-at-the-end", "asked-ahead"])
def test_a_program_that_never_ends_fails_its_own_test_and_no_other(monkeypatch, asked_ahead):
    handed = _handed(test_pairwise=_never_ends, test_softmax=_softmax)
    verifier = _started(monkeypatch)
    try:
        if asked_ahead:  # as the self-check asks, each hand-over as its cell runs
            verifier.ahead("test_pairwise", handed["test_pairwise"])
            verifier.ahead("test_softmax", handed["test_softmax"])
        verdicts = verifier.verdicts(handed)
    finally:
        verifier.close()
    assert (
        not verdicts["test_pairwise"]["passed"] and "did not finish within 6 s" in verdicts["test_pairwise"]["message"]
    )
    assert verdicts["test_softmax"]["passed"], verdicts["test_softmax"]
    assert "was not handed to the grader" in verdicts["test_safe_take"]["message"]  # the rest, in a new process


# What verifying a notebook may take is counted against its submission: the verifier's memory, and what the
# notebook's own run left of the time the grader gives it (`jax-course grade --timeout`).
@pytest.mark.grading
@pytest.mark.parametrize(
    "program, limits, said",
    [
        (_holds_a_gigabyte, _verifier.Limits(memory_mb=700), "used more than the 700 MB of memory a submission"),
        (_never_ends, _verifier.Limits(seconds=4), "the time the grader gives one notebook ran out"),
    ],
    ids=["memory", "the-notebooks-time"],
)
def test_a_program_past_its_submissions_share_fails_its_own_test_and_no_other(program, limits, said):
    handed = _handed(test_pairwise=program, test_softmax=_softmax)
    verifier = _verifier.Verifier("01_arrays", dict(os.environ))
    try:
        verifier.verdicts({})  # past its imports
        verdicts = verifier.verdicts(handed, limits=limits)
    finally:
        verifier.close()
    assert not verdicts["test_pairwise"]["passed"] and said in verdicts["test_pairwise"]["message"], verdicts
    if limits.seconds is None:  # the memory: the rest in a new process
        assert verdicts["test_softmax"]["passed"], verdicts["test_softmax"]
    else:  # the time: spent, so what is left fails saying so
        assert said in verdicts["test_softmax"]["message"], verdicts["test_softmax"]


@pytest.mark.unit
def test_a_verdict_asked_for_ahead_counts_only_for_the_programs_handed_over_in_the_end():
    """The self-check verifies each answer as its hand-over cell runs; the notebook's final hand-over decides."""
    right, junk = _handed(test_softmax=_softmax), _handed(test_softmax=lambda x: x)
    verifier = _verifier.Verifier("01_arrays", dict(os.environ))
    try:
        verifier.ahead("test_softmax", right["test_softmax"])
        assert verifier.verdicts(right)["test_softmax"]["passed"]
        verifier.ahead("test_softmax", right["test_softmax"])  # then the notebook hands over other programs
        assert not verifier.verdicts(junk)["test_softmax"]["passed"]
        assert verifier.verdicts(right)["test_softmax"]["passed"]  # nothing asked ahead: decided at the end
    finally:
        verifier.close()


@pytest.mark.unit
def test_a_test_the_kernel_failed_is_not_verified_and_stays_failed(monkeypatch):
    """Its error already scores it zero: the verifier is not asked about it, even for a program that passes."""
    asked = []
    verifier = _verifier.Verifier("01_arrays", dict(os.environ))
    decide = lambda handed, left, *limits: asked.extend(left) or dict.fromkeys(left, "decided")  # noqa: E731
    monkeypatch.setattr(verifier, "_decide", decide)
    try:
        verdicts = verifier.verdicts(_handed(test_softmax=_softmax), failed={"test_softmax", "test_timing"})
    finally:
        verifier.close()
    assert verdicts["test_softmax"] == _verifier.FAILED_IN_THE_KERNEL
    assert asked == [grade_id for grade_id in problems("01_arrays") if grade_id != "test_softmax"]
    assert set(verdicts) == set(problems("01_arrays"))  # test_timing is decided in the kernel alone
