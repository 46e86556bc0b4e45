"""One student regraded: `jax-course grade A --student X` against stock `nbgrader autograde A --student X`.

Builds an nbgrader course of this repository with one assignment (default 04_jit) and a few submissions of
its reference answers, then regrades one student (`--force --student`) under each command, alternately,
several times. For each command it prints the wall-clock seconds (median and range) and the peak memory
of the whole process tree (the command, its kernels, and anything they start; resident memory summed
over the tree, sampled every 50 ms with psutil), and the ratio. Both use the course's nbgrader_config.py.
A benchmark, not a test: it always exits 0.

Run from the checkout (about 5 minutes on 2 cores):

    PATH=.venv/bin:$PATH .venv/bin/python bench/grade_one.py [--runs 3] [--assignment 04_jit]
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

from autograder._config import DEFAULT_SEED  # noqa: E402

from support import make_course, read_scores, solution_sources, submit  # noqa: E402

_SAMPLE_SECONDS = 0.05


def _tree_rss(process: psutil.Process) -> int:
    try:
        members = [process, *process.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    total = 0
    for member in members:
        try:
            total += member.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def measured(command: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall seconds, peak MB of the process tree, exit status) of `command`."""
    start = time.perf_counter()
    child = psutil.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while child.poll() is None:
        peak = max(peak, _tree_rss(child))
        time.sleep(_SAMPLE_SECONDS)
    return time.perf_counter() - start, peak / 2**20, child.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assignment", default="04_jit")
    parser.add_argument("--runs", type=int, default=3, help="regrades under each command (default 3)")
    parser.add_argument("--students", type=int, default=4, help="submissions in the course (default 4)")
    args = parser.parse_args()
    for name in ("JAXCOURSE_RECORD_REFERENCES", "JAXCOURSE_REFERENCES"):
        os.environ.pop(name, None)
    os.environ["JAXCOURSE_GRADER_SEED"] = str(DEFAULT_SEED)  # the package's references serve both graders
    with tempfile.TemporaryDirectory(prefix="grade-one-") as folder:
        os.environ["JUPYTER_DATA_DIR"] = str(Path(folder) / "jupyter-data")
        course = make_course(Path(folder), args.assignment)
        answers = solution_sources(args.assignment)
        students = [f"student{n:02d}" for n in range(args.students)]
        for student in students:
            submit(course, args.assignment, student, answers)
        one = students[-1]
        commands = {
            "stock": ["nbgrader", "autograde", args.assignment, "--force", "--student", one],
            "ours": ["jax-course", "grade", args.assignment, "--force", "--student", one],
        }
        print(f"{args.assignment}, {len(students)} submissions in the course, regrading {one}; {os.cpu_count()} cores")
        results: dict[str, list[tuple[float, float, int]]] = {name: [] for name in commands}
        for run in range(args.runs):
            for name, command in commands.items():
                results[name].append(measured(command, course))
                seconds, peak, status = results[name][-1]
                print(f"  run {run + 1} {name:<5}: {seconds:6.1f} s, peak {peak:6.0f} MB, exit {status}", flush=True)
        scores = read_scores(course, args.assignment).get(one, {})
        print(f"  {one}'s score after the last regrade: {sum(scores.values()):g}")
        print(f"\n{'grader':<8}{'median s':>10}{'min s':>8}{'max s':>8}{'peak MB':>10}")
        medians = {}
        for name, rows in results.items():
            seconds = [s for s, _, _ in rows]
            medians[name] = statistics.median(seconds)
            peak = max(p for _, p, _ in rows)
            print(f"{name:<8}{medians[name]:>10.1f}{min(seconds):>8.1f}{max(seconds):>8.1f}{peak:>10.0f}")
        print(f"ours / stock, median time: {medians['ours'] / medians['stock']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
