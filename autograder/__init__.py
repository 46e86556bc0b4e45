"""The JAX course's autograder, in two parts that never import each other.

- `autograder.checks`, the student side: the checks a notebook's test cells call.
  Needs JAX, never nbgrader.
- `autograder.grading`, the instructor side: the `jax-course` command, batch grading,
  the self-check and the nbgrader plugins. Needs nbgrader, never JAX.

Beside them, `autograder.lecture` holds the helpers the lectures import (`time_min`, ...);
it needs JAX, and neither side imports it.

`import autograder as ag` gives the notebooks one namespace: `ag.check_close`,
`ag.check_my_work`, ... Each name is imported from its side on first use, so the
instructor's tools, which import this package too, never load JAX.
"""

import importlib as _importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what `__getattr__` hands out, for editors and type checkers
    from .checks import *  # noqa: F403
    from .grading import check_my_work, check_notebook

__all__ = [
    "CheckFailed",
    "Speedup",
    "backend",
    "baselines",
    "check_close",
    "check_collective",
    "check_collectives",
    "check_compile_count",
    "check_figures",
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
    "check_my_work",
    "check_notebook",
]
# From the instructor side; every other name is a check, from the student side.
_SELF_CHECK = ("check_my_work", "check_notebook")


def __getattr__(name: str):
    if name not in __all__:
        raise AttributeError(f"module 'autograder' has no attribute {name!r}")
    side = _importlib.import_module(".grading" if name in _SELF_CHECK else ".checks", __name__)
    value = globals()[name] = getattr(side, name)
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


def _on_error(shell, etype, value, tb, tb_offset=None):
    """Until a check is first used: the student side's rendering of a failure (`checks._tracebacks`)."""
    try:
        from .checks._tracebacks import short_traceback
    except Exception:  # the checks cannot even be imported: IPython's own traceback, as without this
        return shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
    return short_traceback(shell, etype, value, tb, tb_offset)


def _render_failures_from_import() -> None:
    # A JAX error in the first answer cell, before any check ran, gets the course's words too.
    import sys

    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    if shell is not None and not shell.custom_exceptions:
        shell.set_custom_exc((Exception,), _on_error)
    # And a passing test cell says so.
    from ._passes import say_passes

    say_passes(shell)


_render_failures_from_import()
