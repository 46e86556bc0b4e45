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


# What one reads at once. A flag, not a budget: past it, split where the meaning splits (a module into modules of
# its package, a function into the steps it takes), never by joining lines to fit.
MODULE_LINES = 400
FUNCTION_LINES = 80


def test_modules_and_functions_stay_small():
    too_long = []
    for path in sorted((ROOT / "autograder").rglob("*.py")):
        source = path.read_text()
        if (lines := len(source.splitlines())) > MODULE_LINES:
            too_long.append(f"{path.relative_to(ROOT)}: {lines} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if (lines := node.end_lineno - node.lineno + 1) > FUNCTION_LINES:
                    too_long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}(): {lines} lines")
    assert too_long == [], (
        f"over ~{MODULE_LINES} lines a module, ~{FUNCTION_LINES} a function: split each where its meaning splits "
        "(a module into modules of its package, a function into its steps), not by joining lines to fit"
    )
