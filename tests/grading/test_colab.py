"""Colab badges and setup cells follow the repository written in pyproject.toml."""

from __future__ import annotations

import shutil

import nbformat
import pytest

from autograder.grading.authoring import _colab

from support import ROOT

pytestmark = pytest.mark.unit


def test_every_notebook_starts_with_its_badge_and_the_setup_cell():
    assert _colab.rewrite_all(ROOT, check=True) == [], "stale: run `jax-course badges` then `make exercises`"
    released = [(p, p.relative_to(ROOT).as_posix()) for p in sorted((ROOT / "exercises").glob("*/*.ipynb"))]
    for path, opened_as in [*released, *_colab.notebooks(ROOT)]:
        cells = nbformat.read(path, as_version=4).cells
        assert cells[0].source == _colab.badge_source(_colab.repository(ROOT), opened_as), path
        assert cells[1].source == _colab.setup_source(ROOT), path
        # Folded away: a form in Colab, a collapsed input in JupyterLab; only its title line shows.
        assert cells[1].metadata["cellView"] == "form" and cells[1].metadata["jupyter"]["source_hidden"], path
        assert cells[1].source.startswith("#@title "), path


def test_badges_follow_the_repository_written_in_pyproject(tmp_path):
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "course").mkdir()
    shutil.copy(ROOT / "course" / "01_arrays.ipynb", tmp_path / "course")
    shutil.copytree(ROOT / "solutions" / "02_immutability", tmp_path / "solutions" / "02_immutability")
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(_colab.repository(ROOT), "https://github.com/someone/fork"))

    changed = _colab.rewrite_all(tmp_path)

    assert changed == ["course/01_arrays.ipynb", "exercises/02_immutability/02_immutability.ipynb", "README.md"]
    solution = nbformat.read(tmp_path / "solutions" / "02_immutability" / "02_immutability.ipynb", as_version=4)
    assert "github/someone/fork/blob/main/exercises/02_immutability/02_immutability.ipynb" in solution.cells[0].source
    assert "git+https://github.com/someone/fork@main" in solution.cells[1].source
    assert (
        solution.cells[1].metadata.nbgrader["locked"]
        and solution.cells[1].metadata.nbgrader["grade_id"] == "colab_setup"
    )
    assert [c.source for c in solution.cells].count(solution.cells[1].source) == 1, "the old setup cell was kept"
    assert "mybinder.org/v2/gh/someone/fork/main" in (tmp_path / "README.md").read_text()
    assert _colab.rewrite_all(tmp_path) == []
