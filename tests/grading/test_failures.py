"""Why a submission could not be graded: a cause and what to do, never a bare Python exception."""

from __future__ import annotations

import logging

import nbformat
import pytest
from nbgrader.nbgraderformat import SchemaTooNewError, SchemaTooOldError

from autograder.grading.batch._failures import Heard, SubmissionError, check_timestamp, failure_reason
from autograder.grading.plugins._links import refusal

pytestmark = pytest.mark.unit


def _raised(action) -> BaseException:
    try:
        action()
    except Exception as error:  # what the grader catches around one submission
        return error
    raise AssertionError("nothing was raised")


def test_a_bad_timestamp_is_named_with_what_it_holds_and_how_to_fix_it(tmp_path):
    (tmp_path / "timestamp.txt").write_text("next tuesday-ish\n")
    with pytest.raises(SubmissionError) as raised:
        check_timestamp(tmp_path)
    reason = failure_reason(raised.value)
    assert reason.startswith("bad timestamp: timestamp.txt holds 'next tuesday-ish'"), reason
    assert "correct or delete it" in reason


@pytest.mark.parametrize("text", ["2015-02-02 15:58:23.948203 America/Los_Angeles", "", "   \n"])
def test_a_readable_or_empty_timestamp_passes(tmp_path, text):
    (tmp_path / "timestamp.txt").write_text(text)
    check_timestamp(tmp_path)
    check_timestamp(tmp_path / "no such folder")


def test_notebooks_nbgrader_cannot_read_are_named_by_cause():
    assert failure_reason(SchemaTooNewError("too new", 10, 3)).startswith(
        "schema too new: the notebook's nbgrader metadata is version 10, and this nbgrader reads version 3"
    )
    assert "nbgrader update" in failure_reason(SchemaTooOldError("too old", 1, 3))
    not_json = _raised(lambda: nbformat.reads('{"cells": [', as_version=4))
    assert failure_reason(not_json).startswith("not a notebook: the file is not JSON"), failure_reason(not_json)


def test_corrupted_metadata_names_the_validation_problem_not_the_wrapper():
    def corrupted():
        try:
            raise nbformat.ValidationError("nbgrader cell does not have a grade_id: x = 1")
        except nbformat.ValidationError:  # as nbgrader's CheckCellMetadata re-raises it, the cause as context
            raise nbformat.ValidationError("Notebook failed to validate; the nbgrader metadata may be corrupted.")  # noqa: B904

    reason = failure_reason(_raised(corrupted))
    assert reason.startswith("corrupted: the notebook's cells or their nbgrader metadata were edited or damaged")
    assert "does not have a grade_id" in reason, reason


def test_anything_else_is_named_with_its_type_and_first_line():
    assert failure_reason(OSError("disk full\nmore")) == "ungradable: OSError: disk full"


def test_every_nbgrader_warning_is_kept_for_the_report_and_shown_with_the_student_it_is_about():
    heard, log = Heard(), logging.getLogger("test_failures.nbgrader")
    shown: list[str] = []
    terminal = logging.Handler()
    terminal.emit = lambda record: shown.append(record.getMessage())  # type: ignore[method-assign]
    log.addFilter(heard)
    log.addHandler(terminal)
    try:
        log.warning("Config option `x` not recognized by `CourseDirectory`.")
        heard.student = "foo"
        log.warning("SubmittedAssignment<ps1 for foo> is %s seconds late", 3600.0)
        log.warning("Attribute 'checksum' for cell test_a has changed! (should be: 1, got: 2)")
        log.warning("No submitted file: submitted/foo/ps1/p2.ipynb")
        log.error("There was an error processing assignment")
        heard.student = "bar"
        log.warning("Attribute 'checksum' for cell test_a has changed! (should be: 1, got: 3)")
        heard.student = None
        log.warning("Config option `x` not recognized by `CourseDirectory`.")  # said again as nbgrader reads config
    finally:
        log.removeFilter(heard)
        log.removeHandler(terminal)
    assert heard.general == ["Config option `x` not recognized by `CourseDirectory`."]
    assert heard.take("foo") == [
        "SubmittedAssignment<ps1 for foo> is 3600.0 seconds late",
        "Attribute 'checksum' for cell test_a has changed! (should be: 1, got: 2)",
    ]
    assert heard.take("foo") == []
    assert heard.take("bar") == ["Attribute 'checksum' for cell test_a has changed! (should be: 1, got: 3)"]
    assert shown == [
        "Config option `x` not recognized by `CourseDirectory`.",
        "foo: SubmittedAssignment<ps1 for foo> is 3600.0 seconds late",
        "foo: Attribute 'checksum' for cell test_a has changed! (should be: 1, got: 2)",
        "foo: No submitted file: submitted/foo/ps1/p2.ipynb",
        "foo: There was an error processing assignment",
        "bar: Attribute 'checksum' for cell test_a has changed! (should be: 1, got: 3)",
    ]


def test_a_refusal_written_for_the_report_is_kept_whole():
    links = [
        f"a_long_student_name/03_tracing/data{n}.csv -> ../../../solutions/03_tracing/03_tracing.ipynb" for n in (1, 2)
    ]
    reason = failure_reason(SubmissionError(refusal(links)))
    assert reason == refusal(links) and all(link in reason for link in links) and len(reason) > 200
