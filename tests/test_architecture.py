"""The package's two sides stay apart: the instructor's tools load no JAX, and the façade is complete."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

import autograder
import autograder.checks

from support import ROOT, VENV_BIN

pytestmark = pytest.mark.unit


def _imported(*command: str, cwd=ROOT) -> set[str]:
    """Top-level packages a command imports, read from `python -X importtime`."""
    done = subprocess.run([sys.executable, "-X", "importtime", *command], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    return {name.split(".")[0] for name in lines}


@pytest.mark.parametrize(
    "command",
    [
        [str(VENV_BIN / "nbgrader"), "--version"],
        [str(VENV_BIN / "jax-course"), "grade", "--help"],
        ["-c", "exec(open('nbgrader_config.py').read(), {'get_config': __import__('traitlets.config').config.Config})"],
    ],
    ids=["nbgrader --version", "jax-course grade --help", "nbgrader_config.py"],
)
def test_instructor_commands_import_no_jax(command):
    imported = _imported(*command)
    assert "jax" not in imported and "jaxlib" not in imported


def test_a_grading_kernel_imports_no_nbgrader():
    kernel = "import autograder.checks; autograder.checks.guard(); import autograder as ag; ag.check_close"
    imported = _imported("-c", kernel)
    assert "jax" in imported and "nbgrader" not in imported


def test_the_facade_offers_every_check_and_the_self_check():
    assert set(autograder.__all__) == {*autograder.checks.__all__, "check_my_work", "check_notebook"}
    for name in autograder.__all__:
        assert getattr(autograder, name) is not None


def test_modules_and_functions_stay_small():
    too_long = []
    for path in sorted((ROOT / "autograder").rglob("*.py")):
        source = path.read_text()
        if len(source.splitlines()) > 250:
            too_long.append(f"{path.relative_to(ROOT)}: {len(source.splitlines())} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno >= 60:
                too_long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}()")
    assert too_long == [], "split these (a module under ~250 lines, a function under ~60)"
