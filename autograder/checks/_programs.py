"""A learner's kernel keeps the programs it compiles where the self-check looks for them.

A first self-check compiles every program of the notebook again, in a kernel of its own: for most sets, more than
half of its time. A learner runs the notebook before checking it, so the kernel they run it in writes what it
compiles to JAX's persistent compilation cache, in the folder the self-check reads (`_config.self_check_programs`).
Only there: not in a kernel of the grader's (grading, recording references, or any given a grading seed: its
programs could hold what that seed draws, and the folder is the user's, not walled from kernels; grading never
reads it), not where a compilation cache is already chosen (a self-check's kernel, a user's own), and not in a
lecture's kernel, whose figures show what compiling costs.
"""

from __future__ import annotations

import os
import sys
import warnings

import jax
from jax.experimental.compilation_cache import compilation_cache as _compilation_cache

from .._config import GRADER_SEED, PROTECTED, RECORD_REFERENCES, REFERENCES, self_check_programs

# What the grader's kernels are given (nbgrader's autograde and validate, `jax-course grade`, `jax-course
# references`, a self-check); a learner's own kernel, none of it.
_GRADERS = ("NBGRADER_EXECUTION", PROTECTED, GRADER_SEED, RECORD_REFERENCES, REFERENCES)


def keep_programs_for_the_self_check() -> bool:
    """In a learner's own kernel (IPython's, running cells), turn JAX's persistent compilation cache on, in the
    self-check's folder; whether it did."""
    ipython = sys.modules.get("IPython")
    if ipython is None or ipython.get_ipython() is None or "autograder.lecture" in sys.modules:
        return False
    if any(os.environ.get(name) for name in _GRADERS) or jax.config.jax_compilation_cache_dir is not None:
        return False
    folder = self_check_programs(os.environ)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False  # no cache folder here (a read-only home): the self-check compiles, as it would anyway
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    # An entry another of the learner's processes is writing (a self-check's, a second notebook's), or a full disk:
    # JAX then compiles as it would without the cache, and says so in a warning that is not the learner's business.
    warnings.filterwarnings("ignore", message="Error (reading|writing) persistent compilation cache entry")
    jax.config.update("jax_compilation_cache_dir", str(folder))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    _compilation_cache.reset_cache()  # opened at the next compilation: what the notebook compiled before is not kept
    return True
