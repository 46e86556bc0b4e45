"""`jax-course check` and `check_my_work`: a self-learner's report, hidden tests included."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from autograder.grading.selfcheck._selfcheck import check_notebook

from support import ROOT, VENV_BIN, answered, solution_sources
from variants import VARIANTS

ASSIGNMENT = "03_tracing"  # the quickest to run


def answered_copy(folder, answers):
    return answered(ASSIGNMENT, answers, folder / f"{ASSIGNMENT}.ipynb")


def work_folder_in_a_clone(tmp_path):
    """A work folder inside a copy of the course, as in a self-learner's clone."""
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    shutil.copytree(ROOT / "solutions" / ASSIGNMENT, tmp_path / "solutions" / ASSIGNMENT)
    work = tmp_path / "exercises" / ASSIGNMENT
    work.mkdir(parents=True)
    return work


@pytest.fixture
def in_course(tmp_path):
    return work_folder_in_a_clone(tmp_path)


@pytest.mark.grading
def test_reference_answers_pass_everything_with_hidden_tests_from_the_public_seed(in_course, monkeypatch):
    """Whatever seed the shell grades with, a self-check draws hidden inputs from the public one, compares
    them with the package's references, says so, and makes no course seed in the clone."""
    monkeypatch.setenv("JAXCOURSE_GRADER_SEED", "777")
    result = check_notebook(answered_copy(in_course, solution_sources(ASSIGNMENT)))
    assert result.hidden_tests
    assert result.results and all(r.passed for r in result.results), result.report()
    got, total = result.score
    assert got == total > 0
    assert "Score: " in result.report() and "FAILED" not in result.report()
    assert "(hidden inputs from the public seed; grading draws its own)" in result.report()
    assert not list(in_course.parents[1].rglob("grader_seed.txt"))


@pytest.mark.grading
def test_a_hardcoded_answer_fails_on_the_hidden_input_and_says_what_to_reread(in_course):
    name = next(n for n in VARIANTS[ASSIGNMENT] if n.endswith("_hardcoded"))
    variant = VARIANTS[ASSIGNMENT][name]
    result = check_notebook(answered_copy(in_course, {**solution_sources(ASSIGNMENT), **variant["answers"]}))
    failed = {r.test for r in result.results if not r.passed}
    assert failed == variant["loses"]
    report = result.report()
    assert "hidden input" in report and "Reread: course/03_tracing.ipynb#" in report
    assert "Traceback" not in report and "autograder/_" not in report  # no grader internals


