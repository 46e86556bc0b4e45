"""The student side: the checks a grading kernel runs. Needs JAX, never nbgrader.

Every check returns quietly when the answer is right and raises `CheckFailed`
(an `AssertionError`, so nbgrader counts it) with a message a student can act on.

- Reference outputs: `check_close`, `check_reference`, `tolerance`.
- Speed: `check_speedup`, `measure_speedup`, `timing_mode`; `baselines`, what speed is measured against;
  `check_timing_protocol` (a timer the student wrote: warm-up, blocking, repeats).
- Structure: `check_traceable`, `check_jitted`, `check_jaxpr_constant`, `check_compile_count`,
  `check_primitives`, `check_pure`, `check_largest_intermediate`; `check_log_depth` (a parallel
  prefix's O(log n) chain of steps, not a loop's n), `depth`; `check_not_calling` (the library
  one-liner a problem asks you to write yourself); `check_work_grows` (a loop that stops when its
  work is done, not after a fixed count), `operations_run`.
- Reverse mode: `check_saved_residuals` (what a forward pass keeps for the backward pass, which
  `jax.checkpoint` shrinks), `saved_residuals`; `reverse_mode_grad` (a gradient, or why a loop
  cannot be differentiated in reverse mode).
- Profiles: `check_hottest_op` (a student's reading of a profiler trace), `op_times` (each XLA
  operation's total time in a trace the check records and reads back).
- Devices: `check_collective`, `check_sharding`.
- Scaling: `check_collectives` (the collectives the compiler put in a sharded program),
  `check_memory_per_device` (`memory_analysis` within a bound only a sharded layout meets),
  `check_not_replicated` (no whole copy of what should be split), `check_figures` (predicted figures
  against the compiler's), `check_no_program_built` (figures predicted, not read from the compiler);
  `compiled_collectives`, `collective_bytes` (bytes each device sends, read from the compiled HLO),
  `memory_per_device`, `compiled_cost` (`cost_analysis`).
- Kernels: `check_pallas_kernel` (a Pallas kernel that tiles its arrays: blocks smaller than the arrays, a grid
  that covers the output, no work left outside it), `pallas_kernels` (each `pallas_call`'s grid and blocks),
  `kernel_traffic` (the bytes its grid moves between HBM and the blocks).
- Randomness: `check_no_key_reuse`, `check_reproducible`, `check_within_sigmas`,
  `check_independent_rows`.
- Hidden inputs: `grader_rng`, `grader_key`.

`guard()` runs in the grading kernel before any cell; every check first verifies
that nothing it trusts was replaced since (`_guard.py`).
"""

import functools as _functools

from .._config import grader_seed, timing_mode
from . import _programs, _tracebacks, baselines
from ._backend import backend
from ._compare import check_close
from ._compiled import collective_bytes, compiled_collectives, compiled_cost, memory_per_device
from ._compiles import check_compile_count, count_compiles
from ._depth import check_log_depth, depth
from ._devices import check_collective, check_sharding, collectives
from ._errors import CheckFailed, lecture_link
from ._guard import guard as guard
from ._guard import verify
from ._hints import hint_text
from ._library import check_not_calling, library_calls
from ._pallas import check_pallas_kernel, kernel_traffic, pallas_kernels
from ._profile import check_hottest_op, op_times
from ._protocol import check_timing_protocol
from ._purity import check_pure
from ._randomness import check_independent_rows, check_no_key_reuse, check_reproducible, check_within_sigmas
from ._reference import check_reference, load_reference, save_reference
from ._residuals import check_saved_residuals, reverse_mode_grad, saved_residuals
from ._scaling import (
    check_collectives,
    check_figures,
    check_memory_per_device,
    check_no_program_built,
    check_not_replicated,
)
from ._seeds import grader_key, grader_rng
from ._structure import (
    check_jaxpr_constant,
    check_jitted,
    check_largest_intermediate,
    check_primitives,
    check_traceable,
    equation_count,
    is_jitted,
    largest_intermediate,
    primitives,
)
from ._thresholds import required_speedup, tolerance
from ._timing import Speedup, check_speedup, measure_speedup
from ._work import check_work_grows, operations_run

_programs.keep_programs_for_the_self_check()


def _verified(check):
    """`check`, failing first if the grader's tools were replaced (see `_guard.verify`), and given the words
    of a hint the test cell names by key (`_hints`), which the check may extend with its own."""

    @_functools.wraps(check)
    def run(*args, **kwargs):
        verify()
        if "hint" in kwargs:
            kwargs["hint"] = hint_text(kwargs["hint"])
        return check(*args, **kwargs)

    return run


globals().update({name: _verified(check) for name, check in list(globals().items()) if name.startswith("check_")})

# In a notebook, a failure shows the student's lines and the course's message, not this package's code.
_tracebacks.show_short_tracebacks()

__all__ = [
    "CheckFailed",
    "Speedup",
    "backend",
    "baselines",
    "check_close",
    "check_collective",
    "check_collectives",
    "check_figures",
    "check_compile_count",
    "check_independent_rows",
    "check_jaxpr_constant",
    "check_jitted",
    "check_hottest_op",
    "check_largest_intermediate",
    "check_log_depth",
    "check_memory_per_device",
    "check_no_key_reuse",
    "check_no_program_built",
    "check_not_calling",
    "check_not_replicated",
    "check_pallas_kernel",
    "check_primitives",
    "check_pure",
    "check_reference",
    "check_reproducible",
    "check_saved_residuals",
    "check_sharding",
    "check_speedup",
    "check_timing_protocol",
    "check_traceable",
    "check_within_sigmas",
    "check_work_grows",
    "collective_bytes",
    "collectives",
    "compiled_cost",
    "compiled_collectives",
    "count_compiles",
    "depth",
    "equation_count",
    "grader_key",
    "grader_rng",
    "grader_seed",
    "is_jitted",
    "kernel_traffic",
    "largest_intermediate",
    "lecture_link",
    "library_calls",
    "load_reference",
    "measure_speedup",
    "memory_per_device",
    "op_times",
    "operations_run",
    "pallas_kernels",
    "primitives",
    "required_speedup",
    "reverse_mode_grad",
    "save_reference",
    "saved_residuals",
    "timing_mode",
    "tolerance",
]
