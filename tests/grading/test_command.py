"""`jax-course prove` refuses, with what to do, a set it cannot prove: no notebook, or declarations that do not read."""

from __future__ import annotations

import shutil

import pytest

from autograder.grading._cli import main

from support import ROOT

pytestmark = pytest.mark.unit


@pytest.fixture
def course(tmp_path, monkeypatch):
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    shutil.copytree(ROOT / "solutions" / "02_immutability", tmp_path / "solutions" / "02_immutability")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_set_with_no_notebook_is_refused_and_new_is_named(course, capsys):
    assert main(["prove", "17_mine"]) == 2
    said = capsys.readouterr().err
    assert "no solutions/17_mine/17_mine.ipynb" in said and "jax-course new 17_mine" in said


def test_declared_answers_that_do_not_read_are_refused_with_their_error(course, capsys):
    (course / "tests" / "variants").mkdir(parents=True)
    (course / "tests" / "variants" / "02_immutability.py").write_text("VARIANTS = {\n")
    assert main(["prove", "02_immutability", "--no-write"]) == 2
    said = capsys.readouterr().err
    assert "tests/variants/02_immutability.py cannot be read" in said and "SyntaxError" in said


def test_the_scorecard_shows_a_submissions_text_as_written_never_as_markup():
    from rich.console import Console

    from autograder.grading.proving._command import report
    from autograder.grading.proving._judge import Findings
    from autograder.grading.proving._prove import Proof, Row
    from autograder.grading.proving._sets import ExerciseSet

    findings = Findings()
    findings.add("test_scatter_add", "does nothing must score 0: [/bold] [red]x")
    row = Row("test_scatter_add", "does nothing", 0.0, {"nbgrader autograde": 1.0}, "visible", "CheckFailed: [/x]")
    console = Console(width=200, record=True)
    proof = Proof(ExerciseSet(ROOT, "02_immutability"), ["test_scatter_add"], [row], findings, {}, {}, {})
    report(proof, console)
    shown = console.export_text()
    assert "CheckFailed: [/x]" in shown and "[/bold] [red]x" in shown and "02_immutability: not sound" in shown
