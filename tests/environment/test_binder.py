"""Binder: what repo2docker would build, rebuilt in a fresh venv (there is no Docker here)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from support import ROOT, answered, solution_sources

pytestmark = pytest.mark.environment


def test_runtime_and_dependencies_come_from_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = (ROOT / "binder" / "runtime.txt").read_text().strip()
    major_minor = re.fullmatch(r"python-(\d+)\.(\d+)", runtime)
    assert major_minor, runtime
    assert project["requires-python"] == f">={major_minor[1]}.{major_minor[2]}"
    # The only install step installs this package with its pinned extras: Binder cannot drift
    # from pyproject.toml because it has no list of its own.
    post_build = (ROOT / "binder" / "postBuild").read_text()
    installs = [line for line in post_build.splitlines() if "pip install" in line]
    assert installs == ["pip install --no-cache-dir -e '.[course]'"]
    assert not any((ROOT / "binder" / name).exists() for name in ("requirements.txt", "environment.yml", "Pipfile"))
    # `course` pins its own requirements and includes the course's other extras (`jax-course[ecosystem]`),
    # whose requirements are pinned too.
    extras = project["optional-dependencies"]
    own = [r for r in extras["course"] if r.startswith("jax-course[")]
    included = [r.removeprefix("jax-course[").removesuffix("]") for r in own]
    course = [r for r in extras["course"] if r not in own] + [r for extra in included for r in extras[extra]]
    assert included == ["ecosystem"]
    assert all("==" in requirement for requirement in project["dependencies"] + course)


def _binder_env(tmp_path):
    """A fresh venv on which binder/postBuild has run, as repo2docker would run it."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(venv)}
    env.pop("JUPYTER_DATA_DIR", None)
    done = subprocess.run(["bash", "binder/postBuild"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return venv, env


def _post_build_keeps_validate_and_turns_off_the_course_server_parts(venv, env):
    servers = subprocess.run(
        [venv / "bin" / "jupyter", "server", "extension", "list"], env=env, capture_output=True, text=True
    )
    text = servers.stdout + servers.stderr
    assert re.search(r"nbgrader\.server_extensions\.validate_assignment\s+\S*enabled", text), text
    for name in ("formgrader", "assignment_list", "course_list"):
        assert re.search(rf"nbgrader\.server_extensions\.{name}\s+\S*disabled", text), text
    labs = subprocess.run([venv / "bin" / "jupyter", "labextension", "list"], env=env, capture_output=True, text=True)
    disabled = labs.stdout + labs.stderr
    for plugin in ("formgrader", "assignment-list", "course-list", "create-assignment"):
        assert f"@jupyter/nbgrader:{plugin}" in disabled.split("Disabled extensions:")[-1], disabled
    assert "@jupyter/nbgrader:validate-assignment" not in disabled
    overrides = json.loads((venv / "share" / "jupyter" / "lab" / "settings" / "overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"


def _an_exercise_runs_and_validates(venv, env, tmp_path):
    assignment = "03_tracing"
    solved = answered(assignment, solution_sources(assignment), tmp_path / f"{assignment}.ipynb")
    shutil.copy(ROOT / "exercises" / assignment / f"{assignment}.ipynb", tmp_path / "untouched.ipynb")
    validate = [str(venv / "bin" / "nbgrader"), "validate"]
    passed = subprocess.run([*validate, str(solved)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert passed.returncode == 0 and "Success! Your notebook passes all the tests." in passed.stdout, (
        passed.stdout + passed.stderr
    )
    failed = subprocess.run(
        [*validate, str(tmp_path / "untouched.ipynb")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert "VALIDATION FAILED" in failed.stdout, failed.stdout + failed.stderr


# One test, so that the environment (a minute to build) is built once: two tests sharing a
# fixture may run on both xdist workers, and each would build its own.
def test_the_binder_env_keeps_validate_turns_off_the_server_parts_and_validates_an_exercise(tmp_path):
    venv, env = _binder_env(tmp_path)
    _post_build_keeps_validate_and_turns_off_the_course_server_parts(venv, env)
    _an_exercise_runs_and_validates(venv, env, tmp_path)
