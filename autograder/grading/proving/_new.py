"""`jax-course new`: a set, or a problem in one, started with the cells, metadata and files the course needs."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from ._declared import declared_path
from ._run import layout
from ._sets import ExerciseSet


class NewError(ValueError):
    """The set or problem cannot be started as asked: the message says why."""


def _meta(grade_id: str, *, answer: bool = False, points: int = 0) -> dict:
    meta = {"grade": bool(points), "grade_id": grade_id, "locked": not answer, "schema_version": 3, "solution": answer}
    if points:
        meta["points"] = points
    return {"nbgrader": meta}


def _cited(section: str) -> str:
    return f', section="{section}"' if section else ""


def problem_cells(assignment: str, name: str, number: int, title: str, section: str) -> list:
    """A problem's heading, its answer cell and its test cell with hidden tests, for `name(x)`."""
    cited = _cited(section)
    return [
        new_markdown_cell(
            f"## Problem {number}: {title} (1 point)\n\n"
            f"Write `{name}(x)` that ... (say what it returns for an array `x`, and which skill of the lecture it "
            "uses).",
            metadata=_meta(f"{name}_task"),
        ),
        new_code_cell(
            f'def {name}(x):\n    ### BEGIN SOLUTION\n    raise NotImplementedError("the reference answer")\n'
            "    ### END SOLUTION",
            metadata=_meta(name, answer=True),
        ),
        new_code_cell(
            "# The visible test: an example and the output it must give.\n"
            "x = jnp.array([-1.0, 0.0, 2.0])\n"
            f'ag.check_close({name}(x), jnp.array([-1.0, 0.0, 2.0]), what="{name}(x)", hint="@{assignment}/{name}.fix"'
            f"{cited})\n"
            "### BEGIN HIDDEN TESTS\n"
            f'rng = ag.grader_rng("{assignment}/{name}")\n'
            "x = jnp.asarray(rng.normal(size=50), dtype=jnp.float32)\n"
            f'ag.check_reference({name}(x), "{assignment}/{name}", what="{name} on a hidden input"{cited})\n'
            "### END HIDDEN TESTS",
            metadata=_meta(f"test_{name}", points=1),
        ),
    ]


def _new_notebook(assignment: str) -> nbformat.NotebookNode:
    nb = new_notebook(
        metadata={
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        }
    )
    nb.cells = [
        new_markdown_cell(
            f"# Exercises: {assignment}\n\n"
            "- Replace each `raise NotImplementedError()` with your answer, then run the test cell below it.\n"
            "- When your work is graded, each test cell also runs **hidden tests** on inputs you have not seen.",
            metadata=_meta("intro"),
        ),
        new_code_cell(
            "import jax\nimport jax.numpy as jnp\nimport numpy as np\n\nimport autograder as ag",
            metadata=_meta("setup"),
        ),
    ]
    return nb


_VERIFIED = """
[test_{name}]
function = "{name}"
draws_from = "{assignment}/{name}"
section = "{section}"

[[test_{name}.call]]
what = "{name} on a hidden input"
# The arguments the verifier draws, in order: [50] is 50 standard normal float32 values. It compares the
# answer's output with the reference answer's on them, and can read the program's structure too (max_ops, ...).
args = [[50]]
"""
_VERIFIED_HEADER = (
    "# Set {assignment}'s answers, verified outside the student's kernel (autograder/_verified.py says how).\n"
)
_HINT = """
[{assignment}.{name}]
fix = "what to try when {name}(x) differs, without giving the answer away: only a failure shows it."
"""
_DECLARED = '''"""Declared answers to set {assignment} (autograder/grading/proving/_declared.py says how)."""

VARIANTS = {{
}}
'''
_DECLARED_EXAMPLE = """
# Problem {number}, `{name}`: its wrong answers (and correct ones written another way) go in VARIANTS, e.g.
#     "{name}_returns_input": {{
#         "answers": {{"{name}": "def {name}(x):\\n    return x\\n"}},
#         "loses": {{"test_{name}"}},
#         "says": ["{name}(x)", "differs"],
#     }},
"""


def new_problem(root: Path, assignment: str, name: str, title: str | None, section: str) -> list[Path]:
    """Start `assignment` if it does not exist, and add problem `name` to it; the files written."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", assignment):
        raise NewError(f"{assignment!r} is not a set name nbgrader takes (letters, digits, _ and -)")
    if not name.isidentifier():
        raise NewError(f"{name!r} is not a Python function name")
    exercise = ExerciseSet(root, assignment, layout(root).source)
    path = exercise.notebook_path
    nb = nbformat.read(path, as_version=4) if path.is_file() else _new_notebook(assignment)
    taken = {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells}
    if clash := {name, f"test_{name}", f"{name}_task"} & taken:
        raise NewError(f"{path} already has cells {sorted(clash)}: choose another name for the problem")
    number = 1 + (len(exercise.problems) if path.is_file() else 0)
    nb.cells += problem_cells(assignment, name, number, title or name.replace("_", " "), section)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    written = [path]
    verified = root / "autograder" / "verified"
    if verified.is_dir():
        toml = verified / f"{assignment}.toml"
        header = "" if toml.is_file() else _VERIFIED_HEADER.format(assignment=assignment)
        with toml.open("a") as out:
            out.write(header + _VERIFIED.format(assignment=assignment, name=name, section=section))
        written.append(toml)
    hints = root / "autograder" / "checks" / "hints.toml"
    if hints.is_file():  # a test cell names its hint by key: only a failure shows the words (checks/_hints.py)
        with hints.open("a") as out:
            out.write(_HINT.format(assignment=assignment, name=name))
        written.append(hints)
    declared = declared_path(root, assignment)
    declared.parent.mkdir(parents=True, exist_ok=True)
    text = declared.read_text() if declared.is_file() else _DECLARED.format(assignment=assignment)
    declared.write_text(text + _DECLARED_EXAMPLE.format(number=number, name=name))
    return [*written, declared]
