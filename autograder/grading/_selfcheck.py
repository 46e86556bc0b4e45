"""Self-check: a report on your own notebook, with no instructor and no gradebook.

Where the course's `solutions/` folder is at hand (a clone of the repository), the
notebook is graded exactly as an instructor would: `nbgrader autograde` in a
throw-away course, hidden tests included. Elsewhere (a lone notebook in Colab) the
notebook runs as it is, with its visible tests.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .._config import TIMING
from ._calibrate import decide_timing

_REREAD = re.compile(r"Reread: (\S+)")


@dataclass(frozen=True)
class ProblemResult:
    """One graded test cell of a notebook, as a self-learner sees it."""

    problem: str
    test: str
    points: float
    max_points: float
    message: str

    @property
    def passed(self) -> bool:
        return self.points >= self.max_points

    @property
    def reread(self) -> str | None:
        found = _REREAD.search(self.message)
        return found.group(1) if found else None


@dataclass(frozen=True)
class SelfCheck:
    notebook: Path
    results: list[ProblemResult]
    hidden_tests: bool
    timing: str
    timing_reason: str

    @property
    def score(self) -> tuple[float, float]:
        return sum(r.points for r in self.results), sum(r.max_points for r in self.results)

    def report(self) -> str:
        got, total = self.score
        tests = "visible and hidden tests" if self.hidden_tests else "visible tests only (no solutions/ folder found)"
        lines = [f"Self-check of {self.notebook.name}: {tests}", ""]
        width = max((len(r.problem) for r in self.results), default=10)
        for r in self.results:
            mark = "passed" if r.passed else "FAILED"
            lines.append(f"  {mark}  {r.problem:<{width}}  {r.points:g}/{r.max_points:g}")
            if not r.passed:
                first = r.message.strip().splitlines()[0] if r.message.strip() else "the test did not run"
                lines.append(f"          {first}")
                if r.reread:
                    lines.append(f"          Reread: {r.reread}")
        lines += ["", f"Score: {got:g}/{total:g}. Timing checks: {self.timing} ({self.timing_reason})."]
        return "\n".join(lines)


# --- running ----------------------------------------------------------------------------------


def find_course(notebook: Path) -> tuple[Path | None, str]:
    """The course checkout holding the notebook's source, and the assignment id."""
    assignment = notebook.stem
    for folder in (notebook.parent, *notebook.parents):
        if (folder / "nbgrader_config.py").is_file() and (
            folder / "solutions" / assignment / f"{assignment}.ipynb"
        ).is_file():
            return folder, assignment
    return None, assignment


def _problem_names(cells: list[dict]) -> dict[str, str]:
    """Each test cell's grade_id -> the heading of the problem it belongs to."""
    names, heading = {}, None
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        source = "".join(cell.get("source", ""))
        if cell.get("cell_type") == "markdown":
            for line in source.splitlines():
                if line.startswith("## "):
                    heading = line[3:].strip()
        elif meta.get("grade") and not meta.get("solution"):
            names[meta["grade_id"]] = heading or meta["grade_id"]
    return names


def _error_message(cell: dict) -> str:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            name, value = output.get("ename", "Error"), output.get("evalue", "")
            if name in ("CheckFailed", "AssertionError"):
                return value or "a test failed"
            if name == "NotImplementedError":
                return "not answered yet (the cell still raises NotImplementedError)"
            if name == "NameError":
                return f"{value}: run the cell with your answer first, or check the name you defined"
            return f"{name}: {value}"
    return ""


def _results(nb: dict, scores: dict[str, float] | None) -> list[ProblemResult]:
    names = _problem_names(nb["cells"])
    results = []
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") != "code" or not meta.get("grade") or meta.get("solution"):
            continue
        message = _error_message(cell)
        full = float(meta.get("points", 0))
        points = scores.get(meta["grade_id"], 0.0) if scores is not None else (0.0 if message else full)
        results.append(ProblemResult(names[meta["grade_id"]], meta["grade_id"], points, full, message))
    return results


