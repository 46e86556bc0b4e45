"""A learner's kernel keeps what it compiles where the self-check looks, and no other kernel does so."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder._config import GRADER_SEED, PROTECTED, RECORD_REFERENCES, REFERENCES

# A kernel's shell, as `get_ipython()` finds it while a cell runs; then what an exercise's cells do.
KERNEL = """
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
{before}
import jax.numpy as jnp
import autograder.checks
jnp.arange(5.0).sum().block_until_ready()
import warnings
warnings.warn("Error reading persistent compilation cache entry for 'f': ValueError: half written")
"""
EVERY_PROGRAM = {"JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}
NOT_A_KERNEL = KERNEL.replace("shell = InteractiveShell.instance()", "")


def _programs(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.glob("*-cache"))


@pytest.mark.grading  # eight interpreters that import JAX: a few seconds
def test_only_a_learners_own_kernel_keeps_its_programs_for_the_self_check(tmp_path):
    chosen = tmp_path / "chosen"
    cases = {
        "a learner's kernel": (KERNEL, {}, ""),
        "nbgrader's autograde or validate": (KERNEL, {"NBGRADER_EXECUTION": "autograde"}, ""),
        "jax-course grade's walled kernel": (KERNEL, {PROTECTED: str(tmp_path / "course")}, ""),
        "recording references": (KERNEL, {RECORD_REFERENCES: str(tmp_path / "recorded")}, ""),
        "given a secret grading seed": (KERNEL, {GRADER_SEED: "123456789"}, ""),
        "a lecture's kernel": (KERNEL, {}, "import autograder.lecture"),
        "a cache chosen already": (KERNEL, {"JAX_COMPILATION_CACHE_DIR": str(chosen), **EVERY_PROGRAM}, ""),
        "no IPython kernel": (NOT_A_KERNEL, {}, ""),
    }
    ours = ("JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "NBGRADER_EXECUTION", PROTECTED)
    ours += (GRADER_SEED, RECORD_REFERENCES, REFERENCES)
    clean = {name: value for name, value in os.environ.items() if name not in ours}
    running = {}
    for case, (code, env, before) in cases.items():
        home = tmp_path / case.replace(" ", "-").replace("'", "")
        command = [sys.executable, "-c", code.format(before=before)]
        env = {**clean, "XDG_CACHE_HOME": str(home), **env}
        running[case] = (home, subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True))
    kept = {}
    for case, (home, process) in running.items():
        _, errors = process.communicate(timeout=300)
        assert process.returncode == 0, f"{case}: {errors[-2000:]}"
        kept[case] = _programs(home / "jax-course" / "compilation")
        # An entry read half written: said in any kernel but the learner's, whose cache it is.
        assert ("half written" in errors) == (case != "a learner's kernel"), f"{case}: {errors[-2000:]}"
    assert kept.pop("a learner's kernel"), "the learner's kernel kept nothing for the self-check"
    assert kept == dict.fromkeys(kept, []), f"kernels that wrote to the learner's folder: {kept}"
    assert _programs(chosen), "a cache chosen by its variable is JAX's own, as before"
