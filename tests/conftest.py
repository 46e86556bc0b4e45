"""Test session set-up: a clean environment, one tier per test, the longest tests first.

Tiers (markers): `unit` (in-process, seconds: `make test-fast`), `notebook` (lectures run
top to bottom), `grading` (the real nbgrader and `jax-course`), `environment` (browser,
JupyterHub, Binder, Colab, JupyterLab), `site` (the built course site: `make test` builds it after the
others, from the lecture runs they stored). `make test` runs them all. Shared helpers are in support.py
(and browser.py for the browser tests).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time

import pytest

from support import ROOT, VENV_BIN

TIERS = ("unit", "notebook", "grading", "environment", "site")


def pytest_configure(config):
    config._started = time.time()
    # Kernels run from this environment, whatever a user has installed: a
    # "python3" kernelspec in the user's data dir would otherwise win.
    config._jupyter_data = tempfile.mkdtemp(prefix="jupyter-data-")
    os.environ["JUPYTER_DATA_DIR"] = config._jupyter_data
    # nbgrader's gradebook runs `alembic` by name.
    os.environ["PATH"] = f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    # Grade as a course would by default, whatever the developer's shell says.
    os.environ["JAXCOURSE_TIMING"] = "enforce"
    for name in ("JAXCOURSE_GRADER_SEED", "JAXCOURSE_RECORD_REFERENCES", "JAXCOURSE_REFERENCES"):
        os.environ.pop(name, None)
    # Multi-device checks are unit-tested on 8 simulated CPU devices (only this process; the
    # notebooks' kernels choose their own). It must happen before JAX's first operation.
    import jax

    jax.config.update("jax_num_cpu_devices", 8)
    # Lecture runs are stored for the site by both workers: the controller creates the store first.
    if not hasattr(config, "workerinput"):
        import lecture_runs

        lecture_runs.prepare()


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "_jupyter_data", ""), ignore_errors=True)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Show the hostile-submission table and the bypass table when this session wrote them."""
    started = getattr(config, "_started", None)
    if started is None:
        return
    report = ROOT / "test-artifacts" / "hostile-report.txt"
    if report.is_file() and report.stat().st_mtime >= started:
        terminalreporter.write_sep("=", "hostile submissions")
        terminalreporter.write(report.read_text())
    # The bypass table (tests/bypass.py), for the sets course/test_autograde.py graded in this session.
    graded = [p for p in sorted((ROOT / "test-artifacts" / "bypass").glob("*.md")) if p.stat().st_mtime >= started]
    if graded:
        terminalreporter.write_sep("=", "bypasses: the shortcut a student would try, per problem")
        header = "| set | problem | skill graded | bypass tried | caught |\n|---|---|---|---|---|\n"
        terminalreporter.write(header + "".join(p.read_text() for p in graded))


# The longest tests start first (longest-processing-time-first), so that neither xdist worker
# is left running one of them alone at the end; the rest keep their order.
_LONGEST_FIRST = [
    "test_hostile.py",
    "test_autograde.py",
    "test_fresh_process.py",
    "test_run.py",
    "test_binder.py",
    "test_colab_install.py",
    "test_hub.py",
    "test_browser.py",
    "test_selfcheck.py",
    "test_runner.py",
]


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        tiers = [m.name for m in item.iter_markers() if m.name in TIERS]
        if len(tiers) != 1:
            raise pytest.UsageError(f"{item.nodeid} has tiers {tiers}: mark it with exactly one of {TIERS}")

    def rank(item):
        name = item.path.name
        return _LONGEST_FIRST.index(name) if name in _LONGEST_FIRST else len(_LONGEST_FIRST)

    items.sort(key=rank)