def _run(command: list[str], cwd: Path, env: dict, what: str, timeout: float) -> None:
    try:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(
            f"{what} took longer than {timeout:.0f} s and was stopped: look for an answer that never "
            "finishes (an endless loop, or a loop over millions of elements in Python)."
        ) from None
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise RuntimeError(f"{what} failed:\n{tail}")


def _with_hidden_tests(notebook: Path, root: Path, assignment: str, env: dict, timeout: float) -> list[ProblemResult]:
    from nbgrader.api import Gradebook

    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    with tempfile.TemporaryDirectory(prefix="jax-course-check-") as scratch:
        course = Path(scratch)
        shutil.copy(root / "nbgrader_config.py", course / "nbgrader_config.py")
        shutil.copytree(root / "solutions" / assignment, course / "solutions" / assignment)
        _run([nbgrader, "generate_assignment", assignment, "--force"], course, env, "Preparing the assignment", timeout)
        submitted = course / "submitted" / "you" / assignment
        submitted.mkdir(parents=True)
        shutil.copy(notebook, submitted / f"{assignment}.ipynb")
        _run([nbgrader, "autograde", assignment, "--student", "you", "--force"], course, env, "Grading", timeout)
        graded = json.loads((course / "autograded" / "you" / assignment / f"{assignment}.ipynb").read_text())
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
            notebook_grades = gb.find_submission_notebook(assignment, assignment, "you")
            scores = {grade.name: float(grade.score) for grade in notebook_grades.grades}
    return _results(graded, scores)


def _visible_only(notebook: Path, env: dict, timeout: float) -> list[ProblemResult]:
    import nbclient
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    previous = {name: os.environ.get(name) for name in (TIMING,)}
    os.environ[TIMING] = env[TIMING]
    try:
        client = nbclient.NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            allow_errors=True,
            resources={"metadata": {"path": str(notebook.parent)}},
        )
        client.execute()
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return _results(json.loads(nbformat.writes(nb)), None)


def check_notebook(path: str | os.PathLike, *, timeout: float = 600) -> SelfCheck:
    """Run the notebook at `path` in a fresh kernel and grade it; see `SelfCheck.report()`."""
    notebook = Path(path).resolve()
    if not notebook.is_file():
        raise FileNotFoundError(f"No notebook at {notebook}.")
    try:
        cells = json.loads(notebook.read_text())["cells"]
        assert isinstance(cells, list)
    except Exception:
        raise ValueError(
            f"{notebook.name} is not a readable Jupyter notebook (it may be damaged). "
            "Download a fresh copy of the exercise and paste your answers into it."
        ) from None
    mode, reason = decide_timing()
    env = {**os.environ, TIMING: mode, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    root, assignment = find_course(notebook)
    if root is not None:
        results = _with_hidden_tests(notebook, root, assignment, env, timeout)
    else:
        results = _visible_only(notebook, env, timeout)
    return SelfCheck(notebook, results, root is not None, mode, reason)


def _current_notebook() -> Path:
    """The notebook this kernel belongs to: JupyterLab names it; Colab hands over its contents."""
    session = os.environ.get("JPY_SESSION_NAME")
    if session and Path(session).is_file():
        return Path(session)
    try:
        from google.colab import _message  # type: ignore[import-not-found]
    except ImportError:
        raise RuntimeError(
            "Could not tell which notebook this is. Pass its path: check_my_work('exercises/04_jit/04_jit.ipynb')."
        ) from None
    contents = _message.blocking_request("get_ipynb", timeout_sec=60)["ipynb"]
    target = Path(tempfile.mkdtemp(prefix="jax-course-colab-")) / "notebook.ipynb"
    target.write_text(json.dumps(contents))
    return target


def check_my_work(path: str | os.PathLike | None = None) -> SelfCheck:
    """Check the notebook you are working in (its last saved version) and print the report.

    Works in JupyterLab and in Colab; elsewhere, pass the notebook's path.
    """
    notebook = Path(path) if path is not None else _current_notebook()
    print(f"Checking the saved version of {notebook.name} in a fresh kernel (save first!) ...", flush=True)
    result = check_notebook(notebook)
    print(result.report())
    return result
