"""Two nbgrader courses in the shapes real ones take, for tests/grading/test_courses.py.

Neither is this course: no `autograder`, no JAX. "lab" keeps a helper module and a data file beside its
notebooks, has two notebooks in an assignment, a manually graded answer and prose that talks about graders,
and renames every folder in its config. "hub" keeps its gradebook under another name, imports a package
folder of its own, sets the cell timeout and a late penalty in its config, and is graded from outside its
folder with --course-dir, as on a hub. Each submission is what a student would hand in: the released
notebook with answers written into its solution cells (or not), the tests edited, a file cut short.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from support import VENV_BIN, run

DUE = "2026-03-02 17:00:00 UTC"


def _meta(grade_id: str, *, grade: bool, solution: bool, points: float = 0) -> dict:
    meta = dict(grade=grade, solution=solution, locked=not solution, grade_id=grade_id, schema_version=3)
    return {"nbgrader": {**meta, "points": points} if grade else meta}


def prose(text: str, name: str) -> nbformat.NotebookNode:
    return new_markdown_cell(text, metadata=_meta(name, grade=False, solution=False))


def answer(source: str, name: str) -> nbformat.NotebookNode:
    return new_code_cell(source, metadata=_meta(name, grade=False, solution=True))


def written(text: str, name: str, points: float) -> nbformat.NotebookNode:
    """A manually graded answer in words."""
    return new_markdown_cell(text, metadata=_meta(name, grade=True, solution=True, points=points))


def tests(source: str, name: str, points: float) -> nbformat.NotebookNode:
    return new_code_cell(source, metadata=_meta(name, grade=True, solution=False, points=points))


def source(*cells: nbformat.NotebookNode) -> str:
    nb = new_notebook(cells=list(cells))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nbformat.writes(nb)


def solution(code: str) -> str:
    return f"### BEGIN SOLUTION\n{code}\n### END SOLUTION"


# A student's notebook, made from the released one (JSON text): what they typed, or did to it.
Handed = Callable[[str], str]


def answering(**answers: str) -> Handed:
    """The released notebook with `answers` written into the cells of those grade_ids."""

    def hand(released: str) -> str:
        nb = nbformat.reads(released, as_version=4)
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in answers:
                cell.source = answers[grade_id]
        return nbformat.writes(nb)

    return hand


def editing_tests(answers: Handed, grade_id: str) -> Handed:
    """A student who made a test pass by editing it: nbgrader puts it back and warns of its checksum."""

    def hand(released: str) -> str:
        nb = nbformat.reads(answers(released), as_version=4)
        for cell in nb.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
                cell.source = "assert True"
        return nbformat.writes(nb)

    return hand


def cut_short(released: str) -> str:
    return released[: len(released) // 2]


@dataclass(frozen=True)
class Course:
    name: str
    config: str
    folders: dict[str, str]  # nbgrader step -> folder, as the config names them
    assignment: str
    files: dict[str, str]  # the assignment's source folder: notebooks and what lies beside them
    students: dict[str, dict[str, Handed | str]]  # student -> file -> a notebook made from the released one, or text
    elsewhere: bool = False  # graded from another folder with --course-dir
    db: str = "gradebook.db"
    course_id: str = "default"
    edited_tests: tuple[tuple[str, str], ...] = ()  # (student, grade_id) of a test cell a student edited


_GEOMETRY = "def load_points(path):\n    with open(path) as f:\n        return [float(x) for x in f.read().split()]\n"
_AREA = answering(area="def area(w, h):\n    return w * h", mean="def mean_of(rows):\n    return sum(rows) / len(rows)")
_EXPLAIN = "The helper reads the points as rows of floats."
LAB = Course(
    name="lab",
    config="""c = get_config()
