"""One student regraded: `jax-course grade A --student X` against stock `nbgrader autograde A --student X`.

In two courses: this repository's, with one assignment (default 04_jit) and a few submissions of its
reference answers; and a plain nbgrader course that never uses this course's checks or JAX ("lab" of
tests/courses.py: two notebooks, a helper module beside them, its own folder names). In each it regrades
one student (`--force --student`) under each command, alternately, several times, and prints for each
command the wall-clock seconds (median and range) and the peak memory of the whole process tree (the
command, its kernels, and anything they start; sampled every 50 ms with psutil): resident memory summed
over the tree (RSS), and its proportional share (PSS), which counts once the pages forked processes
share; then ours / stock of each, medians over the runs. Both commands read the course's
nbgrader_config.py. A benchmark, not a test: it always exits 0.

Run from the checkout (about 5 minutes on 2 cores):

    PATH=.venv/bin:$PATH .venv/bin/python bench/grade_one.py [--runs 3] [--assignment 04_jit] [--course both]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # nbgrader runs `alembic`

from courses import LAB, build  # noqa: E402

from autograder._config import DEFAULT_SEED  # noqa: E402

from support import make_course, read_scores, solution_sources, submit  # noqa: E402

_SAMPLE_SECONDS = 0.05


def _tree_memory(process: psutil.Process) -> tuple[int, int]:
    """The process tree's resident memory, and its proportional share (PSS: pages shared by forked processes
    counted once), in bytes."""
    try:
        members = [process, *process.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0, 0
    rss = pss = 0
    for member in members:
        try:
            memory = member.memory_full_info()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        rss, pss = rss + memory.rss, pss + memory.pss
    return rss, pss


def measured(command: list[str], cwd: Path) -> tuple[float, float, float, int]:
    """(wall seconds, peak RSS MB and peak PSS MB of the process tree, exit status) of `command`."""
    start = time.perf_counter()
    child = psutil.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rss = pss = 0
    while child.poll() is None:
        now = _tree_memory(child)
        rss, pss = max(rss, now[0]), max(pss, now[1])
        time.sleep(_SAMPLE_SECONDS)
    return time.perf_counter() - start, rss / 2**20, pss / 2**20, child.returncode


def this_course(folder: Path, assignment: str, students: int) -> tuple[Path, str, list[str]]:
    """This repository's course with `students` submissions of `assignment`'s reference answers."""
    course = make_course(folder, assignment)
    answers = solution_sources(assignment)
    names = [f"student{n:02d}" for n in range(students)]
    for student in names:
        submit(course, assignment, student, answers)
    return course, assignment, names


def plain_course(folder: Path) -> tuple[Path, str, list[str]]:
    """tests/courses.py's "lab", a course of nothing but nbgrader, with its students' submissions."""
    build(LAB, folder)
    # Alice answered everything: the one regraded.
    return folder, LAB.assignment, [*(s for s in LAB.students if s != "alice"), "alice"]


def compare(
    name: str, course: Path, assignment: str, students: list[str], runs: int
) -> dict[str, tuple[float, float, float]]:
    """Regrade the last of `students` `runs` times under each command; print each run and the medians;
    (median s, median RSS MB, median PSS MB) of each command."""
    one = students[-1]
    commands = {
        "stock": ["nbgrader", "autograde", assignment, "--force", "--student", one],
        "ours": ["jax-course", "grade", assignment, "--force", "--student", one],
    }
    print(f"\n{name}: {assignment}, {len(students)} submissions in the course, regrading {one}; {os.cpu_count()} cores")
    results: dict[str, list[tuple[float, float, float, int]]] = {command: [] for command in commands}
    for run in range(runs):
        for grader, command in commands.items():
            results[grader].append(measured(command, course))
            seconds, rss, pss, status = results[grader][-1]
            said = f"{seconds:6.1f} s, peak RSS {rss:6.0f} MB, PSS {pss:6.0f} MB, exit {status}"
            print(f"  run {run + 1} {grader:<5}: {said}", flush=True)
    print(f"{'grader':<8}{'median s':>10}{'min s':>8}{'max s':>8}{'RSS MB':>8}{'PSS MB':>8}  (medians)")
    medians = {}
    for grader, rows in results.items():
        seconds = [row[0] for row in rows]
        medians[grader] = (
            statistics.median(seconds),
            statistics.median(row[1] for row in rows),
            statistics.median(row[2] for row in rows),
        )
        row = f"{medians[grader][0]:>10.1f}{min(seconds):>8.1f}{max(seconds):>8.1f}"
        print(f"{grader:<8}{row}{medians[grader][1]:>8.0f}{medians[grader][2]:>8.0f}")
    return medians


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assignment", default="04_jit", help="this course's assignment (default 04_jit)")
    parser.add_argument("--course", choices=("both", "this", "plain"), default="both", help="which (default both)")
    parser.add_argument("--runs", type=int, default=3, help="regrades under each command (default 3)")
    parser.add_argument("--students", type=int, default=4, help="submissions in this course (default 4)")
    args = parser.parse_args()
    for name in ("JAXCOURSE_RECORD_REFERENCES", "JAXCOURSE_REFERENCES"):
        os.environ.pop(name, None)
    os.environ["JAXCOURSE_GRADER_SEED"] = str(DEFAULT_SEED)  # the package's references serve both graders
    ratios = {}
    with tempfile.TemporaryDirectory(prefix="grade-one-") as folder:
        os.environ["JUPYTER_DATA_DIR"] = str(Path(folder) / "jupyter-data")
        if args.course in ("both", "this"):
            (Path(folder) / "this").mkdir()
            course, assignment, students = this_course(Path(folder) / "this", args.assignment, args.students)
            medians = compare("this course", course, assignment, students, args.runs)
            scores = read_scores(course, assignment).get(students[-1], {})
            print(f"{students[-1]}'s score after the last regrade: {sum(scores.values()):g}")
            ratios[f"this course ({assignment})"] = medians
        if args.course in ("both", "plain"):
            (Path(folder) / "plain").mkdir()
            course, assignment, students = plain_course(Path(folder) / "plain")
            plain = compare("a plain nbgrader course", course, assignment, students, args.runs)
            ratios[f"plain nbgrader ({assignment})"] = plain
    print(f"\n{'ours / stock, medians':<32}{'time':>8}{'peak RSS':>10}{'peak PSS':>10}")
    for name, medians in ratios.items():
        ours, stock = medians["ours"], medians["stock"]
        print(f"{name:<32}" + "".join(f"{o / s:>{w}.2f}" for o, s, w in zip(ours, stock, (8, 10, 10), strict=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
