"""A proof's scratch courses (proving/_run.py): a pipeline that could not grade a submission is heard, not fatal."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from autograder.grading.proving import _run
from autograder.grading.proving._sets import ExerciseSet

from support import ROOT

pytestmark = pytest.mark.unit


def _scratch(pipeline: str) -> _run.Scratch:
    layout = _run.Layout("jax-course", "solutions", "exercises")
    return _run.Scratch(pipeline, Path("."), ExerciseSet(ROOT, "02_immutability"), layout, students=["alice"])


@pytest.mark.parametrize("pipeline", _run.PIPELINES)
def test_a_submission_not_graded_is_kept_for_the_proof_to_name_and_anything_else_stops_it(pipeline, monkeypatch):
    def ran(status):
        def run(command, **_):
            return subprocess.CompletedProcess(command, status, "", f"alice's kernel died (status {status})")

        return run

    scratch = _scratch(pipeline)
    monkeypatch.setattr(_run.subprocess, "run", ran(1))
    scratch.grade(1)
    assert "alice's kernel died (status 1)" in scratch.said
    monkeypatch.setattr(_run.subprocess, "run", ran(2))
    with pytest.raises(_run.ProofError, match=f"{pipeline} failed \\(exit status 2\\)"):
        scratch.grade(1)
