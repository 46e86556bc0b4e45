"""Checks for the JAX course's exercises.

Every check returns quietly when the answer is right and raises `CheckFailed`
(an `AssertionError`, so nbgrader counts it) with a message a student can act on.

- Reference outputs: `check_close`, `check_reference`, `tolerance`.
- Speed: `check_speedup`, `measure_speedup`, `timing_mode`.
- Structure: `check_jitted`, `check_jaxpr_constant`, `check_compile_count`,
  `check_primitives`, `check_pure`, `check_largest_intermediate`.
- Devices: `check_collective`, `check_sharding`.
- Randomness: `check_no_key_reuse`, `check_reproducible`, `check_within_sigmas`,
  `check_independent_rows`.
- Hidden inputs: `grader_rng`, `grader_key`.
- Self-check: `check_my_work` (in a notebook), `check_notebook`.
"""

from ._backend import backend
from ._errors import CheckFailed, lecture_link
from ._randomness import check_independent_rows, check_no_key_reuse, check_reproducible, check_within_sigmas
from ._reference import check_close, check_reference, load_reference, save_reference, tolerance
from ._selfcheck import check_my_work, check_notebook
from ._seeds import grader_key, grader_rng, grader_seed
from ._structure import (
    check_collective,
    check_compile_count,
    check_jaxpr_constant,
    check_jitted,
    check_largest_intermediate,
    check_primitives,
    check_pure,
    check_sharding,
    collectives,
    count_compiles,
    equation_count,
    is_jitted,
    largest_intermediate,
    primitives,
)
from ._timing import Speedup, check_speedup, measure_speedup, required_speedup, timing_mode


def _verified(check):
    """`check`, failing first if the grader's tools were replaced (see `_integrity.verify`)."""
    import functools

    from . import _integrity

    @functools.wraps(check)
    def run(*args, **kwargs):
        _integrity.verify()
        return check(*args, **kwargs)

    return run


for _name in [n for n in dir() if n.startswith("check_") and n not in ("check_my_work", "check_notebook")]:
    globals()[_name] = _verified(globals()[_name])
del _name

__all__ = [
    "CheckFailed",
    "Speedup",
    "backend",
    "check_close",
    "check_collective",
    "check_compile_count",
    "check_independent_rows",
    "check_jaxpr_constant",
    "check_jitted",
    "check_largest_intermediate",
    "check_my_work",
    "check_no_key_reuse",
    "check_notebook",
    "check_primitives",
    "check_pure",
    "check_reference",
    "check_reproducible",
    "check_sharding",
    "check_speedup",
    "check_within_sigmas",
    "collectives",
    "count_compiles",
    "equation_count",
    "grader_key",
    "grader_rng",
    "grader_seed",
    "is_jitted",
    "largest_intermediate",
    "lecture_link",
    "load_reference",
    "measure_speedup",
    "primitives",
    "required_speedup",
    "save_reference",
    "timing_mode",
    "tolerance",
]
