"""How long `jax-course grade` takes before it grades anything, against `nbgrader autograde`.

In a small nbgrader course (03_tracing, one submission), each command is run with `--student`
naming nobody who submitted: it starts, reads the configuration and the gradebook, lists the
submissions, finds none and stops. That is the start-up every batch pays before its first
notebook. Also shown: the imports of the process that runs the notebooks (`grading/batch/_driver.py`, in the
forkserver), which `jax-course grade` starts first so that they overlap its own start-up. Each
figure is the median of several runs. A benchmark, not a test: it always exits 0. Issue 37 asks
for under 1 s.

    .venv/bin/python bench/grade_startup.py [--runs 7]
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
BIN = Path(sys.executable).parent
os.environ["PATH"] = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"  # nbgrader runs `alembic`

from support import make_course, solution_sources, submit  # noqa: E402

ASSIGNMENT = "03_tracing"


def median_seconds(command: list[str], cwd: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="grade-startup-") as folder:
        os.environ["JUPYTER_DATA_DIR"] = str(Path(folder) / "jupyter-data")
        course = make_course(Path(folder), ASSIGNMENT)
        submit(course, ASSIGNMENT, "someone", solution_sources(ASSIGNMENT))
        nobody = ["--student", "nobody"]
        figures = {
            "jax-course grade, until it would grade": [str(BIN / "jax-course"), "grade", ASSIGNMENT, *nobody],
            "nbgrader autograde, until it would grade": [str(BIN / "nbgrader"), "autograde", ASSIGNMENT, *nobody],
            "the notebook runner's imports (forkserver)": [
                sys.executable,
                "-c",
                "import autograder.grading.batch._driver",
            ],
            "python itself": [sys.executable, "-c", "pass"],
        }
        print(f"Start-up on {os.cpu_count()} cores, median of {args.runs} runs:")
        for name, command in figures.items():
            print(f"  {name:<45} {median_seconds(command, course, args.runs):6.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