c.CourseDirectory.source_directory = "masters"
c.CourseDirectory.release_directory = "handouts"
c.CourseDirectory.submitted_directory = "inbox"
c.CourseDirectory.autograded_directory = "marked"
c.CourseDirectory.feedback_directory = "returned"
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "scratch"]
""",
    folders={"source": "masters", "release": "handouts", "submitted": "inbox", "autograded": "marked"},
    assignment="week1",
    files={
        "part1.ipynb": source(
            prose("# Week 1\nThe graders run every cell from the top: restart and run all before you submit.", "intro"),
            new_code_cell("from geometry import load_points  # helper module beside this notebook"),
            answer(solution("def area(w, h):\n    return w * h"), "area"),
            tests("assert area(2, 3) == 6\nassert area(0, 5) == 0", "test_area", 2),
            prose("Explain in a sentence what `load_points` returns. A grader reads it.", "ask"),
            written(solution(_EXPLAIN), "explain", 1),
        ),
        "part2.ipynb": source(
            prose("# Part 2\nUse the data file; graders use the same one.", "intro2"),
            new_code_cell("from geometry import load_points\nrows = load_points('data/points.csv')"),
            answer(solution("def mean_of(rows):\n    return sum(rows) / len(rows)"), "mean"),
            tests("assert abs(mean_of(rows) - 2.0) < 1e-9", "test_mean", 3),
        ),
        "geometry.py": _GEOMETRY,
        "data/points.csv": "1.0\n2.0\n3.0\n",
    },
    students={
        "alice": {"part1.ipynb": _AREA, "part2.ipynb": _AREA},
        "bruno": {"part1.ipynb": answering(), "part2.ipynb": answering()},  # handed in as released
        "chen": {
            "part1.ipynb": editing_tests(answering(area="def area(w, h):\n    return w + h"), "test_area"),
            "part2.ipynb": answering(mean="def mean_of(rows):\n    return max(rows)"),
        },
        "dara": {"part1.ipynb": _AREA, "timestamp.txt": "2026-03-03 09:30:00 UTC"},  # late, part 2 missing
        "eve": {"part1.ipynb": _AREA, "part2.ipynb": cut_short},  # cannot be graded: exit status 1
        "finn": {"part1.ipynb": _AREA, "part2.ipynb": _AREA, "geometry.py": "def load_points(path):\n    return [0]\n"},
    },
    edited_tests=(("chen", "test_area"),),
)

_SLOPE = answering(slope="def slope(xs, ys):\n    return (ys[-1] - ys[0]) / (xs[-1] - xs[0])")
HUB = Course(
    name="hub",
    config="""c = get_config()
c.CourseDirectory.db_url = "sqlite:///{root}/grades.sqlite"
c.CourseDirectory.course_id = "phys101"
c.Execute.timeout = 20
c.LateSubmissionPlugin.penalty_method = "zero"
c.ClearSolutions.code_stub = {"python": "# your code here\\nraise NotImplementedError()"}
""",
    folders={"source": "source", "release": "release", "submitted": "submitted", "autograded": "autograded"},
    assignment="lab-2",
    files={
        "fit.ipynb": source(
            prose("Graders: the hidden inputs are in `tools/`.", "head"),
            new_code_cell("from tools.lines import points\nxs, ys = points()"),
            answer(solution("def slope(xs, ys):\n    return (ys[-1] - ys[0]) / (xs[-1] - xs[0])"), "slope"),
            tests("assert slope(xs, ys) == 2.0", "test_slope", 4),
            tests("assert slope([0, 1], [0, 5]) == 5.0", "test_slope_again", 1),
        ),
        "tools/__init__.py": "",
        "tools/lines.py": "def points():\n    return [0, 1, 2], [1, 3, 5]\n",
    },
    students={
        "s01": {"fit.ipynb": _SLOPE},
        "s02": {"fit.ipynb": answering(slope="def slope(xs, ys):\n    return 1 / 0")},
        "s03": {"fit.ipynb": _SLOPE, "timestamp.txt": "2026-03-02 18:00:00 UTC"},  # late: zero, as configured
        "s04": {"fit.ipynb": answering()},
    },
    elsewhere=True,
    db="grades.sqlite",
    course_id="phys101",
)

COURSES = [LAB, HUB]


def configure(course: Course, root: Path) -> None:
    """The course's nbgrader_config.py in `root`."""
    (root / "nbgrader_config.py").write_text(course.config.replace("{root}", str(root)))


def build(course: Course, root: Path) -> None:
    """`course` in `root`: its sources, its gradebook, released by nbgrader, and every student's submission."""
    from nbgrader.api import Gradebook

    configure(course, root)
    for name, text in course.files.items():
        path = root / course.folders["source"] / course.assignment / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    with Gradebook(f"sqlite:///{root / course.db}", course.course_id) as gb:
        gb.update_or_create_assignment(course.assignment, duedate=DUE)
    run(str(VENV_BIN / "nbgrader"), "generate_assignment", course.assignment, cwd=root)
    released = root / course.folders["release"] / course.assignment
    for student, files in course.students.items():
        folder = root / course.folders["submitted"] / student / course.assignment
        folder.mkdir(parents=True)
        for name, made in files.items():
            text = made if isinstance(made, str) else made((released / name).read_text())
            (folder / name).write_text(text)
