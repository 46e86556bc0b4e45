"""`check_timing_protocol`: a timer passes when it warms up, blocks and repeats, and each omission
fails with its own message."""

from __future__ import annotations

import statistics
import time
import timeit

import jax
import numpy as np
import pytest

import autograder as ag
from autograder.lecture import time_min

pytestmark = pytest.mark.unit

# The visible test's settings and the hidden test's smallest wait (see solutions/01_arrays).
SETTINGS = [{"wait": 0.04, "disturbed": (3.0,)}, {"wait": 0.012, "disturbed": (3.5,)}]


def _timed(f, args):
    t0 = time.perf_counter()
    jax.block_until_ready(f(*args))
    return time.perf_counter() - t0


def minimum(f, *args, repeats=5):
    jax.block_until_ready(f(*args))
    return min(_timed(f, args) for _ in range(repeats))


def mean_after_warmup(f, *args, repeats=5):
    jax.block_until_ready(f(*args))
    return statistics.mean(_timed(f, args) for _ in range(repeats))


def median_with_timeit(f, *args, repeats=5):
    jax.block_until_ready(f(*args))
    return statistics.median(timeit.repeat(lambda: jax.block_until_ready(f(*args)), number=1, repeat=repeats))


def reads_the_value(f, *args, repeats=5):
    """Waits by reading the result (NumPy, float, device_get), as on a JAX array: sound too."""
    float(f(*args))
    times = []
    for read in (np.asarray, float, jax.device_get, np.asarray, float)[:repeats]:
        t0 = time.perf_counter()
        read(f(*args))
        times.append(time.perf_counter() - t0)
    return min(times)


def never_blocks(f, *args, repeats=5):
    jax.block_until_ready(f(*args))
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        f(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def no_warmup_mean(f, *args, repeats=5):
    return statistics.mean(_timed(f, args) for _ in range(repeats))


def one_timed_call(f, *args, repeats=5):
    jax.block_until_ready(f(*args))
    return _timed(f, args)


@pytest.mark.parametrize("settings", SETTINGS, ids=["visible", "hidden"])
@pytest.mark.parametrize("timer", [minimum, mean_after_warmup, median_with_timeit, reads_the_value])
def test_a_sound_protocol_passes_at_once(timer, settings):
    """Two runs, the disturbed one and the compiling one: a sound timer is not asked to measure again."""
    runs = []

    def counted(f, *args, **kwargs):
        runs.append(f)
        return timer(f, *args, **kwargs)

    ag.check_timing_protocol(counted, **settings)
    assert len(runs) == 2


@pytest.mark.parametrize("settings", SETTINGS, ids=["visible", "hidden"])
@pytest.mark.parametrize(
    ("timer", "message"),
    [
        (never_blocks, r"the clock stopped before the work finished(.|\n)*jax.block_until_ready"),
        (no_warmup_mean, r"the first call compiles for \d+ ms, and your timing includes it"),
        (one_timed_call, r"was disturbed \(\d\.\d times slower\), and one timed call"),
    ],
    ids=["no blocking", "no warm-up", "one timed call"],
)
def test_each_missing_part_fails_with_its_own_message(timer, message, settings):
    with pytest.raises(ag.CheckFailed, match=message) as failure:
        ag.check_timing_protocol(timer, what="seconds_per_call", **settings)
    assert "times the true time" in str(failure.value)
    assert "01_arrays.ipynb#Asynchronous-dispatch-and-timing" in str(failure.value)


def test_a_constant_that_fits_one_wait_fails_a_wait_three_times_smaller():
    def constant(f, *args, repeats=5):
        return 0.04

    ag.check_timing_protocol(constant, wait=0.04)
    with pytest.raises(ag.CheckFailed, match="without calling the function it was given"):
        ag.check_timing_protocol(constant, wait=0.012)


def test_the_lectures_helper_is_refused_and_a_non_number_named():
    with pytest.raises(ag.CheckFailed, match="write it yourself"):
        ag.check_timing_protocol(time_min)
    with pytest.raises(ag.CheckFailed, match="returned None, not a number"):
        ag.check_timing_protocol(lambda f, *args, repeats=5: None)
