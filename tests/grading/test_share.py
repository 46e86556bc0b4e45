"""Where each graded test is decided: every test of a verified set accounted for, and INTEGRITY.md current."""

from __future__ import annotations

from dataclasses import replace

import pytest

from autograder._verified import Call, Problem, in_the_kernel, problems
from autograder.grading._cli import main
from autograder.grading._share import _how, graded_tests, in_integrity, share_table

from support import ROOT, test_points

pytestmark = pytest.mark.unit

VERIFIED_SETS = sorted(path.stem for path in (ROOT / "autograder" / "verified").glob("*.toml"))


@pytest.mark.parametrize("assignment", VERIFIED_SETS)
def test_every_graded_test_is_verified_or_kept_in_the_kernel_with_a_reason(assignment):
    verified, kept = set(problems(assignment)), in_the_kernel(assignment)
    assert verified | set(kept) == set(test_points(assignment)), "a graded test is missing, or named wrongly"
    assert not verified & set(kept), "a test both verified and kept in the kernel"
    assert all(reason.strip() for reason in kept.values())


def test_integrity_shows_where_each_test_is_decided():
    current = share_table(graded_tests(ROOT / "solutions"))
    shown = in_integrity((ROOT / "autograder" / "INTEGRITY.md").read_text())
    assert shown == current, "autograder/INTEGRITY.md's table is stale: run `jax-course verified --update`"


def test_the_command_prints_each_sets_share(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["verified"]) == 0
    assert "| 01_arrays | 10 of 11 | 91% |" in capsys.readouterr().out


def test_a_rule_kept_only_in_the_kernel_is_named_beside_how_the_test_is_verified():
    call = Call(what="f on a hidden input", args=())
    plain = Problem(grade_id="test_f", function="f", draws_from="x/f", section="01#F", calls=(call,))
    ruled = replace(plain, kernel_rule="that f does not call g: both compile to the same operations")
    assert _how(plain) == "values on 1 hidden input"
    assert _how(ruled) == (
        "values on 1 hidden input; rule kept only in the kernel: that f does not call g: both compile to the same "
        "operations"
    )
