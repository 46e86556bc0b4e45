"""Reading student cells: tampering is found with its line, honest answers never are."""

from __future__ import annotations

import pytest

from autograder.grading.plugins._tampering import refusal, shadowing, tampering

from support import ASSIGNMENTS, solution_sources
from variants import VARIANTS

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "source, finding",
    [
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
        # A frame up the stack holds a check's own variables (its timings, its counts) while it calls an answer.
        ("import traceback\nfor frame, _ in traceback.walk_stack(None):\n    frame.f_locals", "reaches for f_locals"),
        ("import sys\nsys.exc_info()[2].tb_frame.f_back", "reaches for tb_frame"),
        ("def f():\n    yield\ng = f()\ng.gi_frame", "reaches for gi_frame"),
    ],
)
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


def test_files_named_like_installed_modules_are_named_and_a_helper_is_not(tmp_path):
    for name in ("autograder.py", "numpy.py", "json.py", "sitecustomize.py", "zz.pth", "helper.py", "data.csv"):
        (tmp_path / name).write_text("")
    for package in ("jax", "IPython", "my_utils"):
        (tmp_path / package).mkdir()
    found = shadowing(tmp_path)
    assert found == ["IPython", "autograder.py", "jax", "json.py", "numpy.py", "sitecustomize.py", "zz.pth"], found
    assert shadowing(tmp_path / "missing") == []
