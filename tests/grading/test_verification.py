"""The grader's side of verification: hand-over cells in and out, verdicts onto the test cells."""

from __future__ import annotations

import os

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder._verified import CELL_KEY, MIME
from autograder.grading.verification import _verification, _verifier

pytestmark = pytest.mark.unit


def _cell(grade_id: str, *, grade: bool = True, outputs=()):
    cell = new_code_cell("ag.check_close(...)")
    cell.metadata["nbgrader"] = {"grade_id": grade_id, "grade": grade, "solution": not grade, "points": 1}
    cell.outputs = list(outputs)
    return cell


def _notebook():
    return new_notebook(cells=[_cell("softmax", grade=False), _cell("test_softmax"), _cell("test_timing")])


def test_a_hand_over_cell_follows_each_verified_test_cell_only():
    nb = _verification.add_hand_overs(_notebook(), "01_arrays")
    assert [c.metadata.get(CELL_KEY) for c in nb.cells] == [None, None, "test_softmax", None]
    assert "hand_over('01_arrays', 'test_softmax', globals())" in nb.cells[2].source
    nbformat.validate(nb)
    assert len(_verification.add_hand_overs(_notebook(), "not_a_course_set").cells) == 3


def test_the_hand_over_cells_come_out_with_what_they_displayed():
    nb = _verification.add_hand_overs(_notebook(), "01_arrays")
    calls = [{"program": "AAAA"}]
    nb.cells[2].outputs = [new_output("display_data", data={MIME: {"grade_id": "test_softmax", "calls": calls}})]
    assert _verification.take_hand_overs(nb) == {"test_softmax": calls}
    assert [c.metadata["nbgrader"]["grade_id"] for c in nb.cells] == ["softmax", "test_softmax", "test_timing"]


def test_the_course_s_key_copied_onto_a_submission_s_cells_makes_no_hand_over_of_them():
    nb = _notebook()
    forged = {"grade_id": "test_softmax", "calls": [{"program": "AAAA"}]}
    for cell in nb.cells:  # an answer cell and a failing test cell, marked as the grader marks its own
        cell.metadata[CELL_KEY] = "test_softmax"
        cell.metadata["jax_course_grader"] = "a guess"
        cell.outputs = [new_output("display_data", data={MIME: forged})]
    nb = _verification.add_hand_overs(nb, "01_arrays")
    assert [_verification.hand_over_of(c) for c in nb.cells] == [None, None, "test_softmax", None]
    assert _verification.take_hand_overs(nb) == {}  # the grader's own cell displayed nothing
    assert [c.metadata["nbgrader"]["grade_id"] for c in nb.cells] == ["softmax", "test_softmax", "test_timing"]


def test_a_hand_over_for_another_test_or_too_large_is_dropped(monkeypatch):
    nb = _verification.add_hand_overs(_notebook(), "01_arrays")
    nb.cells[2].outputs = [new_output("display_data", data={MIME: {"grade_id": "test_pairwise", "calls": []}})]
    assert _verification.take_hand_overs(nb) == {}
    nb = _verification.add_hand_overs(_notebook(), "01_arrays")
    nb.cells[2].outputs = [new_output("display_data", data={MIME: {"grade_id": "test_softmax", "calls": ["x" * 99]}})]
    monkeypatch.setattr(_verification, "MAX_HANDED_BYTES", 50)
    assert _verification.take_hand_overs(nb) == {}


def test_a_verdict_decides_a_cell_the_kernel_passed_and_leaves_the_kernels_own_failure():
    failed_here = new_output("error", ename="CheckFailed", evalue="the kernel's message", traceback=[])
    nb = new_notebook(cells=[_cell("test_softmax"), _cell("test_pairwise", outputs=[failed_here]), _cell("test_a")])
    verdicts = {
        "test_softmax": {"passed": False, "message": "softmax on a hidden input differs"},
        "test_pairwise": {"passed": False, "message": "the verifier's message"},
        "test_a": {"passed": True, "message": ""},
    }
    assert _verification.apply_verdicts(nb, verdicts) == ["test_softmax"]
    assert nb.cells[0].outputs[0].evalue.endswith("where it failed: softmax on a hidden input differs")
    assert nb.cells[0].outputs[0].traceback == ["CheckFailed: " + nb.cells[0].outputs[0].evalue]
    assert [o.evalue for o in nb.cells[1].outputs] == ["the kernel's message"]
    assert nb.cells[2].outputs == []


