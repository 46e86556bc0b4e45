"""Declared answers share submissions only when they cannot touch each other's verdicts (proving/_packing.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from autograder.grading.proving._packing import MAX_PACK, affected_by, can_share, cells_reading_changed_names, pack
from autograder.grading.proving._sets import ExerciseSet

from support import ASSIGNMENTS, ROOT
from variants import VARIANTS

pytestmark = pytest.mark.unit


def S(assignment: str) -> ExerciseSet:
    return ExerciseSet(ROOT, assignment)


def _listed(packs: list[dict[str, set[str]]]) -> list[dict[str, list[str]]]:
    return [{name: sorted(affected) for name, affected in members.items()} for members in packs]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_members_of_a_pack_share_no_answer_cell_and_no_test_one_of_them_loses(assignment):
    packs = pack(S(assignment), VARIANTS[assignment])
    assert sorted(name for members in packs for name in members) == sorted(VARIANTS[assignment])
    for members in packs:
        assert 1 <= len(members) <= MAX_PACK
        answers = [cell for name in members for cell in VARIANTS[assignment][name]["answers"]]
        lost = [test for name, affected in members.items() for test in affected & VARIANTS[assignment][name]["loses"]]
        reached = [test for affected in members.values() for test in affected]
        assert len(answers) == len(set(answers)), f"{list(members)} change the same answer cell"
        assert all(reached.count(test) == 1 for test in lost), f"{list(members)}: a test one loses, another reaches"
        answers = {cell: source for name in members for cell, source in VARIANTS[assignment][name]["answers"].items()}
        for name, affected in members.items():
            variant = VARIANTS[assignment][name]
            if variant.get("setting"):  # a global setting reaches every later test: graded alone
                assert len(members) == 1 and affected == affected_by(S(assignment), variant), f"{name} shares a pack"
                continue
            alone = cells_reading_changed_names(S(assignment), variant["answers"])
            packed = cells_reading_changed_names(S(assignment), variant["answers"], answers)
            assert affected == alone == packed, f"{name} reaches other tests beside {list(members)}"


def test_a_variant_that_changes_a_global_setting_reaches_every_later_test_and_is_graded_alone():
    setting = VARIANTS["01_arrays"]["x64_switched_on"]
    later = affected_by(S("01_arrays"), setting)
    assert {"test_standardize", "test_safe_take", "test_softmax_stable", "test_timing"} <= later
    other = {"safe_take_clamped_index": VARIANTS["01_arrays"]["safe_take_clamped_index"]}
    packs = pack(S("01_arrays"), {"x64_switched_on": setting, **other})
    assert [list(members) for members in packs] == [["x64_switched_on"], ["safe_take_clamped_index"]]


def test_variants_of_different_answers_that_reach_one_test_are_not_packed_together():
    # 09's test_fit trains with every answer: a wrong `predict` and a wrong `fit` both reach it.
    variants = {name: VARIANTS["09_capstone"][name] for name in ("predict_row_loop", "fit_forgets_params")}
    packs = pack(S("09_capstone"), variants)
    assert [list(members) for members in packs] == [["predict_row_loop"], ["fit_forgets_params"]]


def test_a_wrong_answer_that_calls_another_answer_is_not_packed_with_a_variant_of_that_answer():
    # The reference's center_shard_map calls no other answer; this variant calls center_pmap, so
    # a wrong center_pmap in the same notebook would change the shard_map tests' verdicts.
    variants = {name: VARIANTS["08_parallel"][name] for name in ("pmap_local_mean", "shard_map_still_pmap")}
    affected = {name: cells_reading_changed_names(S("08_parallel"), v["answers"]) for name, v in variants.items()}
    assert not affected["pmap_local_mean"] & affected["shard_map_still_pmap"]  # apart, they reach different tests
    assert not can_share(S("08_parallel"), variants, affected)
    assert len(pack(S("08_parallel"), variants)) == 2


def test_variants_that_keep_a_test_they_both_reach_share_a_submission():
    # Two of 09's alternatives both reach test_fit (and test_predict, test_step, ...), and keep them all.
    names = ("predict_batched_by_hand", "step_grad_then_loss")
    packs = pack(S("09_capstone"), {name: VARIANTS["09_capstone"][name] for name in names})
    assert [sorted(members) for members in packs] == [sorted(names)]


def test_packs_are_the_same_on_every_run():
    """Also in another process, whose sets iterate in another order (another hash seed)."""
    mine = {assignment: _listed(pack(S(assignment), VARIANTS[assignment])) for assignment in ASSIGNMENTS}
    assert mine == {assignment: _listed(pack(S(assignment), VARIANTS[assignment])) for assignment in ASSIGNMENTS}
    script = (
        "import json\nfrom autograder.grading.proving._packing import pack\n"
        "from autograder.grading.proving._sets import ExerciseSet\nfrom support import ASSIGNMENTS, ROOT\n"
        "from variants import VARIANTS\npacks = {a: pack(ExerciseSet(ROOT, a), VARIANTS[a]) for a in ASSIGNMENTS}\n"
        "print(json.dumps({a: [{n: sorted(t) for n, t in m.items()} for m in p] for a, p in packs.items()}))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT / "tests")}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == mine


def test_a_variant_that_loses_a_test_its_answers_cannot_reach_is_refused():
    good = VARIANTS["01_arrays"]["standardize_sample_std"]
    broken = {**good, "loses": {"test_standardize", "test_safe_take"}}  # safe_take's test reads no `standardize`
    with pytest.raises(ValueError, match=r"01_arrays: standardize_broken loses \['test_safe_take'\]"):
        pack(S("01_arrays"), {"standardize_sample_std": good, "standardize_broken": broken})
