"""Speed checks: the student's function timed against a baseline, as a ratio.

The protocol follows what held on a noisy 2-core machine (see docs/guide/checks.md, "How the
checks work"): compilation excluded by warm-up calls, `block_until_ready` on every
output, blocks of at least 20 ms of calls, candidate and baseline blocks interleaved,
a block's median call, the fastest block of each, up to two re-measurements before failing, and a wall-clock
budget so that a very slow answer cannot stall grading.

Every timed call gets inputs it has not seen before (`fresh_inputs`), so a function
that remembers results for inputs it has seen (an `lru_cache`, a dict keyed on the
bytes of its input) gains nothing.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from statistics import median  # bound at import, as `clock` is: a cell that replaces it gains nothing

import jax

from .._config import timing_mode
from . import baselines
from ._backend import backend
from ._deadline import BudgetExceeded, Deadline, clock, own_code, plain_jax, stopped_after
from ._errors import CheckFailed, name_of
from ._fresh import fresh_inputs
from ._reference import recording
from ._size import check_compiled_size
from ._thresholds import required_speedup
from ._works import Works, confirm_call

# The baselines of the course's speed checks, captured before any student code runs.
_TRUSTED = dict(baselines.TIMED)


@dataclass(frozen=True)
class Speedup:
    """One measurement: seconds per call (the fastest block's median call) and their ratio."""

    candidate_seconds: float
    baseline_seconds: float
    cut_short: bool
    candidate_compiles: int = 0  # XLA compilations during the candidate's timed calls, after its warm-up

    @property
    def ratio(self) -> float:
        """How many times faster the candidate is than the baseline."""
        return self.baseline_seconds / max(self.candidate_seconds, 1e-12)


@contextlib.contextmanager
def _unregistering(listener: Callable) -> Iterator[None]:
    try:
        yield
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


def _call(fn: Callable, args: tuple) -> None:
    jax.block_until_ready(fn(*args))


def _block(
    fn: Callable, fresh: fresh_inputs, guess: float, min_seconds: float, times: list[float], long_enough: float
) -> float:
    """Seconds a call of `fn` takes in a block of calls lasting at least `min_seconds` in all: the median call's.

    Each call is timed alone, into `times`: on a machine busy with other programs (a batch's other notebook),
    a call that waited for a core counts as one slow call, not as a slower program, and a block is as long as
    its calls take, not as many calls as a warm-up call (which may have waited too) suggested. A call still
    running after `long_enough` seconds is stopped at its next statement (`stopped_after`) and counts as long as
    it ran: less than the whole call would take, and all a verdict that it is at least that slow needs.
    """
    spent, code = 0.0, own_code(fn)
    while spent < min_seconds and len(times) < fresh.most:
        want = max(1, math.ceil((min_seconds - spent) / max(guess, 1e-9)))
        for args in fresh.take(min(want, fresh.most - len(times))):
            start = end = clock()
            with stopped_after(long_enough, code) as stop:
                start = clock()
                _call(fn, args)
                end = clock()
            if stop.at is not None:
                times.append(stop.at - start)
                return median(times)
            times.append(end - start)
            spent += times[-1]
        guess = median(times)
    return median(times)


def _warm_up(
    candidate: Callable, baseline: Callable, fresh: fresh_inputs, deadline: Deadline, enough: float
) -> tuple[dict[str, float], bool]:
    """The candidate's two first calls within the budget, then the baseline's first outside it (the deadline moves
    on by as long as that took): each side's fastest of them in seconds, and whether the budget ran out."""
    warm, cut_short = {"candidate": math.inf, "baseline": math.inf}, False
    try:
        with deadline:
            for inputs in fresh.take(2):
                start = clock()
                _call(candidate, inputs)
                warm["candidate"] = min(warm["candidate"], clock() - start)
    except BudgetExceeded:
        cut_short = True
    # The baseline's first call compiles its operations outside the budget, which bounds what the answer
    # costs: on a machine busy with other notebooks, compiling the course's own code can take all of it.
    # Once compiled, a slow baseline's call need run no longer than the ratio `enough` asks.
    for inputs in fresh.take(1):
        start = clock()
        with stopped_after(enough * warm["candidate"], own_code(baseline)):
            _call(baseline, inputs)
        warm["baseline"] = clock() - start
        deadline.end += warm["baseline"]
    return warm, cut_short


def measure_speedup(
    candidate: Callable,
    baseline: Callable,
    args: tuple,
    *,
    min_block_seconds: float = 0.02,
    candidate_blocks: int = 9,
    baseline_blocks: int = 5,
    budget_seconds: float = 20.0,
    enough: float = math.inf,
    hopeless: float = 0.0,
) -> Speedup:
    """Time `candidate(*args)` against `baseline(*args)` in this process.

    The candidate is called twice first and the baseline once, so that compilation is excluded (the course's
    baselines compile only on their first call; a baseline's block that compiled all the same is not
    counted), then timed in blocks of at least `min_block_seconds`, interleaved; a block counts its median call
    (`_block`), each function its fastest block. Every call gets inputs never seen before
    (`fresh_inputs`), so remembered results don't help.
    When the budget runs out the measurement stops early and says so (`cut_short`);
    what was measured so far decides. Once a round of blocks has measured a ratio of at least
    `enough`, or two rounds at most `hopeless`, the rest are skipped: more blocks only lower each minimum,
    by no more than noise does. With `enough`, a call of the baseline is also stopped once it has run `enough`
    times the answer's best call (between two of its own statements: `stopped_after`), so `baseline_seconds`
    is then what it ran, at least `enough` times the answer's, not a whole call.
    """
    best = {"candidate": math.inf, "baseline": math.inf}
    fresh = fresh_inputs(args)
    compiles = {"candidate": 0, "baseline": 0, None: 0}
    timing: list[str | None] = [None]
    times: list[float] = []

    def listen(event: str, duration_secs: float, **_: str | int) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            compiles[timing[0]] += 1

    jax.monitoring.register_event_duration_secs_listener(listen)
    deadline = Deadline(budget_seconds)
    with plain_jax(), _unregistering(listen):
        warm, cut_short = _warm_up(candidate, baseline, fresh, deadline, enough)
        try:
            with deadline:
                for i in range(0 if cut_short else max(candidate_blocks, baseline_blocks)):
                    for name, fn, blocks in (
                        ("candidate", candidate, candidate_blocks),
                        ("baseline", baseline, baseline_blocks),
                    ):
                        if i < blocks:
                            if deadline.left() <= 0:
                                raise BudgetExceeded
                            timing[0], times, before = name, [], compiles["baseline"]
                            guess = min(best[name], warm[name])
                            long_enough = enough * best["candidate"] if name == "baseline" else math.inf
                            block = _block(fn, fresh, guess, min_block_seconds, times, long_enough)
                            timing[0] = None
                            if name == "candidate" or compiles["baseline"] == before:
                                best[name] = min(best[name], block)
                    if math.isinf(best["baseline"]):
                        continue
                    ratio = best["baseline"] / max(best["candidate"], 1e-12)
                    # A slow verdict waits for a second round: the answer's one block may have fallen in a moment
                    # when other programs held the cores.
                    if ratio >= enough or (ratio <= hopeless and i >= 1):
                        break
        except BudgetExceeded:
            cut_short = True
            if timing[0] is not None and times:  # the calls of the block the budget stopped
                best[timing[0]] = min(best[timing[0]], median(times))
    for name in best:  # a side that finished no block: its warm-up calls are all there is
        if math.isinf(best[name]):
            best[name] = warm[name]
    return Speedup(best["candidate"], best["baseline"], cut_short, compiles["candidate"])


def _check_baseline(baseline: Callable, problem: str, *, custom: bool) -> None:
    """The course's problems are timed only against the package's own baseline (`ag.baselines`)."""
    trusted = _TRUSTED.get(problem)
    if trusted is None and not custom:
        raise ValueError(f"{problem!r} has no baseline in autograder/checks/baselines.py")
    if trusted is not None and baseline is not trusted:
        raise CheckFailed(
            f"the baseline this test times ({problem}) is not the course's own: a cell in this notebook "
            "replaced or wrapped it, so no speed can be compared with it. Remove the code that changes it "
            "(the test uses ag.baselines) and run the notebook again.",
        )


def _check_traced_size(candidate: Callable, args: tuple, problem: str, budget_seconds: float, **say) -> None:
    """Before compiling anything: refuse a huge program (`_size.py`) or one that cannot even be traced in time."""
    try:
        with Deadline(budget_seconds):
            check_compiled_size(candidate, args, problem, what=say["what"], section=say["section"])
    except BudgetExceeded:
        raise CheckFailed(
            f"{say['what']} did not finish a single call within the {budget_seconds:g} s timing budget "
            "(JAX was tracing it).",
            hint=say["hint"],
            section=say["section"],
        ) from None


def _verdict(best: Speedup, required: float, *, what: str, against: str, budget_seconds: float) -> str:
    """What was measured against what is required, in a sentence."""
    if math.isinf(best.candidate_seconds):
        verdict = f"{what} did not finish a single call within the {budget_seconds:g} s timing budget"
    else:
        verdict = (
            f"{what} ran {best.ratio:.1f}x as fast as {against} "
            f"({best.candidate_seconds * 1e3:.3g} ms vs {best.baseline_seconds * 1e3:.3g} ms per call, on {backend()})"
        )
    verdict += f"; required: at least {required:g}x"
    if best.cut_short:
        verdict += "; the measurement was cut short because it took too long"
    return verdict


def _refuse_compiling_while_timed(best: Speedup, *, what: str, section: str | None) -> None:
    """A failure however fast it ran: compiling is then part of every call, so the ratio would measure how fast
    this machine compiles (or finds a compiled program in a cache), not the program."""
    if best.candidate_compiles:
        raise CheckFailed(
            f"{what} compiled {best.candidate_compiles} times while it was timed, after its warm-up calls: a "
            "jax.jit created inside the function compiles on every call, and so does an argument marked static "
            "whose value changes (every timed call gets slightly different input values).",
            hint="create the jitted function once, outside the function that is called (at module level), and "
            "mark static only arguments that take few values.",
            section=section,
        )


def check_speedup(
    candidate: Callable,
    baseline: Callable,
    args: tuple,
    problem: str,
    *,
    works: Works,
    what: str | None = None,
    against: str = "the baseline",
    hint: str | None = None,
    section: str | None = None,
    attempts: int = 3,
    budget_seconds: float = 20.0,
    required: float | None = None,
) -> None:
    """Check that `candidate` is at least the required ratio faster than `baseline`.

    The requirement comes from `thresholds.toml` for this backend unless `required`
    is given. A slow result is measured again (up to `attempts` times in all) before
    failing, unless it is more than three times too slow. In advisory mode the verdict
    is printed and nothing fails. Like every check it returns nothing, so that a passing
    test cell shows nothing (`measure_speedup` gives the figures).
    """
    what = name_of(candidate, what)
    _check_traced_size(candidate, args, problem, budget_seconds, what=what, hint=hint, section=section)
    confirm_call(candidate, args, works, what=what, section=section)
    if recording():
        return None
    _check_baseline(baseline, problem, custom=required is not None)
    required = required_speedup(problem) if required is None else required
    best: Speedup | None = None
    for _ in range(attempts):
        # Noise has not moved a good answer's ratio by a factor of three (docs/guide/checks.md), so a round
        # measuring three times the requirement, or two rounds a third of it, is a verdict the blocks left
        # could not undo; a slow baseline's or a slow answer's blocks cost seconds.
        measured = measure_speedup(
            candidate, baseline, args, budget_seconds=budget_seconds, enough=3 * required, hopeless=required / 3
        )
        if best is None or measured.ratio > best.ratio:
            best = measured
        # Re-measuring guards a good answer against a noisy moment; noise has not cost a good answer
        # a factor of three (docs/guide/checks.md), and each try costs seconds.
        if best.ratio >= required or measured.cut_short or best.ratio < required / 3 or best.candidate_compiles:
            break
    assert best is not None
    _refuse_compiling_while_timed(best, what=what, section=section)
    if best.ratio >= required:
        return None
    verdict = _verdict(best, required, what=what, against=against, budget_seconds=budget_seconds)
    if timing_mode() == "advisory":
        print(f"Timing is advisory on this machine, so no points depend on it: {verdict}.")
        return None
    if best.ratio >= required / 3:
        # Within reach: a busy machine can cost this much, a slow answer more (docs/guide/checks.md).
        verdict += (
            ". Timings vary while other programs run: close them and run this cell again before changing an "
            "answer that looked fast"
        )
    raise CheckFailed(verdict + ".", hint=hint, section=section)
