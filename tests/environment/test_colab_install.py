"""Colab, simulated: the setup cell installs the course from a wheel, then the self-check runs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib

import pytest

from autograder._config import PIP_SOURCE
from autograder.grading.authoring import _colab

from support import ROOT, answered, solution_sources

pytestmark = pytest.mark.environment


def _pins(*names: str) -> list[str]:
    """The pinned requirements for `names`, from pyproject.toml, so the simulation cannot drift."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = [r for group in project["optional-dependencies"].values() for r in group]
    return [r for r in pins if r.split("==")[0] in names]


_RUN = """
import sys, nbclient, nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True).execute()
nbformat.write(nb, sys.argv[2])
"""


def test_colab_setup_cell_installs_the_course_then_the_self_check_runs(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", wheels, ROOT], check=True, timeout=300
    )
    (wheel,) = wheels.glob("jax_course-*.whl")
    # A fresh Python with what Colab ships for notebooks (a kernel, nbclient), without JAX or the course.
    venv = tmp_path / "colab"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", *_pins("ipykernel", "nbclient")], check=True, timeout=600
    )
    # Not from the checkout's folder, whose jax_course.egg-info would count as installed.
    missing = "import importlib.metadata as m; m.version('jax-course')"
    assert subprocess.run([python, "-c", missing], cwd=tmp_path, capture_output=True).returncode != 0, "installed early"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("JAXCOURSE", "JAX_", "XLA_", "PYTHON"))},
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(venv),
        "COLAB_RELEASE_TAG": "simulated",
        PIP_SOURCE: wheel.as_uri(),
    }
    work = tmp_path / "content"  # Colab's working folder: a notebook alone, no solutions/
    work.mkdir()
    assignment = "03_tracing"
    solved = answered(assignment, solution_sources(assignment), work / f"{assignment}.ipynb")

    first = subprocess.run(
        [python, "-c", _RUN, solved, work / "ran.ipynb"], cwd=work, env=env, capture_output=True, text=True, timeout=900
    )
    assert first.returncode == 0, first.stderr[-3000:]
    ran = json.loads((work / "ran.ipynb").read_text())["cells"]
    setup_output = "".join("".join(o.get("text", "")) for o in ran[1]["outputs"])
    assert "Installing the course package" in setup_output
    errors = [o for c in ran if c["cell_type"] == "code" for o in c["outputs"] if o["output_type"] == "error"]
    assert errors == [], errors
    version = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('jax-course'), m.version('jax'))"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert version == [project["version"], re.search(r"jax==(\S+)", " ".join(project["dependencies"]))[1]]
    # The setup cell installs the ecosystem extra too (lecture 14 and its set), at its pinned releases.
    ecosystem = {r.split("==")[0]: r.split("==")[1] for r in project["optional-dependencies"]["ecosystem"]}
    imports = "import flax.nnx, optax, orbax.checkpoint, sklearn.datasets, importlib.metadata as m; "
    versions = f"print(*(m.version(name) for name in {list(ecosystem)!r}))"
    imported = subprocess.run([python, "-c", imports + versions], env=env, capture_output=True, text=True)
    assert imported.returncode == 0, imported.stderr[-3000:]
    assert imported.stdout.split() == list(ecosystem.values()), imported.stdout

    # The self-check, as a Colab user calls it (with a path: there is no Colab front end here).
    check = subprocess.run(
        [python, "-c", f"import autograder as ag; ag.check_my_work({str(solved)!r})"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert check.returncode == 0, check.stdout[-3000:] + check.stderr[-3000:]
    # The wheel carries the hidden tests (tests.json) and their reference outputs.
    assert "visible and hidden tests" in check.stdout and "FAILED" not in check.stdout, check.stdout
    assert re.search(r"Score: (\d+)/\1\b", check.stdout), check.stdout

    # Now that the course is installed, the setup cell does nothing.
    again = subprocess.run(
        [python, "-c", _colab.setup_source(ROOT)], cwd=work, env=env, capture_output=True, text=True, timeout=60
    )
    assert again.returncode == 0 and again.stdout == again.stderr == "", again.stdout + again.stderr
