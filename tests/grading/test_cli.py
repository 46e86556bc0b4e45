"""`jax-course`: its commands, and a clear message outside the course."""

from __future__ import annotations

import pytest

from autograder.grading._cli import _parser, assignments, course_root, main

from support import ASSIGNMENTS, ROOT

pytestmark = pytest.mark.unit


def test_assignments_come_from_solutions():
    assert assignments(ROOT) == ASSIGNMENTS


def test_outside_the_course_the_command_says_where_to_run_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit, match="run this inside the course checkout"):
        course_root()


def test_grade_takes_the_limits_an_instructor_sets():
    args = _parser().parse_args(["grade", "04_jit", "--timeout", "600", "--memory", "2048", "--workers", "2"])
    assert (args.assignment, args.timeout, args.memory, args.workers) == ("04_jit", 600.0, 2048.0, 2)


def test_badges_check_passes_on_the_committed_course(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["badges", "--check"]) == 0
