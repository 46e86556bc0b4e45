"""`jax-course`: its commands, and a clear message outside the course."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autograder.grading._cli import _parser, assignments, course_root, main, nbgrader_course_root

from support import ASSIGNMENTS, ROOT

pytestmark = pytest.mark.unit


def test_assignments_come_from_solutions():
    assert assignments(ROOT) == ASSIGNMENTS


def test_outside_the_course_the_command_says_where_to_run_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit, match="run this inside the course checkout"):
        course_root()


def test_grade_takes_the_limits_an_instructor_sets():
    args = _parser().parse_args(["grade", "04_jit", "--timeout", "600", "--memory", "2048", "--workers", "2"])
    assert (args.assignment, args.timeout, args.memory, args.workers) == ("04_jit", 600.0, 2048.0, 2)


def test_badges_check_passes_on_the_committed_course(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["badges", "--check"]) == 0


def test_grade_needs_only_an_nbgrader_course(tmp_path, monkeypatch):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    (tmp_path / "source" / "ps1").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "source" / "ps1")
    assert nbgrader_course_root() == tmp_path
    monkeypatch.chdir(tmp_path.parent)
    with pytest.raises(SystemExit, match="^jax-course grade: run this in an nbgrader course"):
        nbgrader_course_root()
    with pytest.raises(SystemExit, match="^jax-course report: run this in an nbgrader course"):
        main(["report", "ps1"])


def test_options_grade_does_not_know_go_to_nbgrader_and_other_commands_refuse_them(monkeypatch, capsys):
    passed = {}
    monkeypatch.setattr("autograder.grading._cli._grade", lambda args, options: passed.setdefault("options", options))
    main(["grade", "ps1", "-f", "--no-execute", "--Execute.timeout=5", "--notebook=p1"])
    assert passed["options"] == ["--no-execute", "--Execute.timeout=5", "--notebook=p1"]
    with pytest.raises(SystemExit):
        main(["badges", "--check", "--no-execute"])
    assert "unrecognized arguments: --no-execute" in capsys.readouterr().err


def test_nbgraders_server_extensions_are_imported_only_when_a_server_loads_them():
    """What `jax-course` imports before grading leaves out jupyter_server; a server still gets the real extensions."""
    probe = (
        "import sys, autograder.grading\n"
        "from nbgrader.converters import Autograde\n"
        "from nbgrader.api import Gradebook\n"
        "import nbgrader.apps.api\n"
        "print('jupyter_server' in sys.modules)\n"
        "import nbgrader\n"
        "loaded = []\n"
        "class App:\n"
        "    def __getattr__(self, name):\n"
        "        loaded.append(name)\n"
        "        raise RuntimeError('stop')\n"
        "try:\n"
        "    nbgrader._load_jupyter_server_extension(App())\n"
        "except RuntimeError:\n"
        "    pass\n"
        "module = sys.modules['nbgrader.server_extensions.assignment_list']\n"
        "print('jupyter_server' in sys.modules, bool(loaded), bool(getattr(module, '__file__', None)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True", "True", "True"], done.stdout + done.stderr


_WAITS_UNTIL_USED = r"""
import sys, tempfile, zipfile
from pathlib import Path
from autograder import grading
try:
    grading.main(["grade", "--help"])
except SystemExit:
    pass
import nbconvert, nbformat, nbgrader.auth.jupyterhub, nbgrader.utils
loaded = ("setuptools", "bs4", "urllib3", "tornado.web", "isoduration", "webcolors")
print(sorted(name for name in loaded if getattr(sys.modules.get(name), "__file__", None)))
folder = Path(tempfile.mkdtemp())
with zipfile.ZipFile(folder / "a.zip", "w") as archive:
    archive.writestr("answer.txt", "42")
(folder / "out").mkdir()
nbgrader.utils.unzip(str(folder / "a.zip"), str(folder / "out"))
page, _ = nbconvert.HTMLExporter().from_notebook_node(
    nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("![plot](data:image/png;base64,AAAA)")])
)
print((folder / "out" / "answer.txt").read_text(), "<img" in page, nbgrader.auth.jupyterhub.requests.get.__module__)
"""


def test_the_command_imports_what_it_does_not_use_only_when_used(tmp_path):
    """Start-up (bench/grade_startup.py): nbgrader's unpacking, Beautiful Soup, requests and nbconvert's server
    wait until used, the string formats jsonschema checks with libraries are never loaded, and all still work."""
    shown = subprocess.run(
        [sys.executable, "-c", _WAITS_UNTIL_USED], capture_output=True, text=True, cwd=tmp_path, check=True
    ).stdout.splitlines()
    assert shown[-2:] == ["[]", "42 True requests.api"]  # after the help


def test_a_learners_kernel_that_checks_its_work_may_still_import_any_library():
    """What the command marks absent (jsonschema's format libraries), a kernel importing the self-check does not."""
    code = "import ipykernel, sys\nimport autograder.grading, nbformat\nprint(sys.modules['webcolors'].__file__)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "webcolors" in shown  # imported by jsonschema, as anywhere else
