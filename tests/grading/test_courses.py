"""`jax-course grade` is a drop-in for `nbgrader autograde` on courses shaped like real ones (tests/courses.py).

Each course is built and released once with nbgrader, copied, and graded by both commands with the same
arguments; the two copies must then hold the same gradebook (every submission, grade, comment and late
penalty), the same files in the autograded folder (notebooks compared cell by cell: source, and whether a
test failed) and the commands must exit alike. Nothing is expected of either beyond agreeing with the other:
tests/grading/test_conformance.py holds both to what nbgrader's own tests assert.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from courses import COURSES, Course, build, configure

from support import VENV_BIN

pytestmark = pytest.mark.grading

COMMANDS = {"stock": [str(VENV_BIN / "nbgrader"), "autograde"], "ours": [str(VENV_BIN / "jax-course"), "grade"]}


def _grade(course: Course, root: Path, grader: str, home: Path | None = None) -> tuple[int, str]:
    """Grade as an instructor would; with `home`, from that folder, whose .jupyter/nbgrader_config.py names the
    course's root (as a hub's instructor sets it up)."""
    command = [*COMMANDS[grader], course.assignment]
    where, env = root, None
    if home is not None:
        where, env = home, {**os.environ, "HOME": str(home)}
        env.pop("JUPYTER_CONFIG_DIR", None)
    elif course.elsewhere:  # as on a hub: from the instructor's home, the course named on the command line
        command.append(f"--course-dir={root}")
        where = root.parent
    done = subprocess.run(command, cwd=where, env=env, capture_output=True, text=True, timeout=900)
    return done.returncode, done.stdout + done.stderr


def _gradebook(course: Course, root: Path) -> dict:
    """Everything nbgrader's gradebook says of each submission of the assignment."""
    from nbgrader.api import Gradebook, MissingEntry

    found: dict = {}
    with Gradebook(f"sqlite:///{root / course.db}", course.course_id) as gb:
        for student in sorted(s.id for s in gb.students):
            try:
                submission = gb.find_submission(course.assignment, student)
            except MissingEntry:
                found[student] = "no submission"
                continue
            found[student] = {
                "late": (submission.total_seconds_late, submission.late_submission_penalty),
                "score": (submission.score, submission.max_score, submission.needs_manual_grade),
                **{
                    f"{nb.name}/{grade.name}": (grade.auto_score, grade.manual_score, grade.needs_manual_grade)
                    for nb in submission.notebooks
                    for grade in nb.grades
                },
                **{f"{nb.name}/{c.name} comment": c.comment for nb in submission.notebooks for c in nb.comments},
            }
    return found


def _cells(path: Path) -> list[tuple[str, bool]]:
    cells = nbformat.read(path, as_version=4).cells
    return [(c.source, any(o.get("output_type") == "error" for o in c.get("outputs", []))) for c in cells]


def _files(course: Course, root: Path) -> dict[str, object]:
    """The autograded folder's files (empty folders aside): a notebook's cells, another file's text; Python's
    bytecode cache by name only (its header holds the time its source was copied)."""
    folder = root / course.folders["autograded"]
    files = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
    return {str(p.relative_to(folder)): _content(p) for p in files}


def _content(path: Path) -> object:
    if "__pycache__" in path.parts:
        return None
    return _cells(path) if path.suffix == ".ipynb" else path.read_bytes()


def _differences(name: str, stock: object, ours: object) -> list[str]:
    if stock == ours:
        return []
    if isinstance(stock, dict) and isinstance(ours, dict):
        keys = sorted(set(stock) | set(ours))
        return [
            f"{name}[{k}]: stock {stock.get(k)!r}, ours {ours.get(k)!r}" for k in keys if stock.get(k) != ours.get(k)
        ]
    return [f"{name}: stock {stock!r}, ours {ours!r}"]


def _graded_alike(course: Course, roots: dict[str, Path], homes: dict[str, Path] | None = None) -> dict:
    """Each grader's (exit status, what it said), both grading their copy of `course` at once (from `homes`, if
    given), after asserting the same exit status, gradebook and autograded files."""
    with ThreadPoolExecutor(2) as pool:
        graded = {g: pool.submit(_grade, course, roots[g], g, (homes or {}).get(g)) for g in COMMANDS}
        exits = {grader: future.result() for grader, future in graded.items()}
    if exits["stock"][0] and exits["stock"][0] != exits["ours"][0]:
        # Stock's kernels listen on TCP ports that another process of a busy machine can take before the kernel
        # binds them (test_conformance's `_grade`): run again, stock grades only what failed. A failure both
        # runs share is stock's answer.
        warnings.warn(f"stock failed once, and was run again; it said:\n{exits['stock'][1][-3000:]}", stacklevel=1)
        exits["stock"] = _grade(course, roots["stock"], "stock", (homes or {}).get("stock"))
    problems = _differences("exit status", exits["stock"][0], exits["ours"][0])
    problems += _differences("gradebook", *(_gradebook(course, roots[g]) for g in COMMANDS))
    problems += _differences("autograded", *(_files(course, roots[g]) for g in COMMANDS))
    said = "\n".join(f"{g} said: {exits[g][1][-2000:]}" for g in COMMANDS)
    assert not problems, "\n".join(problems) + "\n" + said
    return exits


@pytest.mark.parametrize("course", COURSES, ids=[c.name for c in COURSES])
def test_a_real_world_course_grades_the_same_under_both_commands(course, tmp_path):
    base = tmp_path / "base"
    base.mkdir()
    build(course, base)
    roots = {}
    for grader in COMMANDS:
        roots[grader] = shutil.copytree(base, tmp_path / grader / course.name)
        configure(course, roots[grader])  # its own gradebook, where the config names one by absolute path
    exits = _graded_alike(course, roots)
    # The course's shapes were graded, not skipped: some tests passed, some failed, one submission failed.
    assert exits["stock"][0] == 1 if course.name == "lab" else exits["stock"][0] == 0
    assert any(v for v in _files(course, roots["ours"]).values() if isinstance(v, list))
    # nbgrader's warning of an edited test reaches the instructor under both, and ours keeps it in the report.
    for student, cell in course.edited_tests:
        said = f"Attribute 'checksum' for cell {cell} has changed"
        assert all(said in exits[g][1] for g in COMMANDS), said
        report = (roots["ours"] / "grading" / course.assignment / "report.csv").read_text()
        assert any(line.startswith(f"{student},") and said in line for line in report.splitlines()), report


def test_a_course_whose_root_is_set_in_the_users_jupyter_config_grades_the_same_from_another_folder(tmp_path):
    course = COURSES[1]
    base = tmp_path / "base"
    base.mkdir()
    build(course, base)
    roots, homes = {}, {}
    for grader in COMMANDS:
        roots[grader] = shutil.copytree(base, tmp_path / grader / course.name)
        configure(course, roots[grader])
        homes[grader] = tmp_path / grader / "home"
        (homes[grader] / ".jupyter").mkdir(parents=True)
        (homes[grader] / ".jupyter" / "nbgrader_config.py").write_text(
            f"c = get_config()\nc.CourseDirectory.root = {str(roots[grader])!r}\n"
        )
    exits = _graded_alike(course, roots, homes)
    assert exits["stock"][0] == 0 and any(v for v in _files(course, roots["ours"]).values() if isinstance(v, list))
    # Nothing of a course was written where the command ran (a user's caches aside): the config's was graded.
    assert not [p for g in COMMANDS for p in homes[g].iterdir() if not p.name.startswith(".")], {
        g: exits[g][1][-2000:] for g in COMMANDS
    }