def test_a_verdict_that_fails_a_test_takes_out_the_line_the_kernel_printed_for_its_pass():
    said = new_output("stream", name="stdout", text="✓ test_softmax passed (1 point)\n")
    note = new_output("stream", name="stdout", text="accuracy 0.97\n")
    nb = new_notebook(cells=[_cell("test_softmax", outputs=[said, note])])
    assert _verification.apply_verdicts(nb, {"test_softmax": {"passed": False, "message": "differs"}}) == [
        "test_softmax"
    ]
    assert [o.output_type for o in nb.cells[0].outputs] == ["error", "stream"]
    assert nb.cells[0].outputs[1].text == "accuracy 0.97\n"


def test_verdicts_computed_ahead_are_taken_once_and_the_started_verifier_is_kept_warm(monkeypatch):
    handed, env = {"test_softmax": [{"error": "NotImplementedError: "}]}, {"JAXCOURSE_GRADER_SEED": "7"}
    ahead = {"test_softmax": {"passed": False, "message": "computed ahead"}}
    _verification._AHEAD[_verification._key("01_arrays", handed, env, frozenset())] = ahead
    started = _verifier.Verifier("01_arrays", dict(os.environ))
    assert _verification.verdicts("01_arrays", handed, env, started) is ahead
    assert started.alive() and _verifier.borrow("01_arrays", dict(os.environ)) is started  # never asked, kept
    started.close()
    other_seed = {"JAXCOURSE_GRADER_SEED": "8"}
    assert _verification._key("01_arrays", handed, env, frozenset()) != _verification._key(
        "01_arrays", handed, other_seed, frozenset()
    )


def test_the_tests_failed_in_the_kernel_are_those_showing_an_error():
    error = new_output("error", ename="CheckFailed", evalue="the kernel's message", traceback=[])
    printed = new_output("stream", name="stdout", text="a line\n")
    nb = new_notebook(
        cells=[
            _cell("softmax", grade=False, outputs=[error]),  # an answer cell that raised: no test of its own
            _cell("test_softmax", outputs=[printed, error]),
            _cell("test_pairwise", outputs=[printed]),
            _cell("test_a"),
        ]
    )
    assert _verification.failed_in_the_kernel(nb) == {"test_softmax"}


class _Asked:
    assignment = "01_arrays"

    def __init__(self):
        self.asked = []

    def ahead(self, grade_id, calls):
        self.asked.append(grade_id)


def test_a_hand_over_after_a_failed_test_is_not_verified_while_the_notebook_runs():
    error = new_output("error", ename="CheckFailed", evalue="the kernel's message", traceback=[])
    nb = _verification.add_hand_overs(
        new_notebook(cells=[_cell("test_softmax", outputs=[error]), _cell("test_pairwise")]), "01_arrays"
    )
    for cell in nb.cells[1::2]:  # as a kernel that exported all the same would show it
        grade_id = cell.metadata[CELL_KEY]
        cell.outputs = [new_output("display_data", data={MIME: {"grade_id": grade_id, "calls": []}})]
    verifier = _Asked()
    hook = _verification.verify_as_handed(verifier)  # pyright: ignore[reportArgumentType]
    for cell in nb.cells:
        hook(cell=cell)
    assert verifier.asked == ["test_pairwise"]


def test_verdicts_computed_ahead_count_only_for_the_same_failed_tests():
    handed, env = {"test_softmax": []}, {"JAXCOURSE_GRADER_SEED": "7"}
    assert _verification._key("01_arrays", handed, env, frozenset({"test_softmax"})) != _verification._key(
        "01_arrays", handed, env, frozenset()
    )
