"""The kernel's guard against submissions that replace the grader's tools. See autograder/INTEGRITY.md.

`guard()` runs in the grading kernel before any notebook cell (nbgrader's `Execute`
passes it as an IPython exec line): it limits file sizes and records trusted
references to the timers, comparison functions and checks. Every check calls
`verify()` first and fails if any of them was replaced since. The other layer,
refusing such cells before they run, is the instructor side's (`autograder.grading.plugins`).
"""

from __future__ import annotations

import builtins
import os
import sys
import time
from typing import Any

from .._passes import say_passes
from ._errors import CheckFailed
from ._tracebacks import show_short_tracebacks

_trusted: dict[str, Any] = {}


def _tools() -> dict[str, Any]:
    import jax
    import numpy as np

    # The package as the test cells see it (`import autograder as ag`), and this side's API.
    facade, checks = sys.modules["autograder"], sys.modules[__name__.rpartition(".")[0]]
    tools = {
        "time.perf_counter": time.perf_counter,
        "time.perf_counter_ns": time.perf_counter_ns,
        "time.time": time.time,
        "time.monotonic": time.monotonic,
        "numpy.allclose": np.allclose,
        "numpy.array_equal": np.array_equal,
        "numpy.testing.assert_allclose": np.testing.assert_allclose,
        "numpy.asarray": np.asarray,
        "jax.block_until_ready": jax.block_until_ready,
        "jax.numpy.allclose": jax.numpy.allclose,
        "builtins.AssertionError": builtins.AssertionError,
        "builtins.print": builtins.print,
        "builtins.__import__": builtins.__import__,
        "builtins.isinstance": builtins.isinstance,
        "sys.modules[autograder]": sys.modules.get("autograder"),
        "sys.modules[numpy]": sys.modules.get("numpy"),
        "sys.modules[jax]": sys.modules.get("jax"),
    }
    if "timeit" in sys.modules:
        tools["timeit.default_timer"] = sys.modules["timeit"].default_timer
    for name in checks.__all__:
        tools[f"autograder.{name}"] = getattr(facade, name)
    for name in checks.baselines.__all__:
        tools[f"autograder.baselines.{name}"] = getattr(checks.baselines, name)
    return tools


def guard(max_file_bytes: int = 256 * 2**20) -> None:
    """Before any cell runs: cap file sizes and remember the tools the checks trust."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        limit = max_file_bytes if hard == resource.RLIM_INFINITY else min(max_file_bytes, hard)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    except (ImportError, ValueError, OSError):
        pass
    # Once only: a cell that calls `guard()` again after replacing a tool must not make it trusted.
    if not _trusted:
        _trusted.update(_tools())
    # The kernel started with the submission's folder off sys.path (`GUARD_ARGUMENTS`): back at the
    # end, its own modules import, and none can stand in for an installed one.
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    _notes_not_errors()
    show_short_tracebacks()  # a kernel forked warm imported the checks before IPython's shell existed
    say_passes()


def _note(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"Note: {category.__name__}: {message} (a warning; it costs no points)", file=sys.stdout)


def _notes_not_errors() -> None:
    """Send what honest code writes to stderr to stdout: nbgrader gives a test cell no points when
    anything in it writes to stderr, and a library's warning or log line is no wrong answer."""
    import warnings

    warnings.showwarning = _note
    # Logging handlers made from here on, and logging's last resort, write to `sys.stderr` as it is then.
    sys.stderr = sys.stdout
    try:
        # What C and C++ code writes to the process's stderr (XLA's and absl's logs): the kernel
        # forwards file descriptor 1 as stdout.
        os.dup2(1, 2)
    except OSError:
        pass


def guarded() -> bool:
    """Whether `guard()` ran in this kernel: it is grading or self-checking a notebook."""
    return bool(_trusted)


def verify() -> None:
    """Fail the current check if a trusted tool was replaced since `guard()` (no-op without it)."""
    if not _trusted:
        return
    now = _tools()
    changed = [name for name, tool in _trusted.items() if now.get(name) is not tool]
    if changed:
        raise CheckFailed(
            f"the grader's tools were changed by code in this notebook ({', '.join(changed[:4])}), "
            "so no check can be trusted. Remove the code that replaces them and run the notebook again.",
        )
