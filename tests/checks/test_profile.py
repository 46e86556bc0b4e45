"""A trace is recorded and read back per operation; the hottest operation's name is checked against it."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import autograder as ag
from autograder.checks._profile import _base

pytestmark = pytest.mark.unit

X = jax.random.normal(jax.random.key(0), (1 << 15,))
S = jnp.ones((8, 8))


def sort_heavy(x, s):
    return jnp.sort(x)[:4].sum() + jnp.sin(s).sum()


def top(f, *args):
    times = ag.op_times(f, *args)
    return max(times, key=times.__getitem__)


def test_op_times_reads_every_operation_of_the_program():
    times = ag.op_times(sort_heavy, X, S)
    assert _base(max(times, key=times.__getitem__)) == "sort"
    assert len(times) >= 2 and all(ns >= 0 for ns in times.values())


def test_a_trace_left_running_is_ended_first(tmp_path):
    jax.profiler.start_trace(tmp_path)  # as a careless earlier cell would
    assert _base(top(sort_heavy, X, S)) == "sort"


def test_the_right_name_passes_with_or_without_its_number():
    ag.check_hottest_op(top, sort_heavy, X, S)
    ag.check_hottest_op(lambda f, *a: _base(top(f, *a)), sort_heavy, X, S)


@pytest.mark.parametrize("answer", ["ynn_fusion", "dot", 3])
def test_a_wrong_name_fails_saying_which_op_is_hottest(answer):
    with pytest.raises(ag.CheckFailed, match="sort|str"):
        ag.check_hottest_op(lambda f, *a: answer, sort_heavy, X, S, what="hottest_op")


def test_suffixes_are_dropped():
    assert _base("sort.0") == "sort" and _base("ynn_fusion.1.2") == "ynn_fusion" and _base("fft") == "fft"


@pytest.mark.parametrize("answer", ["dot", "ynn_fusion"])
def test_a_hidden_tests_failure_names_no_operation_of_the_program(answer):
    with pytest.raises(ag.CheckFailed) as failed:
        ag.check_hottest_op(lambda f, *a: answer, sort_heavy, X, S, what="hottest_op on hidden inputs", reveal=False)
    names = {_base(name) for name in ag.op_times(sort_heavy, X, S)} - {answer}
    assert "not the operation with the most time" in str(failed.value)
    assert not [name for name in names if name in str(failed.value)], str(failed.value)
