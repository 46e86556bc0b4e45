from __future__ import annotations

import json
import logging
import os

import nbformat
import pytest
from nbclient import NotebookClient

from autograder._config import GRADER_SEED, PROTECTED
from autograder.grading.kernels import _manager as kernels
from autograder.grading.references._compiled import CACHE, compile_for_kernels

from support import graded_as_jax_course_grades

pytestmark = pytest.mark.grading
LOG = logging.getLogger("test_compiled")

PROGRAM = "import jax, jax.numpy as jnp\nf = jax.jit(lambda x: jnp.tanh(x) @ x.T + 2)\nf(jnp.ones((16, 16)))"
WRITES = "open('checkpoint.txt', 'w').write('a solution that saves its work')"
# In a grading kernel: how many of its compilations were found in the cache, and what else it may do there.
KERNEL = """
import json, os
from jax._src import monitoring
found = []
monitoring.register_event_listener(lambda event, **_: found.append(event))
{program}
cache = os.environ["JAX_COMPILATION_CACHE_DIR"]
def refused(act):
    try:
        act()
    except PermissionError:
        return True
    return False
print(json.dumps({{
    "hits": found.count("/jax/compilation_cache/cache_hits"),
    "asked": found.count("/jax/compilation_cache/compile_requests_use_cache"),
    "listing_refused": refused(lambda: os.listdir(cache)),
    "writing_refused": refused(lambda: open(os.path.join(cache, "planted-cache"), "wb")),
}}))
"""


def _notebook(folder, *sources: str):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "set.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources]), path)
    return path


def _grading_kernel(folder, source: str, env: dict[str, str]) -> dict:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    client = NotebookClient(nb, timeout=120, kernel_manager_class=kernels.WarmKernelManager,
                            resources={"metadata": {"path": str(folder)}})  # fmt: skip
    client.execute(env={**os.environ, **env})
    assert len(nb.cells[0].outputs) == 1, f"the kernel said more than its verdict: {nb.cells[0].outputs}"
    return json.loads(nb.cells[0].outputs[0]["text"])


def test_the_solution_is_compiled_once_for_its_notebook_seed_and_settings(tmp_path, caplog):
    solution, cache = _notebook(tmp_path / "solution", PROGRAM, WRITES), tmp_path / "compiled"
    env = {GRADER_SEED: "7"}
    with caplog.at_level(logging.INFO, LOG.name):
        compile_for_kernels("set", [solution], env, cache, LOG)
    entries = {p.name for p in cache.iterdir()} - {"compiled-for"}
    assert entries and "Compiling set's programs once" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.INFO, LOG.name):
        compile_for_kernels("set", [solution], env, cache, LOG)
    assert not caplog.text, "compiled again for the same notebook, seed and settings"
    assert sorted(os.listdir(solution.parent)) == ["set.ipynb"], "the solution's run left files in the source"
    compile_for_kernels("set", [solution], {**env, "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false"}, cache, LOG)
    assert len({p.name for p in cache.iterdir()}) > len(entries) + 1, "other settings (another cache key): again"


def test_a_solution_that_cannot_be_run_is_said_and_grading_goes_on(tmp_path, caplog):
    raising = _notebook(tmp_path / "raising", "raise ValueError('shown on purpose')", PROGRAM)
    compile_for_kernels("set", [raising], {}, tmp_path / "compiled", LOG)
    assert "failed" not in caplog.text and len(os.listdir(tmp_path / "compiled")) > 1, "a cell's error stopped it"
    dying = _notebook(tmp_path / "dying", "import os\nos._exit(1)")
    compile_for_kernels("set", [dying], {}, tmp_path / "compiled", LOG)
    assert "dying/set.ipynb failed while its programs were compiled" in caplog.text


@pytest.mark.skipif(not kernels._sandbox.abi(), reason="this system has no Landlock")
def test_a_walled_kernel_loads_what_the_grader_compiled_by_name_and_neither_lists_nor_writes_it(tmp_path):
    course = tmp_path / "course"
    solution, cache = _notebook(course / "source", PROGRAM), course / "grading" / "compiled"
    compile_for_kernels("set", [solution], {}, cache, LOG)
    before = sorted(os.listdir(cache))
    (course / "student").mkdir()
    walled = {PROTECTED: str(course), CACHE: str(cache)}
    seen = _grading_kernel(course / "student", KERNEL.format(program=PROGRAM), walled)
    assert seen["asked"] and seen["hits"] == seen["asked"], seen
    assert seen["listing_refused"] and seen["writing_refused"], seen
    unseen = "import jax\njax.jit(lambda x: x * 5)(jax.numpy.ones(3))"
    other = _grading_kernel(course / "student", KERNEL.format(program=unseen), walled)
    assert other["hits"] < other["asked"], "a program the solution never compiled was found"
    assert sorted(os.listdir(cache)) == before, "a grading kernel wrote to the programs every kernel loads"


def test_a_kernel_that_jax_course_grade_runs_loads_what_the_grader_compiled(tmp_path):
    """With the settings the grader gives kernels (THREAD_LIMITS), as the solution was run: every program found,
    by a kernel whose nursery was forked from its driver (a nursery of its own would import JAX again)."""
    from autograder.grading.batch._runner import THREAD_LIMITS

    solution, cache = _notebook(tmp_path / "solution", PROGRAM), tmp_path / "compiled"
    compile_for_kernels("set", [solution], {GRADER_SEED: "7", **THREAD_LIMITS}, cache, LOG)
    nursery = "import os\nprint(json.dumps({'nursery': open(f'/proc/{os.getppid()}/cmdline').read()}))"
    submission = _notebook(tmp_path / "submission", KERNEL.format(program=PROGRAM), nursery)
    cells = graded_as_jax_course_grades(submission, submission.parent, seed=7, compiled=cache)
    seen, parent = (json.loads("".join(cell.outputs[0]["text"])) for cell in cells)
    assert seen["asked"] and seen["hits"] == seen["asked"], seen
    assert "_in_the_nursery" not in parent["nursery"], "the driver spawned a nursery rather than fork one"
