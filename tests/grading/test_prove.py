"""`jax-course new` and `jax-course prove`, followed as the instructors' guide's "Adding a problem" writes them, in a
copy of the course: the worked example is proven sound, and a test that an answer doing nothing passes is named."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess

import nbformat
import pytest

from support import ROOT, VENV_BIN

pytestmark = pytest.mark.grading

GUIDE = ROOT / "docs" / "guide" / "instructors.md"


def guide_steps() -> dict[str, str]:
    """The guide's code blocks marked `<!-- guide: NAME -->`, by NAME."""
    found = re.findall(r"<!-- guide: ([^>]+?) -->\n```\w*\n(.*?)```", GUIDE.read_text(), re.S)
    return {name: code for name, code in found}


def copy_of_the_course(folder):
    """The course's tracked files as they are in this checkout (an instructor's clone)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True)
    for name in filter(None, listed.stdout.split("\0")):
        source = ROOT / name
        if source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    return folder


def set_cell(notebook, grade_id: str, source: str) -> None:
    nb = nbformat.read(notebook, as_version=4)
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    cell.source = source.strip()
    nbformat.write(nb, notebook)


def test_a_set_written_from_the_guide_is_proven_and_a_test_passed_by_doing_nothing_is_named(tmp_path):
    steps = guide_steps()
    assert {"new", "answer relu", "test test_relu", "hints", "variants", "prove", "weak"} <= set(steps), sorted(steps)
    course = copy_of_the_course(tmp_path / "course")
    # The copy's own package, as an instructor's clone installed with `make setup` would have it.
    env = {**os.environ, "PYTHONPATH": str(course), "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}"}

    def jax_course(line: str) -> subprocess.CompletedProcess:
        command = shlex.split(line)
        assert command[0] == "jax-course", line
        return subprocess.run(
            [VENV_BIN / "jax-course", *command[1:]], cwd=course, env=env, capture_output=True, text=True, timeout=900
        )

    done = jax_course(steps["new"])
    assert done.returncode == 0, done.stdout + done.stderr
    notebook = course / "solutions" / "17_relu" / "17_relu.ipynb"
    for step, source in steps.items():
        if step.startswith(("answer ", "test ")):
            set_cell(notebook, step.split()[1], source)
    variants = course / "tests" / "variants" / "17_relu.py"
    variants.write_text(steps["variants"])
    hints = course / "autograder" / "checks" / "hints.toml"
    stub, _, after = hints.read_text().partition("\n[17_relu.relu]\n")
    assert after.startswith("fix = "), "new writes the hint's table"
    hints.write_text(f"{stub}\n{steps['hints']}")

    done = jax_course(steps["prove"])
    shown = done.stdout + done.stderr
    assert done.returncode == 0, shown
    assert "17_relu: sound" in shown and "relu_abs" in shown and "relu_where" in shown
    assert (course / "exercises" / "17_relu" / "17_relu.ipynb").is_file()
    assert (course / "autograder" / "checks" / "references" / "17_relu" / "relu.npz").is_file()
    assert "| 17_relu | `relu_abs` | test_relu | visible |" in (course / "docs" / "guide" / "tables.md").read_text()
    assert "| 17_relu | `test_relu` | 1 | verifier |" in (course / "autograder" / "INTEGRITY.md").read_text()

    # The guide's weak test, with the edits its comments describe.
    new, *_, prove = [line for line in steps["weak"].splitlines() if line.startswith("jax-course")]
    assert jax_course(new).returncode == 0
    set_cell(notebook, "square", "def square(x):\n    ### BEGIN SOLUTION\n    return x * x\n    ### END SOLUTION")
    set_cell(notebook, "test_square", "x = jnp.array([-1.0, 0.0, 2.0])\nassert square(x).shape == x.shape")
    toml = course / "autograder" / "verified" / "17_relu.toml"
    kept = toml.read_text().split("\n[test_square]")[0]
    toml.write_text(kept + '\n[in_the_kernel]\ntest_square = "a shape, which the verifier does not compare"\n')
    done = jax_course(prove)
    shown = re.sub(r"\s+", " ", done.stdout + done.stderr)
    assert done.returncode == 1, shown
    assert "17_relu: not sound" in shown
    assert "test_square (Problem 2: square): does nothing (first argument) must score 0" in shown
    assert "test_relu (" not in shown.split("not sound")[1], "only the weak test is named"
