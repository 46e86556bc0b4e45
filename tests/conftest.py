"""Shared set-up: a clean Jupyter environment and temporary nbgrader courses."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = sorted(p.name for p in (ROOT / "solutions").iterdir() if (p / f"{p.name}.ipynb").exists())
LECTURES = sorted((ROOT / "course").glob("*.ipynb"))
VENV_BIN = Path(sys.executable).parent


def pytest_configure(config):
    config._started = time.time()
    # Kernels run from this environment, whatever a user has installed: a
    # "python3" kernelspec in the user's data dir would otherwise win.
    config._jupyter_data = tempfile.mkdtemp(prefix="jupyter-data-")
    os.environ["JUPYTER_DATA_DIR"] = config._jupyter_data
    # nbgrader's gradebook runs `alembic` by name.
    os.environ["PATH"] = f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    # Grade as a course would by default, whatever the developer's shell says.
    os.environ["JAXCOURSE_TIMING"] = "enforce"
    for name in ("JAXCOURSE_GRADER_SEED", "JAXCOURSE_RECORD_REFERENCES", "JAXCOURSE_REFERENCES"):
        os.environ.pop(name, None)
    # Multi-device checks are unit-tested on 8 simulated CPU devices (only this process; the
    # notebooks' kernels choose their own). It must happen before JAX's first operation.
    import jax

    jax.config.update("jax_num_cpu_devices", 8)


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "_jupyter_data", ""), ignore_errors=True)


def run(*command: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run a command; on failure, show everything it printed."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(command)} exited {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


def make_course(folder: Path, *assignments: str) -> Path:
    """A fresh nbgrader course holding these assignments, released into `exercises/`."""
    shutil.copy(ROOT / "nbgrader_config.py", folder / "nbgrader_config.py")
    for assignment in assignments:
        shutil.copytree(ROOT / "solutions" / assignment, folder / "solutions" / assignment)
        run(VENV_BIN / "nbgrader", "generate_assignment", assignment, "--force", cwd=folder)
    return folder


_MARKER = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$")


def solution_sources(assignment: str) -> dict[str, str]:
    """The reference answer of every solution cell, by grade_id, without markers."""
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]: "\n".join(line for line in c.source.splitlines() if not _MARKER.match(line))
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("solution")
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


def read_scores(course: Path, assignment: str) -> dict[str, dict[str, float]]:
    """`{student: {test grade_id: score}}` from the course's SQLite gradebook."""
    from nbgrader.api import Gradebook

    scores: dict[str, dict[str, float]] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for submission in gb.assignment_submissions(assignment):
            notebook = submission.notebooks[0]
            scores[submission.student_id] = {grade.name: grade.score for grade in notebook.grades}
    return scores


def test_points(assignment: str) -> dict[str, float]:
    """`{test grade_id: points}` of an assignment."""
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"])
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }


test_points.__test__ = False  # a helper, not a test


@pytest.fixture
def root() -> Path:
    return ROOT


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Show the hostile-submission table (tests/test_hostile.py) when this session wrote it."""
    report = ROOT / "test-artifacts" / "hostile-report.txt"
    started = getattr(config, "_started", None)
    if report.is_file() and started is not None and report.stat().st_mtime >= started:
        terminalreporter.write_sep("=", "hostile submissions")
        terminalreporter.write(report.read_text())


# The longest tests start first (longest-processing-time-first), so that neither xdist worker
# is left running one of them alone at the end; the rest keep their order.
_LONGEST_FIRST = ["test_hostile.py", "test_autograde.py", "test_batch.py", "test_binder.py", "test_colab.py",
                  "test_browser.py", "test_selfcheck.py"]


def pytest_collection_modifyitems(session, config, items):
    def rank(item):
        name = item.path.name
        return _LONGEST_FIRST.index(name) if name in _LONGEST_FIRST else len(_LONGEST_FIRST)

    items.sort(key=rank)
