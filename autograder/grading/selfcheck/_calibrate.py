"""Whether timings mean anything on this machine, for a self-check with no instructor."""

from __future__ import annotations

import time

from ..._config import TIMING, timing_mode, timing_set


def calibrate(repeats: int = 7) -> float:
    """Spread (slowest / fastest) of a fixed workload timed several times: near 1 on a quiet machine."""
    import numpy as np

    a = np.random.default_rng(0).random((160, 160))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(20):
            a = np.tanh(a @ a.T / 160.0)
        times.append(time.perf_counter() - start)
    times.sort()
    # The second fastest and second slowest: one hiccup alone does not decide.
    return times[-2] / times[1]


def decide_timing(spread_limit: float = 1.6) -> tuple[str, str]:
    """`(mode, reason)` for the timing checks of a self-check."""
    if timing_set():
        return timing_mode(), f"set by {TIMING}"
    if timing_mode() == "advisory":
        return "advisory", "a shared machine such as Binder or Colab"
    spread = calibrate()
    if spread > spread_limit:
        return "advisory", f"this machine looks busy: a fixed workload varied {spread:.1f}x between runs"
    return "enforce", "this machine is quiet enough to time"
