"""The kernel's guard: once a trusted tool is replaced, every check fails."""

from __future__ import annotations

import nbformat
import pytest
from traitlets.config import PyFileConfigLoader

from support import ROOT

pytestmark = pytest.mark.unit


def outputs_in_a_grading_kernel(sources: list[str], folder) -> list[list]:
    """Run `sources` as cells with the course's Execute settings (a real kernel, in `folder`): each cell's outputs."""
    from nbgrader.preprocessors import Execute

    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    Execute(config=config).preprocess(nb, {"metadata": {"path": str(folder)}})
    return [c.outputs for c in nb.cells]


def errors_in_a_grading_kernel(sources: list[str], folder) -> list[list]:
    """Each cell's errors, run as in `outputs_in_a_grading_kernel`."""
    executed = outputs_in_a_grading_kernel(sources, folder)
    return [[o for o in outputs if o.output_type == "error"] for outputs in executed]


def test_the_kernel_fails_checks_once_a_trusted_tool_is_replaced(tmp_path):
    """What reading cannot see, the run-time check catches: the course's Execute settings, a real kernel."""
    errors = errors_in_a_grading_kernel(
        [
            "import autograder as ag, jax.numpy as jnp, time\nag.check_close(jnp.ones(2), jnp.ones(2))",
            "fake = lambda: 0.0\nvars(time)['perf_counter'] = fake\nag.check_close(jnp.ones(2), jnp.ones(2))",
            "with open('big.bin', 'wb') as f:\n    f.write(bytes(300 * 2**20))",
        ],
        tmp_path,
    )
    assert errors[0] == []
    assert errors[1] and "time.perf_counter" in errors[1][0].evalue and errors[1][0].ename == "CheckFailed"
    assert errors[2] and "File too large" in errors[2][0].evalue
    assert (tmp_path / "big.bin").stat().st_size <= 256 * 2**20


def test_files_handed_in_beside_the_notebook_stand_in_for_no_module_and_its_own_modules_import(tmp_path):
    """The kernel starts with the submission's folder off sys.path; the guard appends it last."""
    (tmp_path / "autograder.py").write_text("def check_close(*args, **kwargs):\n    pass\n")
    (tmp_path / "numpy.py").write_text("raise SystemExit('the numpy handed in')\n")
    (tmp_path / "helper.py").write_text("def twice(x):\n    return 2 * x\n")
    errors = errors_in_a_grading_kernel(
        [
            "import autograder as ag, jax.numpy as jnp\nag.check_close(jnp.ones(2), jnp.zeros(2))",
            "import numpy, os\nassert not numpy.__file__.startswith(os.getcwd()), numpy.__file__",
            "from helper import twice\nassert twice(21) == 42",
        ],
        tmp_path,
    )
    assert errors[0] and errors[0][0].ename == "CheckFailed"  # the real check, not the one handed in
    assert errors[1:] == [[], []]


def test_warnings_and_log_lines_of_honest_code_go_to_stdout_where_they_cost_no_points(tmp_path, monkeypatch):
    """nbgrader gives a test cell 0 when anything in it writes to stderr: a library's warning or log line must not."""
    # ipykernel forwards what reaches its file descriptors only outside pytest, as when grading.
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    outputs = outputs_in_a_grading_kernel(
        [
            "import jax.numpy as jnp\njnp.ones(2).astype(jnp.float64)",  # JAX: float64 is off here
            "import logging\nlogging.getLogger('a_library').error('a line it logs')",
            "import absl.logging\nabsl.logging.warning('what Orbax logs through absl')",
            # The kernel forwards what reaches a file descriptor from a thread of its own: a moment for it.
            "import os, time\nos.write(2, b'what C++ code writes to stderr\\n')\ntime.sleep(1)",
            "import sys\nprint('printed to stderr', file=sys.stderr)",
        ],
        tmp_path,
    )
    streams = [[(o.name, o.text) for o in cell if o.output_type == "stream"] for cell in outputs]
    assert all(name == "stdout" for cell in streams for name, _ in cell), streams
    note = "".join(text for _, text in streams[0])
    assert note.startswith("Note: UserWarning:") and "float64" in note and "costs no points" in note, note
    written = ["a line it logs", "what Orbax logs through absl", "what C++ code writes to stderr", "printed to stderr"]
    shown = [any(w in text for _, text in cell) for w, cell in zip(written, streams[1:], strict=True)]
    assert shown == [True] * 4, streams
