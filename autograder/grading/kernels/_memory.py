"""How much memory a group of processes uses, as every limit on a submission counts it: `jax-course grade`'s on a
notebook's processes, a kernel's keeper's on all under it, the verifier's on itself."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import psutil


def memory_mb(processes: list[psutil.Process], limit_mb: float) -> float:
    """Their memory in MB, shared pages counted once (PSS) when their resident total, never below that, passes
    `limit_mb`: PSS costs milliseconds a process (the kernel walks every mapping), and limits look often."""
    resident = _total(processes, lambda member: member.memory_info().rss)
    return resident / 2**20 if resident <= limit_mb * 2**20 else _total(processes, _proportional_bytes) / 2**20


def _total(processes: list[psutil.Process], measure: Callable[[psutil.Process], int]) -> int:
    total = 0
    for member in processes:
        with contextlib.suppress(psutil.NoSuchProcess):
            total += measure(member)
    return total


def _proportional_bytes(process: psutil.Process) -> int:
    """Memory a process uses, its share of pages it shares with others counted once (a driver, the kernels'
    nursery, a kernel and the verifier share their libraries' pages); resident memory where that is unknown."""
    try:
        return process.memory_full_info().pss
    except (psutil.AccessDenied, AttributeError):
        return process.memory_info().rss
