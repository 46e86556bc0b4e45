"""A trace is recorded and read back per operation; the hottest operation's name is checked against it."""

from __future__ import annotations

import collections
import pathlib
import tempfile

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
    """A student's answer: a trace recorded into a temporary folder, read back, time summed per hlo_op."""
    jitted = jax.jit(f)
    jax.block_until_ready(jitted(*args))
    with tempfile.TemporaryDirectory() as folder:
        with jax.profiler.trace(folder):
            for _ in range(3):
                jax.block_until_ready(jitted(*args))
        (path,) = pathlib.Path(folder).rglob("*.xplane.pb")
        data = jax.profiler.ProfileData.from_file(str(path))
        totals = collections.Counter()
        for plane in data.planes:
            for line in plane.lines:
                for event in line.events:
                    op = dict(event.stats).get("hlo_op")
                    if op is not None:
                        totals[op] += event.duration_ns
    return totals.most_common(1)[0][0]


def test_op_times_reads_every_operation_of_the_program():
    times = ag.op_times(sort_heavy, X, S)
    assert _base(max(times, key=times.__getitem__)) == "sort"
    assert len(times) >= 2 and all(ns >= 0 for ns in times.values())


def test_a_trace_left_running_is_ended_first(tmp_path):
    jax.profiler.start_trace(tmp_path)  # as a careless earlier cell would
    times = ag.op_times(sort_heavy, X, S)
    assert _base(max(times, key=times.__getitem__)) == "sort"


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


def test_an_answer_that_asks_the_check_for_its_reading_is_refused():
    def asks(f, *args):
        times = ag.op_times(f, *args)
        return max(times, key=times.__getitem__)

    def reads_the_message(f, *args):
        try:
            ag.check_hottest_op(lambda *_: "", f, *args)
        except ag.CheckFailed as failure:
            return str(failure).split("most time is '")[-1].split("'")[0]
        return ""

    for answer in (asks, reads_the_message):
        with pytest.raises(ag.CheckFailed, match="check's own reading of a trace"):
            ag.check_hottest_op(answer, sort_heavy, X, S, what="hottest_op")
    assert _base(top(sort_heavy, X, S)) == "sort"  # and the check answers again once it is done


class _Forged:
    """A ProfileData whose only operation is `dot`, for any file."""

    class _Event:
        name, duration_ns, stats = "dot", 10**9, [("hlo_op", "dot"), ("run_id", 0)]

    @staticmethod
    def from_file(path):
        line = type("Line", (), {"name": "forged", "events": [_Forged._Event()]})
        return type("Data", (), {"planes": [type("Plane", (), {"name": "forged", "lines": [line]})]})


def test_a_forged_profiler_reaches_neither_the_trace_nor_the_verdict(monkeypatch):
    profiler = jax.profiler  # another name for the module, as a notebook cell could use
    monkeypatch.setattr(profiler, "ProfileData", _Forged)
    assert _base(max(ag.op_times(sort_heavy, X, S).items(), key=lambda item: item[1])[0]) == "sort"
    with pytest.raises(ag.CheckFailed, match=r"replaced jax\.profiler\.ProfileData\.from_file"):
        ag.check_hottest_op(lambda f, *a: "dot", sort_heavy, X, S, what="hottest_op", reveal=False)
