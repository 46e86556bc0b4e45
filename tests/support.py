"""Helpers the tests share: the repository's paths, temporary nbgrader courses, submissions and scores."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import nbformat
import psutil
import pytest

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = sorted(p.name for p in (ROOT / "solutions").iterdir() if (p / f"{p.name}.ipynb").exists())
LECTURES = sorted((ROOT / "course").glob("*.ipynb"))
VENV_BIN = Path(sys.executable).parent


def ANY_VALUE(value):
    """`works=` for tests of a check's property alone; tests/checks/test_works.py tests the values."""


def run(*command: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run a command; on failure, show everything it printed."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(map(str, command))} exited {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


def make_course(folder: Path, *assignments: str) -> Path:
    """A fresh nbgrader course holding these assignments, released into `exercises/`."""
    shutil.copy(ROOT / "nbgrader_config.py", folder / "nbgrader_config.py")
    from autograder.grading.proving._run import _new_gradebook, layout

    shutil.copy(_new_gradebook(layout(ROOT).course_id), folder / "gradebook.db")
    for assignment in assignments:
        shutil.copytree(ROOT / "solutions" / assignment, folder / "solutions" / assignment)
        run(VENV_BIN / "nbgrader", "generate_assignment", assignment, "--force", cwd=folder)
    return folder


def solution_sources(assignment: str) -> dict[str, str]:
    """The reference answer of every solution cell, by grade_id, without markers."""
    from autograder.grading.proving._sets import ExerciseSet

    return ExerciseSet(ROOT, assignment).reference


_BLOCKS = {
    "answer": ("### BEGIN SOLUTION", "### END SOLUTION"),
    "hidden test": ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"),
}


def secret_lines(assignment: str, kinds: tuple[str, ...] = ("answer", "hidden test")) -> set[str]:
    """Lines of the answers and hidden tests that students must never see (over 12 characters, so
    `return x` is no match), less those the notebook also shows on purpose (a test's set-up, say)."""
    source = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    public, secret = set(), set()
    for cell in source.cells:
        inside = None
        for line in cell.source.splitlines():
            if inside is None and (kind := next((k for k, (b, _) in _BLOCKS.items() if b in line), None)):
                inside = kind
            elif inside is not None and _BLOCKS[inside][1] in line:
                inside = None
            elif inside is None:
                public.add(line.strip())
            elif inside in kinds:
                secret.add(line.strip())
    return {line for line in secret - public if len(line) > 12}


def unexpected_errors(nb: nbformat.NotebookNode) -> list[tuple[int, str]]:
    """`(cell index, error name)` for each error a lecture's code cell shows without its `raises-exception` tag."""
    return [
        (i, o.ename)
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and "raises-exception" not in c.metadata.get("tags", [])
        for o in c.outputs
        if o.output_type == "error"
    ]


def section_links() -> set[tuple[str, str]]:
    """Every (lecture, heading) that a test cell's or a check's `section=` names."""
    links = set()
    for assignment in ASSIGNMENTS:
        text = (ROOT / "solutions" / assignment / f"{assignment}.ipynb").read_text()
        links |= set(re.findall(r'(?:section=|SECTION = )\\"(\d\d)#([^"\\]+)\\"', text))  # or a cell's constant
    for module in (ROOT / "autograder").rglob("*.py"):
        links |= set(re.findall(r'section="(\d\d)#([^"]+)"', module.read_text()))
    for table in (ROOT / "autograder").rglob("*.toml"):  # the verifier's tables, the words for raised errors
        links |= set(re.findall(r'section\s*=\s*"(\d\d)#([^"]+)"', table.read_text()))
    return links


def timed_tests(assignment: str) -> set[str]:
    """The test cells of `assignment` that time an answer (`check_speedup`)."""
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade") and "check_speedup" in c.source
    }


def answered(assignment: str, answers: dict[str, str], path: Path) -> Path:
    """Write the committed release of `assignment` with `answers` (grade_id -> source) filled in."""
    nb = nbformat.read(ROOT / "exercises" / assignment / f"{assignment}.ipynb", as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    nbformat.write(nb, path)
    return path


def submit(course: Path, assignment: str, student: str, answers: dict[str, str]) -> Path:
    """Write the released notebook with `answers` (grade_id -> source) filled in, as `student`'s submission."""
    nb = nbformat.read(course / "exercises" / assignment / f"{assignment}.ipynb", as_version=4)
    unknown = set(answers) - {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells}
    assert not unknown, f"no cells with grade_id {unknown}"
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    path = course / "submitted" / student / assignment / f"{assignment}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def jax_course_grade(course: Path, assignment: str, *args: str, status: int | None = 0) -> subprocess.CompletedProcess:
    """Run `jax-course grade` in a course; fail, showing its output, unless it exits with `status` (any if None).

    Its exit status is 0 when every submission was graded, 1 when one could not be.
    """
    done = subprocess.run(
        [VENV_BIN / "jax-course", "grade", assignment, *args], cwd=course, capture_output=True, text=True, timeout=900
    )
    if status is not None:
        assert done.returncode == status, f"exit status {done.returncode}: " + done.stdout[-3000:] + done.stderr[-3000:]
    return done


def read_scores(course: Path, assignment: str) -> dict[str, dict[str, float]]:
    """`{student: {test grade_id: score}}` from the course's SQLite gradebook."""
    from nbgrader.api import Gradebook

    scores: dict[str, dict[str, float]] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for submission in gb.assignment_submissions(assignment):
            notebook = submission.notebooks[0]
            scores[submission.student_id] = {grade.name: grade.score for grade in notebook.grades}
    return scores


def cells_seconds(course: Path, assignment: str, student: str) -> float:
    """Seconds from the first to the end of the last cell of `student`'s autograded notebook (kernel start excluded)."""
    nb = nbformat.read(course / "autograded" / student / assignment / f"{assignment}.ipynb", as_version=4)
    ran = [cell.metadata["execution"] for cell in nb.cells if "execution" in cell.metadata]
    if not ran:
        return 0.0
    start, end = ran[0]["iopub.execute_input"], ran[-1]["iopub.status.idle"]
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def test_points(assignment: str) -> dict[str, float]:
    """`{test grade_id: points}` of an assignment."""
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"])
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }


