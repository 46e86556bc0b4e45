"""Whether a reference answer keeps its timed points in a batch, with the batch's own load beside its timing.

Builds an nbgrader course holding each timed set (those whose test cells call `check_speedup`: 01, 04, 05,
07 and 09), submits N copies of each set's reference answer, and grades each set with `jax-course grade SET
--workers 2`: two notebooks run at once, so every timing check, in a kernel or in the verifier, runs beside
another notebook's kernel and verifier. From the gradebook it prints, per set, how many copies lost any point
and which tests, with the speed each failed timing measured (from the autograded notebook). The target is 0.
A benchmark, not a test: it always exits 0.

Run from the checkout. On 2 quiet cores, 40 copies of each set take half a minute to two minutes on 2 workers
(09 the longest), all five sets about five; on cores shared with other work, several times that. `--workers 3`
puts more load beside each timing:

    PATH=.venv/bin:$PATH .venv/bin/python bench/timed_batch.py [--copies 40] [--sets 05_vmap,04_jit]
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # nbgrader runs `alembic`

import nbformat  # noqa: E402

from autograder._config import DEFAULT_SEED  # noqa: E402

from support import (  # noqa: E402
    ASSIGNMENTS,
    make_course,
    read_scores,
    solution_sources,
    submit,
    test_points,
    timed_tests,
)

# What a failed timing says of itself (`_timing._verdict`).
_MEASURED = re.compile(r"ran ([\d.]+x as fast as .*?\)); required: at least ([\d.]+x)")


def timed_sets() -> list[str]:
    """The sets whose graded cells time an answer."""
    return [a for a in ASSIGNMENTS if "check_speedup" in (ROOT / "solutions" / a / f"{a}.ipynb").read_text()]


def failure_said(course: Path, assignment: str, student: str, grade_id: str) -> str:
    """What the autograded notebook's cell `grade_id` said when it failed, shortened to the measured speed."""
    path = course / "autograded" / student / assignment / f"{assignment}.ipynb"
    if not path.exists():
        return "no autograded notebook"
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") != grade_id:
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                said = str(output.get("evalue", ""))
                found = _MEASURED.search(said)
                return f"{found[1]}, required {found[2]}" if found else said[:160]
    return "no error shown"


def grade_set(folder: Path, assignment: str, copies: int, workers: int) -> None:
    course = make_course(folder / assignment, assignment)
    reference = solution_sources(assignment)
    students = [f"ref{i:03d}" for i in range(1, copies + 1)]
    for student in students:
        submit(course, assignment, student, reference)
    start = time.perf_counter()
    done = subprocess.run(
        ["jax-course", "grade", assignment, "--force", "--workers", str(workers)],
        cwd=course,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    points = test_points(assignment)
    timed = timed_tests(assignment)
    try:
        scores = read_scores(course, assignment)
    except Exception as error:  # no gradebook at all: report, keep going
        print(f"{assignment}: could not read the gradebook ({error!r}); exit {done.returncode}")
        print(done.stderr[-3000:])
        return
    lost: dict[str, list[str]] = {}
    for student in students:
        got = scores.get(student, {})
        lost[student] = [t for t, p in points.items() if got.get(t, 0.0) < p]
    losers = [s for s in students if lost[s]]
    by_test = collections.Counter(t for s in losers for t in lost[s])
    timed_losers = [s for s in students if set(lost[s]) & timed]
    print(
        f"{assignment}: {copies} copies of the reference, {workers} workers, {seconds:.0f} s, exit {done.returncode}: "
        f"{len(losers)} lost a point ({len(timed_losers)} a timed one)",
        flush=True,
    )
    for test, n in sorted(by_test.items()):
        print(f"  {test}{' (timed)' if test in timed else ''}: lost by {n}")
    for student in losers:
        for test in lost[student]:
            print(f"    {student} {test}: {failure_said(course, assignment, student, test)}")
    if done.returncode != 0:
        print(done.stdout[-2000:], done.stderr[-3000:], sep="\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=40, help="copies of each set's reference (default 40)")
    parser.add_argument("--sets", help="comma list of sets (default: every timed set)")
    parser.add_argument("--workers", type=int, default=2, help="notebooks graded at once (default 2)")
    parser.add_argument("--keep", type=Path, help="build in this (new) folder and keep it, instead of a temporary one")
    args = parser.parse_args()
    sets = args.sets.split(",") if args.sets else timed_sets()
    for name in ("JAXCOURSE_RECORD_REFERENCES", "JAXCOURSE_REFERENCES"):
        os.environ.pop(name, None)
    os.environ["JAXCOURSE_GRADER_SEED"] = str(DEFAULT_SEED)  # the package's references
    os.environ["JAXCOURSE_TIMING"] = "enforce"
    temporary = None if args.keep else tempfile.TemporaryDirectory(prefix="timed-batch-")
    folder = args.keep or Path(temporary.name)
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["JUPYTER_DATA_DIR"] = str(folder / "jupyter-data")
    load = os.getloadavg()[0]
    print(f"Machine: {os.cpu_count()} cores, load average {load:.2f}; sets: {', '.join(sets)}", flush=True)
    for assignment in sets:
        (folder / assignment).mkdir()
        grade_set(folder, assignment, args.copies, args.workers)
    if temporary:
        temporary.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
