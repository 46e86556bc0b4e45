"""How long a self-learner waits for `jax-course check`: its start-up, then slow answers per set.

First, the check of set 02 untouched and answered with the reference, in a clone of the course and
in a copy elsewhere, each as a new `jax-course check` process, next to a bare
`python -c "import jax, jax.numpy, nbformat"` in the same run: the median of 3 each, and the ratio
(issue 30 asks for at most 2).

`targets` measures, for each set answered with its reference, the time its own cells take in a plain
kernel (nbclient and Jupyter's own kernel: what the notebook costs the learner anyway; that kernel keeps what it
compiles for the self-check, `autograder/checks/_programs.py`), against `jax-course check` of that notebook as a
learner's first check (after that run) and again (the cache it left): issue 56 asks for at most 1.5x. Beside
them, a first check with nothing compiled before (a notebook checked before it was ever run). Each set gets a
user cache folder of its own (`$XDG_CACHE_HOME`). The untouched set's check against the bare import is the
`startup` figure above (at most 2x).

Otherwise, per set:
For each set, a copy named notebook.ipynb far from the repository (as on Colab) gets, in every
answer cell, the first wrong variant of tests/variants/ whose name says it is slow (a
loop, eager, NumPy, not parallel, a full Hessian ...), the reference elsewhere; 05_vmap also
gets a jitted double Python loop over all pairs. It prints each check's wall-clock seconds and
how many tests passed. A benchmark, not a test: it always exits 0. Issue 21 asks for at most
60 s each on a 2-core machine.

    .venv/bin/python bench/selfcheck_time.py [05_vmap 07_prng ... | startup | targets [05_vmap ...]]
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # nbgrader runs `alembic`

from autograder._config import environment_with  # noqa: E402
from autograder.grading import check_notebook  # noqa: E402

from support import ASSIGNMENTS, answered, solution_sources  # noqa: E402
from variants import VARIANTS  # noqa: E402

SLOW = (
    "loop",
    "unrolled",
    "every_call",
    "not_jitted",
    "eager",
    "python",
    "numpy",
    "not_parallel",
    "basis_vectors",
    "full_hessian",
)
EXTRA = {"05_vmap": {"pairwise": "def all_pairs(f, X, Y):\n    return jnp.array([[f(x, y) for y in Y] for x in X])\n"}}


def slow_answers(assignment: str) -> dict[str, str]:
    """Per answer cell, the first looping variant's answer (the reference where there is none)."""
    answers = dict(solution_sources(assignment))
    taken: set[str] = set()
    for name, variant in VARIANTS[assignment].items():
        cells = set(variant["answers"])
        if any(word in name for word in SLOW) and not cells & taken:
            answers.update(variant["answers"])
            taken |= cells
    answers.update(EXTRA.get(assignment, {}))
    return answers


STARTUP_SET = "02_immutability"


def _seconds(command: list, cwd: Path | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - start


def startup(repeats: int = 3) -> None:
    """The self-check's own cost, as ratios to a bare import of what any check needs."""
    bin_dir = Path(sys.executable).parent
    scratch = Path(tempfile.mkdtemp(prefix="selfcheck-startup-"))
    shutil.copy(ROOT / "nbgrader_config.py", scratch / "nbgrader_config.py")
    shutil.copytree(ROOT / "solutions" / STARTUP_SET, scratch / "solutions" / STARTUP_SET)
    cases = {}
    for answers, what in (({}, "untouched"), (solution_sources(STARTUP_SET), "reference")):
        in_clone = scratch / "exercises" / what / STARTUP_SET / f"{STARTUP_SET}.ipynb"
        in_clone.parent.mkdir(parents=True)
        cases[f"{what}, in a clone"] = answered(STARTUP_SET, answers, in_clone)
        (scratch / what).mkdir()
        cases[f"{what}, elsewhere"] = answered(STARTUP_SET, answers, scratch / what / "notebook.ipynb")
    bare = [sys.executable, "-c", "import jax, jax.numpy, nbformat"]
    times: dict[str, list[float]] = {"bare import": [], **{name: [] for name in cases}}
    for _ in range(repeats):  # interleaved, so a busy moment costs every case alike
        times["bare import"].append(_seconds(bare))
        for name, notebook in cases.items():
            times[name].append(_seconds([bin_dir / "jax-course", "check", notebook], cwd=notebook.parent))
    baseline = statistics.median(times["bare import"])
    print(f"set {STARTUP_SET}, median of {repeats}:")
    for name, seconds in times.items():
        median = statistics.median(seconds)
        print(f"  {name:24} {median:5.1f} s   {median / baseline:4.1f}x the bare import", flush=True)
    shutil.rmtree(scratch)


def _cells_seconds(notebook: Path) -> float:
    """The seconds the notebook's code cells take in a plain kernel, from the first cell's start to the last's end
    (the kernel's start excluded)."""
    import nbclient
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=600,
        allow_errors=True,
        kernel_name="python3",
        resources={"metadata": {"path": str(notebook.parent)}},
    )
    client.execute()
    stamps = [c.metadata["execution"] for c in nb.cells if c.cell_type == "code" and "execution" in c.metadata]
    start = min(datetime.fromisoformat(s["iopub.execute_input"].rstrip("Z")) for s in stamps)
    end = max(datetime.fromisoformat(s["shell.execute_reply"].rstrip("Z")) for s in stamps)
    return (end - start).total_seconds()


def targets(assignments: list[str]) -> None:
    """Each set's reference: the check's time against its own cells' in a plain kernel, first check and again."""
    print(
        "answered with the reference: its cells in a plain kernel; jax-course check after them, first and again; "
        "a first check before any run"
    )
    for name in ("JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "JAXCOURSE_GRADER_SEED"):
        os.environ.pop(name, None)  # a learner's kernel: no cache chosen, no grading seed
    for assignment in assignments:
        folder = Path(tempfile.mkdtemp(prefix="selfcheck-targets-"))
        notebook = answered(assignment, solution_sources(assignment), folder / "notebook.ipynb")
        check = [Path(sys.executable).parent / "jax-course", "check", notebook]
        learner = {"XDG_CACHE_HOME": str(folder / "learner")}
        with environment_with(learner):
            cells = _cells_seconds(notebook)
        first, again = (_seconds_with(check, folder, {**os.environ, **learner}) for _ in range(2))
        before = _seconds_with(check, folder, {**os.environ, "XDG_CACHE_HOME": str(folder / "never-run")})
        print(
            f"{assignment:22} cells {cells:5.1f} s   check {first:5.1f} s ({first / cells:3.1f}x)   "
            f"again {again:5.1f} s ({again / cells:3.1f}x)   before any run {before:5.1f} s ({before / cells:3.1f}x)",
            flush=True,
        )
        shutil.rmtree(folder)


def _seconds_with(command: list, cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
    return time.perf_counter() - start


def main(assignments: list[str]) -> None:
    if assignments[:1] == ["targets"]:
        targets(assignments[1:] or ASSIGNMENTS)
        return
    startup()
    if assignments == ["startup"]:
        return
    for assignment in assignments:
        folder = Path(tempfile.mkdtemp(prefix="selfcheck-bench-"))
        path = answered(assignment, slow_answers(assignment), folder / "notebook.ipynb")
        start = time.perf_counter()
        result = check_notebook(path)
        seconds = time.perf_counter() - start
        passed = sum(r.passed for r in result.results)
        print(f"{assignment:16} {seconds:6.1f} s   {passed}/{len(result.results)} tests passed", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ASSIGNMENTS)
