"""Where each graded test is decided: every test of a verified set accounted for, and INTEGRITY.md current."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from autograder._verified import Call, Problem, in_the_kernel, problems
from autograder.grading._cli import main
from autograder.grading.authoring._share import _how, graded_tests, in_integrity, share_table

from support import ROOT, test_points

pytestmark = pytest.mark.unit

VERIFIED_SETS = sorted(path.stem for path in (ROOT / "autograder" / "verified").glob("*.toml"))

# What a verified test cell's checks hold an answer to, beyond its values, and the calls' keys that hold a program
# to the same outside the kernel. A check with no keys here has a rule no exported program shows.
RULES = {
    "check_jaxpr_constant": ("max_ops",),
    "check_log_depth": ("max_ops",),
    "check_primitives": ("requires", "forbids", "max_ops"),
    "check_collective": ("requires",),
    "check_largest_intermediate": ("max_elements",),
    "check_sharding": ("sharding",),
    "check_not_calling": (),
    "library_calls": (),
    "check_jitted": (),
    "check_compile_count": (),
    "check_no_key_reuse": (),
    "check_pallas_kernel": (),
    "check_no_program_built": (),
}
# Checks of values (and of what a program needs to be exported at all), which the verifier's comparison decides.
VALUES = {
    "check_close", "check_reference", "check_traceable", "check_within_sigmas", "check_reproducible",
    "check_independent_rows", "check_figures",
}  # fmt: skip
# A rule shown otherwise: no exported program can hold a host callback.
SHOWN_BY_EXPORTING = {("10_pytrees", "test_soup", "check_primitives")}


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


def _checks_of(assignment: str) -> dict[str, set[str]]:
    """The `ag.check_*` (and `ag.library_calls`) each graded test cell of the solution calls, by grade id."""
    notebook = json.loads((ROOT / "solutions" / assignment / f"{assignment}.ipynb").read_text())
    found = {}
    for cell in notebook["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution"):
            found[meta["grade_id"]] = set(re.findall(r"\bag\.(check_\w+|library_calls)\(", "".join(cell["source"])))
    return found


@pytest.mark.parametrize("assignment", VERIFIED_SETS)
def test_every_rule_of_a_verified_test_is_checked_by_the_verifier_or_named_as_kept_in_the_kernel(assignment):
    """A disarmed kernel passes every rule; the verifier must check it too, or INTEGRITY.md's table say it does not.
    A speed check also sees a jit made anew on every call, which only the kernel's calls show."""
    checks, unsettled = _checks_of(assignment), []
    for grade_id, problem in problems(assignment).items():
        for check in sorted(checks[grade_id] - VALUES):
            if check == "check_speedup":
                held = any(call.speedup for call in problem.calls) and problem.kernel_rule
            elif check in RULES:
                keys = RULES[check]
                held = any(getattr(call, key) for call in problem.calls for key in keys) or problem.kernel_rule
                held = held or (assignment, grade_id, check) in SHOWN_BY_EXPORTING
            else:
                held = False
                check += " (not yet sorted into RULES or VALUES)"
            if not held:
                unsettled.append(f"{grade_id}: {check}")
    assert unsettled == [], "rules only the kernel checks, with no kernel_rule saying so: " + ", ".join(unsettled)
