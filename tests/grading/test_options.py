"""`jax-course grade` reads nbgrader autograde's options with nbgrader's own parser (`batch/_options.py`)."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.unit
def test_nbgraders_options_are_read_by_nbgraders_parser_and_the_course_folder_goes_as_an_absolute_path(tmp_path):
    from autograder.grading.batch._options import read

    read_ = read(["--course-dir", str(tmp_path), "--quiet", "--Execute.timeout=5", "--notebook=p1"])
    assert (read_.root, read_.quiet, read_.assignment) == (tmp_path.resolve(), True, "")
    assert read_.passed == ["--quiet", "--Execute.timeout=5", "--notebook=p1"]
    other = read([f"--CourseDirectory.root={tmp_path}", "--assignment=ps1", "--log-level=INFO"])
    assert (other.root, other.quiet, other.assignment) == (tmp_path.resolve(), False, "ps1")
    assert other.passed == ["--assignment=ps1", "--log-level=INFO"]


def _said(argv: list[str], folder) -> tuple[int, str]:
    """`jax-course ARGV`'s exit status and what it wrote to stderr, run in `folder` as an instructor would (in this
    process, nbgrader's apps would keep logging to a stream pytest closes)."""
    program = "import sys; from autograder.grading._cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", program, *argv], cwd=folder, capture_output=True, text=True)
    return done.returncode, done.stderr


@pytest.mark.grading  # four new processes, each importing nbgrader: not for the quick tier
def test_grade_refuses_by_name_what_only_prints_nbgraders_config_and_exits_as_nbgrader_on_its_refusals(tmp_path):
    status, said = _said(["grade", "ps1", "--JupyterApp.show_config=True"], tmp_path)
    assert status == 2 and "--JupyterApp.show_config" in said
    # nbgrader autograde exits 1 on each of these, with these words.
    for argv, words in (
        (["grade", "ps1", "ps2"], "Only one argument"),
        (["grade", "ps1", "--assignment=ps1"], "cannot both be specified"),
        (["grade"], "An assignment id must be specified"),
    ):
        status, said = _said(argv, tmp_path)
        assert status == 1 and words in said, (argv, said)
