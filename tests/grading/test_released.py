"""A set's generated assignment, made once per version of its solutions
(`autograder/grading/selfcheck/_released.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.grading.selfcheck._released import generated

pytestmark = pytest.mark.unit


def _course(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "clone"
    (root / "solutions" / "01_arrays").mkdir(parents=True)
    (root / "solutions" / "01_arrays" / "01_arrays.ipynb").write_text('{"cells": []}')
    (root / "nbgrader_config.py").write_text("c = get_config()\n")
    return root, tmp_path / "cache"


def _check(tmp_path: Path, root: Path, cache: Path, name: str) -> tuple[Path, list]:
    """One throw-away course, as a self-check makes it; which generations ran."""
    course, ran = tmp_path / name, []
    course.mkdir()
    release = course / "exercises" / "01_arrays"

    def generate() -> None:
        ran.append(name)
        (course / "gradebook.db").write_text(f"made for {name}")
        release.mkdir(parents=True)
        (release / "01_arrays.ipynb").write_text("{}")

    generated(course, root, "01_arrays", release, cache, generate)
    assert (release / "01_arrays.ipynb").is_file()
    return course, ran


def test_the_assignment_is_generated_once_per_version_of_its_solutions(tmp_path):
    root, cache = _course(tmp_path)
    first, ran = _check(tmp_path, root, cache, "first")
    assert ran == ["first"]
    second, ran = _check(tmp_path, root, cache, "second")
    assert ran == [] and (second / "gradebook.db").read_text() == "made for first"
    (root / "solutions" / "01_arrays" / "data.csv").write_text("1,2\n")  # a file added beside the notebook
    third, ran = _check(tmp_path, root, cache, "third")
    assert ran == ["third"] and (third / "gradebook.db").read_text() == "made for third"
    (root / "nbgrader_config.py").write_text("c = get_config()\nc.Execute.timeout = 5\n")
    assert _check(tmp_path, root, cache, "fourth")[1] == ["fourth"]


def test_a_cache_that_cannot_be_written_costs_a_generation_each_time_and_nothing_else(tmp_path):
    root, cache = _course(tmp_path)
    cache.write_text("a file where the cache folder would be")
    assert _check(tmp_path, root, cache, "first")[1] == ["first"]
    assert _check(tmp_path, root, cache, "second")[1] == ["second"]
