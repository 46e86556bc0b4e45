"""Recording, from the solutions, the reference outputs hidden tests compare against, and the tests themselves."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from ..._config import (
    DEFAULT_SEED,
    GRADER_SEED,
    PACKAGE_REFERENCES,
    RECORD_REFERENCES,
    REFERENCES,
    environment_with,
    grader_seed,
    kernel_references,
    kernel_seed,
)
from ..._passes import HIDDEN_MARKERS, PASSES_FILE
from .._cells import grade_id_if_test

# Beside each set's reference outputs: its test cells, hidden tests included (never a solution cell),
# so that a self-check outside the course's repository (Colab, a copy anywhere) runs them too.
TESTS_FILE = "tests.json"


def all_tests(notebook: Path) -> dict[str, str]:
    """Each test cell's whole source by grade_id, in notebook order, hidden tests included."""
    tests = {}
    for cell in json.loads(notebook.read_text())["cells"]:
        if (test := grade_id_if_test(cell)) is not None:
            source = "".join(cell["source"]).splitlines()
            tests[test] = "\n".join(line for line in source if line.strip() not in HIDDEN_MARKERS)
    return tests


def package_tests(cells: list[dict]) -> tuple[str, dict[str, str]] | None:
    """The assignment and the course package's tests for this notebook (hidden tests included), found by
    its test cells' ids."""
    ids = {test for cell in cells if (test := grade_id_if_test(cell)) is not None}
    for stored in sorted(PACKAGE_REFERENCES.glob(f"*/{TESTS_FILE}")):
        tests = json.loads(stored.read_text())
        if ids and ids <= set(tests):
            return stored.parent.name, tests
    return None


def visible_tests(notebook: Path) -> dict[str, dict]:
    """Each test cell's points and its source as the release shows it (hidden tests out), by grade_id."""
    cells = {}
    for cell in json.loads(notebook.read_text())["cells"]:
        if (test := grade_id_if_test(cell)) is not None:
            shown, hidden = [], False
            for line in "".join(cell["source"]).splitlines():
                if line.strip() in HIDDEN_MARKERS:
                    hidden = line.strip() == HIDDEN_MARKERS[0]
                elif not hidden:
                    shown.append(line)
            points = float(cell["metadata"]["nbgrader"].get("points", 0))
            cells[test] = {"points": points, "visible": "\n".join(shown)}
    return cells


def record_tests(assignment: str, root: Path, into: Path, source: Path | None = None) -> Path:
    """Write `into/assignment/tests.json` from the solution notebook in `source` (default `root/solutions`), and
    beside it what a passing test cell says of itself (`passes.json`: its points and visible source)."""
    path = into / assignment / TESTS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    notebook = (source or root / "solutions") / assignment / f"{assignment}.ipynb"
    path.write_text(json.dumps(all_tests(notebook), indent=1) + "\n")
    (path.parent / PASSES_FILE).write_text(json.dumps(visible_tests(notebook), indent=1) + "\n")
    return path


def record_references(
    assignment: str, root: Path, into: Path, timeout: int = 600, source: Path | None = None, required: bool = True
) -> Path:
    """Run the reference solution of `assignment` (in `source`, default `root/solutions`) and store what
    its checks compare, and its tests.

    Every `check_reference` call in the solution notebook saves its value instead
    of comparing it. The folder `into/assignment` is replaced only when the whole
    notebook ran without error; a notebook that compares nothing is an error unless not `required`.
    A value its check would take the stored reference for keeps that file byte for byte, so only the
    references whose values changed, new ones and those no longer recorded show as changes.
    A secret seed also records, from the seed derived for grading kernels, the kernel's own references.
    """
    notebook = (source or root / "solutions") / assignment / f"{assignment}.ipynb"
    seed = grader_seed()
    target = _record(notebook, assignment, into, timeout, required)
    if seed != DEFAULT_SEED:  # derived with the course's own secret, as grading derives it
        from ._seed import course_seed

        for_kernels = kernel_seed(seed, course_seed(root)[0])
        with environment_with({GRADER_SEED: str(for_kernels)}):
            _record(notebook, assignment, kernel_references(into, seed), timeout, required)
    record_tests(assignment, root, into, source)
    return target


def _record(notebook: Path, assignment: str, into: Path, timeout: int, required: bool) -> Path:
    import nbclient
    import nbformat

    from ..verification._verification import add_hand_overs

    # The hand-over cells record the outputs that only the verifier compares (`autograder/verified/`).
    nb = add_hand_overs(nbformat.read(notebook, as_version=4), assignment)
    with tempfile.TemporaryDirectory() as scratch:
        # The references stored before, which a value recorded again within its check's tolerance keeps.
        with environment_with({RECORD_REFERENCES: scratch, REFERENCES: str(into.absolute())}):
            nbclient.NotebookClient(
                nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(notebook.parent)}}
            ).execute()
        recorded = Path(scratch) / assignment
        if not recorded.is_dir() and required:
            raise SystemExit(f"jax-course: {notebook} recorded no reference outputs")
        recorded.mkdir(exist_ok=True)
        target = into / assignment
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(recorded, target)
    return target
