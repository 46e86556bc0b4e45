"""Speed checks: ratios in one process, robust to a busy machine, bounded in time."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import traceback

import jax
import jax.numpy as jnp
import pytest

import autograder as ag
from autograder.checks import _deadline, _timing

from support import ANY_VALUE, selu, selu_loop

pytestmark = pytest.mark.unit

X = jnp.linspace(-2.0, 2.0, 150)  # the Python loop answers call `selu` once an element


@pytest.fixture
def other_core_busy():
    """A busy loop on the other core for the length of one test, stopped by pid."""
    busy = subprocess.Popen(
        [sys.executable, "-c", "import time\nend = time.time() + 120\nwhile time.time() < end: pass"]
    )
    try:
        yield busy.pid
    finally:
        busy.kill()
        busy.wait()


def test_jitted_answer_passes_and_python_loop_fails():
    ag.check_speedup(jax.jit(selu), selu_loop, (X,), "selu", required=5.0, works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed):
        ag.check_speedup(selu_loop, selu_loop, (X,), "selu", required=5.0, works=ANY_VALUE)


def test_verdicts_hold_with_the_other_core_busy(other_core_busy):
    ag.check_speedup(jax.jit(selu), selu_loop, (X,), "selu", required=5.0, works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed):
        ag.check_speedup(selu_loop, selu_loop, (X,), "selu", required=5.0, works=ANY_VALUE)


def test_failure_states_measured_and_required_ratio():
    with pytest.raises(ag.CheckFailed) as error:
        ag.check_speedup(
            selu_loop,
            selu_loop,
            (X,),
            "selu",
            what="my_selu",
            required=5.0,
            section="01#Broadcasting instead of Python loops",
            works=ANY_VALUE,
        )
    message = str(error.value)
    assert re.search(r"my_selu ran \d+\.\dx as fast as the baseline", message)
    assert "required: at least 5x" in message
    assert "course/01_arrays.ipynb#Broadcasting-instead-of-Python-loops" in message
    assert "compiled" not in message  # a plain slow loop compiles nothing new: no word about recompiling


@pytest.mark.parametrize("required", [1e6, 1e-6])
def test_an_answer_that_jits_inside_itself_fails_however_fast_it_runs(required):
    """Its ratio would measure how fast the machine compiles, or finds the program in a compilation cache."""

    def jits_every_call(x):
        return jax.jit(lambda y: selu(y))(x)

    with pytest.raises(ag.CheckFailed, match=r"compiled \d+ times while it was timed.*jax.jit created inside"):
        ag.check_speedup(jits_every_call, selu_loop, (X,), "selu", required=required, works=ANY_VALUE)


def test_every_output_leaf_is_waited_for():
    a = jax.random.normal(jax.random.key(0), (700, 700))
    matmul = jax.jit(lambda a: a @ a @ a)
    cheap_first = jax.jit(lambda a: (a[0, 0], a @ a @ a))
    # Blocking on the first leaf alone would make this look many times faster.
    assert ag.measure_speedup(cheap_first, matmul, (a,)).ratio < 2.0


def test_compilation_is_excluded():
    def slow_to_compile():
        return jax.jit(lambda x: sum(jnp.sin(x * i) for i in range(100)))

    start = time.perf_counter()
    jax.block_until_ready(slow_to_compile()(X))
    first_call = time.perf_counter() - start  # compiles, then runs
    timed = slow_to_compile()
    measured = ag.measure_speedup(timed, timed, (X,))
    assert measured.candidate_seconds < first_call / 10, "the compile was timed"


def test_a_hanging_answer_is_cut_short_within_the_budget():
    hang = 30.0

    def hangs(x):
        time.sleep(hang)
        return x

    start = time.perf_counter()
    with pytest.raises(ag.CheckFailed, match="did not finish a single call within the 1 s"):
        ag.check_speedup(hangs, jax.jit(selu), (X,), "selu", required=5.0, budget_seconds=1.0, works=ANY_VALUE)
    assert time.perf_counter() - start < hang / 4, "the check waited for the answer rather than its budget"


def test_a_slow_result_is_measured_again_before_failing(monkeypatch):
    results = iter([_timing.Speedup(1.0, 2.0, False), _timing.Speedup(0.1, 2.0, False)])
    calls = []

    def fake(*args, **kwargs):
        calls.append(1)
        return next(results)

    monkeypatch.setattr(_timing, "measure_speedup", fake)
    # The second measurement (20x) passes: no failure, and nothing shown in a notebook.
    assert ag.check_speedup(selu, selu, (X,), "selu", required=5.0, works=ANY_VALUE) is None
    assert len(calls) == 2


def test_a_result_three_times_too_slow_is_not_measured_again(monkeypatch):
    calls = []

    def fake(*args, **kwargs):
        calls.append(1)
        return _timing.Speedup(1.0, 2.0, False)  # 2x, against a required 7x

    monkeypatch.setattr(_timing, "measure_speedup", fake)
    with pytest.raises(ag.CheckFailed, match="ran 2.0x"):
        ag.check_speedup(selu, selu, (X,), "selu", required=7.0, works=ANY_VALUE)
    assert len(calls) == 1


def test_advisory_mode_prints_instead_of_failing(monkeypatch, capsys):
    monkeypatch.setenv("JAXCOURSE_TIMING", "advisory")
    ag.check_speedup(selu_loop, selu_loop, (X,), "selu", required=5.0, works=ANY_VALUE)
    assert "Timing is advisory" in capsys.readouterr().out


# The slow side, its blocks in a full measurement (9 of the answer's, 5 of the baseline's), and the early stop
# that skips them.
_FAR = [("baseline", 5, {"enough": 3.0}), ("candidate", 9, {"hopeless": 0.5})]


@pytest.mark.parametrize(("slow_side", "blocks", "stop"), _FAR, ids=["far past: enough", "far below: hopeless"])
def test_a_ratio_far_from_what_is_needed_is_not_measured_block_after_block(slow_side, blocks, stop):
    """A slow side costs seconds a block: once a round measures `enough` (or two rounds `hopeless`), the blocks
    left are skipped."""
    calls = 0

    def slow(x):
        nonlocal calls
        calls += 1
        time.sleep(0.03)
        return x

    fast = jax.jit(selu)
    candidate, baseline = (fast, slow) if slow_side == "baseline" else (slow, fast)
    far = ag.measure_speedup(candidate, baseline, (X,), **stop)
    # A slow verdict takes two rounds (a busy machine's block); the baseline is warmed up by one call.
    warm_up, rounds = (2, 2) if slow_side == "candidate" else (1, 1)
    assert calls == warm_up + rounds and not far.cut_short  # then a block of one call a round
    assert far.ratio >= 3.0 if slow_side == "baseline" else far.ratio <= 0.5
    calls = 0
    ag.measure_speedup(candidate, baseline, (X,))
    assert calls == warm_up + blocks  # and every block, when no round is that far


def test_calls_that_wait_for_a_core_do_not_speak_for_the_rest():
    """On a busy machine (a batch's other notebook) a call now and then waits a scheduler's time slice for a core,
    the warm-up calls and the first timed one among them here. A block counts its median call and lasts as long
    as its calls take, and one round is no verdict of "hopeless" against an answer as fast as the baseline."""
    calls = 0

    def waits_now_and_then(x):
        nonlocal calls
        calls += 1
        time.sleep(0.04 if calls <= 3 or calls % 9 == 0 else 0.002)
        return x

    def steady(x):
        time.sleep(0.002)
        return x

    measured = ag.measure_speedup(waits_now_and_then, steady, (X,), hopeless=0.25)
    assert measured.ratio > 0.25, measured  # the first block, one call that waited, says twenty times slower
    assert calls > 20  # blocks of many calls, not the one that the waiting warm-up calls suggested


def test_a_baseline_block_that_compiled_does_not_count():
    """The baseline is warmed up by one call, as the course's compile only on their first; one that compiles later
    all the same would look slow in that block, and the answer fast."""
    calls = 0

    def compiles_on_its_second_call(x):
        nonlocal calls
        calls += 1
        time.sleep(0.03)
        if calls == 2:
            return jax.jit(lambda y: sum(jnp.sin(y * i) for i in range(200)))(x)  # about a second of compiling
        return x

    def steady(x):
        time.sleep(0.03)
        return x

    assert ag.measure_speedup(steady, compiles_on_its_second_call, (X,), enough=2.0).ratio < 2.0


def test_the_baselines_first_call_is_outside_the_budget():
    """It compiles the course's code, which on a machine busy with other notebooks can take the whole budget:
    the budget bounds what the answer costs."""
    calls = 0

    def slow_to_start(x):
        nonlocal calls
        calls += 1
        time.sleep(1.5 if calls == 1 else 0.03)
        return x

    def answer(x):  # a few calls a block: little to prepare, and no compiling, inside the budget
        time.sleep(0.005)
        return x

    measured = ag.measure_speedup(answer, slow_to_start, (X,), budget_seconds=1.0, enough=3.0)
    assert not measured.cut_short and measured.ratio >= 3.0


def test_a_slow_baselines_calls_stop_once_they_prove_the_ratio():
    """A baseline's call that has run `enough` times the answer's is stopped there: the rest of it cannot change
    a verdict that the answer is fast enough. Against an answer not that fast, every call runs to its end."""
    finished = 0

    def slow_loop(x):
        nonlocal finished
        for _ in range(40):
            time.sleep(0.005)
        finished += 1
        return x

    measured = ag.measure_speedup(jax.jit(selu), slow_loop, (X,), enough=3.0)
    assert measured.ratio >= 3.0 and not measured.cut_short and finished == 0, measured
    ag.check_speedup(jax.jit(selu), slow_loop, (X,), "selu", required=5.0, works=ANY_VALUE)
    assert finished == 0

    def as_slow(x):
        time.sleep(0.2)
        return x

    measured = ag.measure_speedup(as_slow, slow_loop, (X,), enough=3.0, hopeless=2.0)
    assert measured.ratio < 3.0 and finished == 3, measured  # the warm-up call and two rounds' blocks: whole


def test_an_answer_cannot_end_its_own_timed_calls_early():
    """Only the baseline's calls are stopped, each by its own stop: an answer raising a stop of its own gets no
    short call out of it, only an error."""
    untimed = []  # its values checked once, then its two warm-up calls

    def stops_its_timed_calls(x):
        if isinstance(x, jax.core.Tracer):  # its program's size, read before anything runs
            return selu_loop(x)
        if len(untimed) < 3:
            untimed.append(x)
            return selu_loop(x)
        raise _deadline._Stopped(_deadline.Stop())

    with pytest.raises(_deadline._Stopped) as raised:
        ag.check_speedup(stops_its_timed_calls, selu_loop, (X,), "selu", required=5.0, works=ANY_VALUE)
    assert "_block" in [frame.f_code.co_name for frame, _ in traceback.walk_tb(raised.tb)]  # in a timed block