test_points.__test__ = False  # a helper, not a test


def graded_by(process: psutil.Process) -> int | None:
    """The grader process that started this kernel (or what the kernel started), if a grader did."""
    from autograder.grading.batch._runner import GRADED_BY

    try:
        found = process.environ().get(GRADED_BY)
    except (psutil.Error, OSError):
        return None
    return int(found) if found else None


def left_behind(grader: int) -> list[str]:
    """Processes of grader process `grader` still running: drivers in its scratch folders, and kernels."""
    found = []
    for process in psutil.process_iter(["pid", "cwd", "name"]):
        if f"jax-course-grade-{grader}-" in (process.info["cwd"] or "") or graded_by(process) == grader:
            found.append(f"{process.info['pid']} {process.info['name']}")
    return found


# A function and its naive version, for the speed checks' own tests: the loop is about as slow
# as the course's baselines, the function (jitted) far faster. (Inputs are made by each test:
# a JAX array made here, at import, would start JAX before conftest sets the device count. JAX is imported
# where it is used: pytest-xdist's controller imports this module and runs no test.)
def selu(x, alpha=1.67, scale=1.05):
    import jax.numpy as jnp

    return scale * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def selu_loop(x):
    """The naive answer: one Python iteration and several dispatches per element."""
    import jax.numpy as jnp

    return jnp.stack([selu(x[i]) for i in range(x.shape[0])])


# As `jax-course grade` runs one notebook: a new process that has not imported JAX (which sets variables as it
# loads), a driver from its forkserver, the kernel forked from the driver's nursery.
_GRADE_ONE = """
import sys
from autograder._config import GUARD_ARGUMENTS
from autograder.grading.batch._runner import execute_submission, start_forkserver
config = {"timeout": 60, "extra_arguments": GUARD_ARGUMENTS,
          "kernel_manager_class": "autograder.grading.kernels._manager.WarmKernelManager"}
if __name__ == "__main__":
    start_forkserver(preload=sys.argv[5].split() or None)
    seed = int(sys.argv[3]) if sys.argv[3] else None
    done = execute_submission(open(sys.argv[1]).read(), folder=sys.argv[2], execute_config=config,
                              notebook_timeout=120, memory_mb=4000, seed=seed, compiled=sys.argv[4])
    print(done.failure or "", file=sys.stderr)
    sys.stdout.write(done.notebook or "")
"""


def graded_as_jax_course_grades(
    submission: Path,
    folder: Path,
    *,
    seed: int | None = None,
    compiled: Path | None = None,
    preload: tuple[str, ...] = (),
) -> list:
    """The cells of `submission` as `jax-course grade`'s driver runs it in `folder`, drawing hidden inputs from
    `seed`, loading the programs in `compiled`, its kernel forked with `preload` imported (if any: else what
    `start_forkserver` imports by default); in an environment without JAX's, XLA's or TensorFlow's variables
    (what the grader gives its kernels)."""
    script = folder.parent / "grade_one.py"
    script.write_text(_GRADE_ONE)
    env = {name: value for name, value in os.environ.items() if not name.startswith(("TF_", "JAX_", "XLA_"))}
    argv = [submission, folder, "" if seed is None else str(seed), compiled or "", " ".join(preload)]
    done = subprocess.run([sys.executable, script, *argv], env=env, capture_output=True, text=True, timeout=300)
    assert done.stdout, done.stderr[-3000:]
    return nbformat.reads(done.stdout, as_version=4).cells


def headings(lecture: str) -> set[str]:
    """The headings of a lecture's sections and subsections (JupyterLab anchors each)."""
    from autograder.checks._errors import LECTURES as PATHS

    nb = nbformat.read(ROOT / PATHS[lecture], as_version=4)
    lines = (c.source.splitlines() for c in nb.cells if c.cell_type == "markdown")
    return {line.lstrip("#").strip() for cell in lines for line in cell if line.startswith(("## ", "### "))}