@pytest.mark.grading
def test_untouched_exercise_fails_every_problem_from_the_command_line(in_course):
    path = answered_copy(in_course, {})
    done = subprocess.run([VENV_BIN / "jax-course", "check", str(path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1
    assert "passed " not in done.stdout and done.stdout.count("FAILED") >= 4
    assert "not answered yet" in done.stdout


@pytest.mark.grading
def test_outside_the_repository_the_packages_hidden_tests_run_and_every_line_of_a_failure_is_shown(tmp_path):
    """As in Colab: a copy named notebook.ipynb, far from solutions/, checked from the command line."""
    hardcoded, leak = VARIANTS[ASSIGNMENT]["affine_hardcoded"], VARIANTS[ASSIGNMENT]["leak_still_stored"]
    branches_on_a_tracer = (
        "def scale_by_calls_pure(calls, x):\n"
        "    if calls > 100:\n"
        "        calls = 0\n"
        "    return calls + 1, x * (calls + 1)\n"
    )
    answers = {**solution_sources(ASSIGNMENT), **hardcoded["answers"], **leak["answers"], "pure": branches_on_a_tracer}
    path = answered(ASSIGNMENT, answers, tmp_path / "notebook.ipynb")
    done = subprocess.run([VENV_BIN / "jax-course", "check", str(path)], capture_output=True, text=True, timeout=600)
    report = done.stdout
    assert done.returncode == 1 and "visible and hidden tests" in report, report
    assert "on a hidden input" in report  # affine_hardcoded passes every visible check of Problem 1
    failed = {line.rsplit("(", 1)[1].rstrip(")") for line in report.splitlines() if line.startswith("  FAILED")}
    assert failed == hardcoded["loses"] | leak["loses"] | {"test_pure", "test_pure_check"}, report
    assert "Try: " in report and "Reread: course/03_tracing.ipynb#" in report
    # JAX's own explanation of the error, past its first line, as the notebook shows it.
    assert "TracerBoolConversionError" in report and "The error occurred while tracing" in report, report
    assert "TCP" not in done.stderr and "Traceback" not in report


@pytest.mark.grading
def test_a_notebook_the_course_does_not_know_runs_its_visible_tests(tmp_path):
    path = answered_copy(tmp_path, solution_sources(ASSIGNMENT))
    nb = path.read_text().replace('"grade_id": "test_', '"grade_id": "my_test_')
    path.write_text(nb)
    result = check_notebook(path)
    assert not result.hidden_tests and "visible tests only" in result.report()
    assert len(result.results) >= 4 and all(r.passed for r in result.results), result.report()


@pytest.mark.unit
def test_a_damaged_notebook_gets_a_clear_message(tmp_path):
    broken = tmp_path / f"{ASSIGNMENT}.ipynb"
    broken.write_text('{"cells": [')
    done = subprocess.run([VENV_BIN / "jax-course", "check", str(broken)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "not a readable Jupyter notebook" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.grading
def test_the_gradebook_version_is_the_one_nbgrader_finds_with_its_alembic_command():
    from autograder.grading.selfcheck._selfcheck import _alembic_head

    # In a process of its own: the self-check puts `_alembic_head` in nbgrader's place in this one.
    nbgraders = subprocess.run(
        [VENV_BIN / "python", "-c", "from nbgrader.api import get_alembic_version; print(get_alembic_version())"],
        env={**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert _alembic_head() == nbgraders.stdout.strip()


@pytest.mark.grading
def test_an_answer_stopped_by_the_cell_limit_is_named_and_the_other_problems_keep_their_points(in_course):
    config = in_course.parents[1] / "nbgrader_config.py"
    config.write_text(config.read_text().replace("c.Execute.timeout = 120", "c.Execute.timeout = 5"))
    hanging = {**solution_sources(ASSIGNMENT), "affine": "import time\n\ntime.sleep(600)\n"}
    result = check_notebook(answered_copy(in_course, hanging))
    affine = [r for r in result.results if r.test.startswith("test_affine")]
    assert affine and all("cell affine was stopped" in r.message and "limit of 5 s" in r.message for r in affine)
    assert all(r.passed for r in result.results if r not in affine), result.report()


@pytest.mark.unit
def test_a_saved_check_my_work_call_does_nothing_while_its_notebook_is_checked(tmp_path):
    """In a grading or self-check kernel (the guard ran first) the call must not start a check inside the check."""
    path = answered_copy(tmp_path, {})
    code = (
        "import autograder.checks\nautograder.checks.guard()\nimport autograder as ag\n"
        f"print('returned', ag.check_my_work({str(path)!r}))"
    )
    done = subprocess.run([VENV_BIN / "python", "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "does nothing while this notebook is being graded or checked" in done.stdout
    assert "returned None" in done.stdout and "Self-check of" not in done.stdout


@pytest.mark.grading
@pytest.mark.parametrize("where", ["anywhere", "in a clone"])
def test_check_my_work_in_a_notebook_shows_its_report_once_as_a_table(tmp_path, monkeypatch, where):
    """Outside the course (the package's tests) and in a clone (nbgrader's own autograde, in the learner's kernel):
    the report and one line before it, nothing from nbgrader in the notebook or in the kernel's log."""
    import nbclient
    import nbformat

    # ipykernel forwards what reaches its file descriptors only outside pytest, as in JupyterLab.
    monkeypatch.delenv("PYTEST_CURRENT_TEST")

    path = answered_copy(work_folder_in_a_clone(tmp_path) if where == "in a clone" else tmp_path, {})
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(f"import autograder as ag\nag.check_my_work({str(path)!r})")]
    )
    with open(tmp_path / "kernel.log", "w") as log:  # where JupyterLab's terminal would show the kernel's log
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3").execute(stderr=log)
    assert "nbgrader" not in (tmp_path / "kernel.log").read_text().lower()
    outputs = nb.cells[0].outputs
    assert [o.output_type for o in outputs] == ["stream", "display_data"], outputs
    assert outputs[0].text.startswith("Checking the saved version") and len(outputs[0].text.splitlines()) == 1
    table = outputs[1].data["text/html"]
    assert table.count("<strong>FAILED</strong>") >= 4 and "not answered yet" in table
    assert outputs[1].data["text/plain"].startswith("<self-check of")  # one line, never a dataclass dump


@pytest.mark.grading
def test_a_second_check_compiles_from_the_users_cache_and_gives_the_same_report(tmp_path, monkeypatch):
    """Repeated checks load what the first compiled, from a cache of the user's own; the verdicts do not change."""
    monkeypatch.delenv("JAX_COMPILATION_CACHE_DIR", raising=False)  # the grading tier's own cache
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    answers = {**solution_sources(ASSIGNMENT), **VARIANTS[ASSIGNMENT]["affine_hardcoded"]["answers"]}
    path = answered(ASSIGNMENT, answers, tmp_path / "notebook.ipynb")
    first = [(r.test, r.passed) for r in check_notebook(path).results]
    cache = tmp_path / "cache" / "jax-course" / "compilation"
    entries = set(cache.iterdir())
    assert entries, "the first check left nothing in the user's compilation cache"
    assert [(r.test, r.passed) for r in check_notebook(path).results] == first
    assert set(cache.iterdir()) == entries, "the second check compiled programs the first had cached"
    assert ("test_affine", False) in first


LEARNER_RUNS = """
import sys, nbformat
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()  # as in the learner's Jupyter kernel
for cell in nbformat.read(sys.argv[1], as_version=4).cells:
    if cell.cell_type == "code":
        shell.run_cell(cell.source)
"""


@pytest.mark.grading
def test_a_first_check_after_the_learner_ran_the_notebook_compiles_nothing_their_kernel_compiled(tmp_path, monkeypatch):
    """The learner's kernel keeps its programs for the self-check (`checks/_programs.py`): the check's kernel and
    verifier compile only what the learner's run did not (hidden inputs), against everything for a notebook the
    learner never ran; the report is the same."""
    path = answered(ASSIGNMENT, solution_sources(ASSIGNMENT), tmp_path / "notebook.ipynb")
    # The grading tier's own cache, and its seed, which no learner's kernel is given.
    for name in ("JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "JAXCOURSE_GRADER_SEED"):
        monkeypatch.delenv(name, raising=False)
    caches = {case: tmp_path / case for case in ("ran", "never-ran")}
    subprocess.run(
        [VENV_BIN / "python", "-c", LEARNER_RUNS, path],
        env={**os.environ, "XDG_CACHE_HOME": str(caches["ran"])},
        cwd=tmp_path,
        check=True,
        capture_output=True,
        timeout=600,
    )
    folder = {case: cache / "jax-course" / "compilation" for case, cache in caches.items()}
    learners = set(folder["ran"].glob("*"))
    assert learners, "the learner's kernel kept nothing for the self-check"
    reports = {}
    for case, cache in caches.items():
        monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
        reports[case] = [(r.test, r.passed) for r in check_notebook(path).results]
    assert reports["ran"] == reports["never-ran"] and all(passed for _, passed in reports["ran"])
    compiled_by_the_check = set(folder["ran"].glob("*")) - learners
    every = {entry.name for entry in folder["never-ran"].glob("*")}
    assert {entry.name for entry in learners} <= every, "the learner's kernel compiled what a check never does"
    assert len(compiled_by_the_check) == len(every) - len(learners), "the check compiled the learner's programs again"


@pytest.mark.grading
def test_without_landlock_the_check_works_and_says_once_what_it_could_not_wall(in_course):
    """A learner's computer without Landlock (stood for with `$JAXCOURSE_LANDLOCK`): two notebooks checked in one
    run both get full marks, and the report says once, in words for a learner, what the walls could not do."""
    first = answered_copy(in_course, solution_sources(ASSIGNMENT))
    (in_course.parent / "copy").mkdir()
    second = shutil.copy(first, in_course.parent / "copy" / first.name)
    env = {**os.environ, "JAXCOURSE_LANDLOCK": "0"}
    command = [VENV_BIN / "jax-course", "check", str(first), str(second)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.count("FAILED") == 0 and done.stdout.count("Score: ") == 2, done.stdout
    note = "Note: this computer has no Landlock (Linux 5.13 or newer, enabled), so nothing keeps the notebook's code"
    assert done.stdout.count(note) == 1 and "its score does not depend on it" in done.stdout, done.stdout
    assert "unwalled" not in done.stdout + done.stderr  # the grader's line for an instructor is not the learner's
