"""Defences against tampering: reading student cells, and the kernel's trusted tools."""

from __future__ import annotations

import nbformat
import pytest
from traitlets.config import PyFileConfigLoader

from autograder._integrity import refusal, tampering
from conftest import ASSIGNMENTS, ROOT, solution_sources
from variants import VARIANTS


@pytest.mark.parametrize("source, finding", [
    ("import time\ntime.perf_counter = lambda: 0.0", "replaces time.perf_counter"),
    ("ag.check_close = lambda *a, **k: None", "replaces ag.check_close"),
    ("from numpy import testing\ntesting.assert_allclose = print", "replaces testing.assert_allclose"),
    ("import numpy.testing as nt\nnt.assert_allclose = print", "replaces nt.assert_allclose"),
    ("del np.allclose", "replaces np.allclose"),
    ("import builtins", "imports builtins"),
    ("__builtins__.print = None", "uses __builtins__"),
    ("import sys\nsys.modules['autograder'] = None", "changes sys.modules"),
    ("ag = None", "rebinds the name ag"),
    ("def jnp():\n    pass", "defines jnp"),
    ("patch = setattr", "uses setattr"),
    ("exec('x = 1')", "uses exec"),
    ("import os\nos._exit(0)", "calls os._exit"),
    ("from os import kill\nkill(1, 9)", "calls kill"),
    ("import sys\nsys.exit()", "calls sys.exit"),
    ("import threading", "imports threading"),
    ("x = ag.__dict__", "reaches for __dict__"),
])
def test_tampering_is_found_with_its_line(source, finding):
    findings = tampering(source)
    assert any(finding in f for f in findings), findings
    assert all(f.startswith("line ") for f in findings)


def test_honest_answers_are_never_refused():
    for assignment in ASSIGNMENTS:
        answers = [solution_sources(assignment)] + [v["answers"] for v in VARIANTS[assignment].values()]
        for sources in answers:
            for grade_id, source in sources.items():
                assert tampering(source) == [], (assignment, grade_id)
    assert tampering("x = jnp.ones(3)\ny = x.at[0].set(2.0)\nmodel.scale = 3.0\nprint(len(x))") == []
    assert tampering("%timeit f(x)") == []  # a magic is not Python: running it decides


def test_a_refused_cell_raises_a_message_for_the_student():
    with pytest.raises(RuntimeError, match="did not run this cell: line 1: replaces time.perf_counter"):
        exec(refusal(tampering("time.perf_counter = None")))


def test_the_kernel_fails_checks_once_a_trusted_tool_is_replaced(tmp_path):
    """What reading cannot see, the run-time check catches: the course's Execute settings, a real kernel."""
    from nbgrader.preprocessors import Execute

    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import autograder as ag, jax.numpy as jnp, time\nag.check_close(jnp.ones(2), jnp.ones(2))"),
        nbformat.v4.new_code_cell("fake = lambda: 0.0\nvars(time)['perf_counter'] = fake\nag.check_close(jnp.ones(2), jnp.ones(2))"),
        nbformat.v4.new_code_cell("with open('big.bin', 'wb') as f:\n    f.write(bytes(300 * 2**20))"),
    ])
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    Execute(config=config).preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    errors = [[o for o in c.outputs if o.output_type == "error"] for c in nb.cells]
    assert errors[0] == []
    assert errors[1] and "time.perf_counter" in errors[1][0].evalue and errors[1][0].ename == "CheckFailed"
    assert errors[2] and "File too large" in errors[2][0].evalue
    assert (tmp_path / "big.bin").stat().st_size <= 256 * 2**20
