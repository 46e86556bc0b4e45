"""`jax-course grade` does what `nbgrader autograde` does, on any nbgrader course.

The scenarios of nbgrader's own tests/apps/test_nbgrader_autograde.py (tests/conformance.py) run on a
course built here from nbgrader's fixture files: a plain nbgrader_config.py and source/, released with
`nbgrader generate_assignment`. Two copies of it are graded, one by stock `nbgrader autograde`, one by
`jax-course grade` (same arguments), and each must meet what nbgrader's test asserts: gradebook scores,
the files under autograded/, the exit status. Stock passing proves the expectations right for this
setup; ours passing proves it conforms. Where jax-course goes further (a broken submission does not
stop the batch; report.csv names each failure's cause), the scenario is checked under jax-course only.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import warnings
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from conformance import CONFIG, FILES, PLUGIN, Content, Edit, Expect, Plan, Run
from conformance_options import PLANS, SCENARIOS

from support import VENV_BIN, run

pytestmark = pytest.mark.grading

COMMANDS = {"stock": [str(VENV_BIN / "nbgrader"), "autograde"], "ours": [str(VENV_BIN / "jax-course"), "grade"]}


def _write(course: Path, path: Path, content: Content | None) -> None:
    if content is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, Path):
        shutil.copyfile(content, path)
    else:
        path.write_text(content if isinstance(content, str) else content(course))


def _build(folder: Path) -> Path:
    """The course before any submission: config, sources, gradebook, release."""
    from nbgrader.api import Gradebook

    folder.mkdir()
    (folder / "nbgrader_config.py").write_text(CONFIG)
    (folder / "late_plugin.py").write_text(PLUGIN)
    shutil.copyfile(FILES / "autotests.yml", folder / "autotests.yml")
    for plan in PLANS:
        for name, content in plan.source.items():
            _write(folder, folder / "source" / plan.assignment / name, content)
    with Gradebook(f"sqlite:///{folder / 'gradebook.db'}") as gb:
        for plan in PLANS:
            gb.update_or_create_assignment(plan.assignment, duedate="2015-02-02 14:58:23.948203 America/Los_Angeles")
    run(str(VENV_BIN / "nbgrader"), "generate_assignment", "*", cwd=folder)
    for plan in PLANS:
        if plan.release:
            run(str(VENV_BIN / "nbgrader"), "generate_assignment", plan.assignment, *plan.release, cwd=folder)
    return folder


def _submit(course: Path, grader: str) -> None:
    for plan in PLANS:
        students = {**plan.students, **(plan.ours_only if grader == "ours" else {})}
        for student, files in students.items():
            folder = course / "submitted" / student / plan.assignment
            folder.mkdir(parents=True, exist_ok=True)  # an empty folder is test_missing_files
            for name, content in files.items():
                _write(course, folder / name, content)


def _said(done: subprocess.CompletedProcess) -> str:
    said = (done.stdout[-1500:] + done.stderr[-1500:]).strip()
    if (start := done.stderr.find("Traceback")) >= 0:  # the cause, which the tail of a long log leaves out
        said = done.stderr[start : start + 3000].strip() + "\n[...]\n" + said
    return said


def _grade(course: Path, grader: str, plan: Plan, step: Run) -> list[str]:
    command = [*COMMANDS[grader], plan.assignment, *step.args]
    done = subprocess.run(command, cwd=course, capture_output=True, text=True, timeout=900)
    if done.returncode != step.exit == 0 and grader == "stock":
        # Stock is the yardstick here, not what is tested, and its kernels listen on TCP ports that jupyter_client
        # finds free and the kernel binds a moment later, which another process of a busy suite can take in
        # between. Run again, stock grades again what failed (it removed that submission's folder), and the rest
        # too under --force; a failure both runs share is stock's answer, and fails the scenario.
        warnings.warn(f"stock `{' '.join(command[1:])}` failed once, and was run again:\n{_said(done)}", stacklevel=1)
        done = subprocess.run(command, cwd=course, capture_output=True, text=True, timeout=900)
    if done.returncode == step.exit:
        return []
    return [f"`{' '.join(command[1:])}` exited {done.returncode}, expected {step.exit}; it said:\n{_said(done)}"]


def _file_problems(course: Path, dest: Path, files: dict[str, object]) -> list[str]:
    problems = []
    for name, wanted in files.items():
        path = course / name[2:] if name.startswith("~/") else dest / name
        if callable(wanted):
            found = wanted(path) if path.is_file() else "missing"
        elif isinstance(wanted, bool):
            found = None if path.exists() == wanted else f"expected {'present' if wanted else 'absent'}"
        else:
            got = path.read_text() if path.is_file() else None
            found = None if got == wanted else f"expected contents {wanted!r}, got {got!r}"
        if found:
            problems.append(f"{path.relative_to(course)}: {found}")
    return problems


def _failing(path: Path) -> int:
    """Grade cells with an error output: what `nbgrader validate` counts as failed."""
    cells = nbformat.read(path, as_version=4).cells if path.is_file() else []
    grading = [c for c in cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]
    return sum(any(o.output_type == "error" for o in c.outputs) for c in grading)


def _gradebook_problems(course: Path, assignment: str, dest: Path, expect: Expect) -> list[str]:
    from nbgrader.api import Gradebook, MissingEntry

    problems = []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        try:
            submission = gb.find_submission(assignment, expect.student)
        except MissingEntry:
            wanted = expect.graded or expect.notebooks or expect.late is not None or expect.comments
            return ["no submission in the gradebook"] if wanted else []
        if expect.graded is False:
            return ["in the gradebook, expected no submission"]
        if expect.late is not None and (submission.total_seconds_late > 0) != expect.late:
            problems.append(f"total_seconds_late {submission.total_seconds_late}, expected late={expect.late}")
        for notebook, attributes in expect.notebooks.items():
            found = gb.find_submission_notebook(notebook, assignment, expect.student)
            for name, wanted in attributes.items():
                got = _failing(dest / f"{notebook}.ipynb") if name == "failing" else getattr(found, name)
                if got != wanted:
                    problems.append(f"{notebook}.{name} = {got!r}, expected {wanted!r}")
        for (cell, notebook), wanted in expect.comments.items():
            got = gb.find_comment(cell, notebook, assignment, expect.student).comment
            if got != wanted:
                problems.append(f"comment on {notebook}/{cell} = {got!r}, expected {wanted!r}")
    return problems


def _report_problems(course: Path, assignment: str, expect: Expect) -> list[str]:
    import csv

    path = course / "grading" / assignment / "report.csv"
    rows = list(csv.DictReader(path.open())) if path.is_file() else []
    row = next((r for r in rows if r["student"] == expect.student), None)
    if row is None:
        return [f"no row in {path.relative_to(course)}"]
    problems = []
    for column, wanted in expect.report.items():
        if column == "columns":
            missing = set(wanted) - set(row)
            problems += [f"report.csv lacks columns {sorted(missing)} (has {sorted(row)})"] if missing else []
        elif not re.search(wanted, row.get(column) or "", re.IGNORECASE):
            problems.append(f"report.csv {column} = {row.get(column)!r}, expected to match {wanted!r}")
    return problems


def _check(course: Path, plan: Plan, expect: Expect) -> list[str]:
    dest = course / "autograded" / expect.student / plan.assignment
    problems = _file_problems(course, dest, expect.files)
    problems += _gradebook_problems(course, plan.assignment, dest, expect)
    if expect.report:
        problems += _report_problems(course, plan.assignment, expect)
    return [f"{expect.student}: {p}" for p in problems]


def _play(course: Path, grader: str) -> dict[str, list[str]]:
    """Every plan's steps under one grader: {scenario: problems}, every scenario checked listed."""
    problems: dict[str, list[str]] = defaultdict(list)
    for plan in PLANS:
        for step in plan.steps:
            if isinstance(step, Edit):
                for name, content in step.files.items():
                    _write(course, course / name, content)
            elif grader not in step.graders:
                continue
            elif isinstance(step, Run):
                for scenario, problem in ((s, p) for p in _grade(course, grader, plan, step) for s in step.scenarios):
                    problems[scenario].append(f"{plan.assignment}: {problem}")
            else:
                problems[step.scenario] += [f"{plan.assignment}/{p}" for p in _check(course, plan, step)]
    return problems


def test_jax_course_grade_does_what_nbgrader_autograde_does(tmp_path, subtests):
    # One test, each scenario a subtest: the course is built and graded once (a module fixture would be
    # built again by each pytest-xdist worker). Both graders run at once, on their own copies.
    base = _build(tmp_path / "course")
    copies = {}
    for grader in ("stock", "ours"):
        copies[grader] = shutil.copytree(base, tmp_path / grader)
        _submit(copies[grader], grader)
    with ThreadPoolExecutor(2) as pool:
        played = {grader: pool.submit(_play, course, grader) for grader, course in copies.items()}
        outcomes = {grader: future.result() for grader, future in played.items()}
    failed = []
    for scenario, graders in sorted(SCENARIOS.items()):
        for grader in graders:
            with subtests.test(scenario=scenario, grader=grader):
                problems = outcomes[grader].get(scenario, [])
                if problems:
                    failed.append(f"{scenario} ({grader})")
                command = " ".join(COMMANDS[grader][1:])
                assert not problems, f"{scenario}, under {command}:\n" + "\n".join(problems)
    assert not failed, f"scenarios that failed: {', '.join(failed)}"
