"""`grade_id_if_test`: which cells the grading side treats as tests, read alike from nbformat and from JSON."""

from __future__ import annotations

import nbformat
import pytest

from autograder.grading._cells import grade_id_if_test

pytestmark = pytest.mark.unit


def _cell(cell_type="code", **nbgrader):
    cell = {"cell_type": cell_type, "metadata": {"nbgrader": nbgrader} if nbgrader else {}, "source": ""}
    if cell_type == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        (_cell(grade=True, solution=False, grade_id="test_affine", points=2), "test_affine"),
        (_cell(grade=True, grade_id="test_affine"), "test_affine"),  # nbgrader leaves `solution` out at times
        (_cell(grade=True, solution=False), ""),  # its id removed: still a test, still one the grader handles
        (_cell(grade=False, solution=True, grade_id="affine"), None),  # an answer
        (_cell(grade=True, solution=True, grade_id="explain"), None),  # an answer graded by hand
        (_cell("markdown", grade=True, solution=False, grade_id="prose"), None),
        (_cell(locked=True, grade_id="given"), None),  # given code
        (_cell(), None),
    ],
    ids=["test", "no solution key", "no id", "answer", "manual", "markdown", "given", "plain"],
)
def test_a_test_cell_is_code_that_nbgrader_grades_and_holds_no_answer(cell, expected):
    assert grade_id_if_test(cell) == expected
    assert grade_id_if_test(nbformat.from_dict(cell)) == expected
