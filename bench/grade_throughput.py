"""Throughput of `jax-course grade` against stock `nbgrader autograde`, on one realistic batch.

Builds an nbgrader course with N submissions of one assignment (default: 40 of 04_jit):
reference answers, correct-but-slow (where the set times answers) and wrong variants from tests/variants/, answers
that raise, answers that hang (`while True: pass`) and one malformed notebook (invalid
JSON). Both graders get the same per-cell timeout (`c.Execute.timeout`, appended to the
bench course's nbgrader_config.py) and grade identical copies of the course, one after
the other. It prints the wall-clock time of each whole command, submissions per minute,
the ratio stock/ours per worker count (stock with the course's config, whose kernels are forked
warm; stock with nbgrader's own cold kernels is the first row), the CPU-seconds each grader's whole
process tree used, per notebook and as a ratio to stock's with the course's config (issue 56 asks for at
most 1), and whether every score (per student, per test cell, read from each gradebook) is identical.
A benchmark, not a test: it always exits 0.

Run from the checkout (about 10-20 minutes on 2 cores):

    PATH=.venv/bin:$PATH .venv/bin/python bench/grade_throughput.py [--workers 1,2]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import shutil
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

from support import make_course, read_scores, solution_sources, submit, test_points, timed_tests  # noqa: E402
from variants import VARIANTS  # noqa: E402

# One cycle of 20 submissions: mostly correct or wrong, a few slow, one raising, one hanging.
CYCLE = [
    "correct",
    "wrong",
    "correct",
    "wrong",
    "slow",
    "correct",
    "wrong",
    "raising",
    "correct",
    "wrong",
    "correct",
    "wrong",
    "slow",
    "correct",
    "wrong",
    "hanging",
    "correct",
    "wrong",
    "wrong",
    "correct",
]


def build_batch(course: Path, assignment: str, count: int) -> dict[str, str]:
    """Write `count` submissions into `course/submitted`; returns {student: kind (variant)}."""
    reference = solution_sources(assignment)
    timed = timed_tests(assignment)
    slow = [n for n, v in VARIANTS[assignment].items() if v["loses"] and set(v["loses"]) <= timed]
    wrong = [n for n in VARIANTS[assignment] if n not in slow]
    if not wrong:
        sys.exit(f"{assignment}: needs wrong variants in tests/variants/")
    slow_iter, wrong_iter, answer_ids = itertools.cycle(slow), itertools.cycle(wrong), list(reference)
    # A set with no timed problem (10_pytrees) has no slow answers: wrong ones take their places.
    kinds = [CYCLE[i % len(CYCLE)] for i in range(count)]
    kinds = [kind if kind != "slow" or slow else "wrong" for kind in kinds]
    kinds[count // 2] = "malformed"  # exactly one
    batch = {}
    for i, kind in enumerate(kinds, 1):
        answers, label = dict(reference), kind
        if kind in ("slow", "wrong"):
            name = next(slow_iter if kind == "slow" else wrong_iter)
            answers.update(VARIANTS[assignment][name]["answers"])
            label = f"{kind} ({name})"
        elif kind == "raising":
            answers[answer_ids[-1]] = 'raise ValueError("I did not get this one to work")\n'
        elif kind == "hanging":
            answers[answer_ids[0]] = "while True:\n    pass\n"
        student = f"s{i:03d}_{kind}"
        path = submit(course, assignment, student, answers)
        if kind == "malformed":
            text = path.read_text()
            path.write_text(text[: len(text) // 2])  # cut off half-way: invalid JSON
        batch[student] = label
    return batch


def cpu_counters() -> tuple[float, int, int]:
    """(wall, all jiffies, idle jiffies) of the whole machine."""
    ticks = [int(v) for v in open("/proc/stat").readline().split()[1:9]]
    return time.perf_counter(), sum(ticks), ticks[3] + ticks[4]


def run_timed(command: list[str], cwd: Path) -> tuple[float, float, float, subprocess.CompletedProcess]:
    """Wall seconds of `command`; the CPU seconds its whole process tree used (`tree_cpu`); and how many cores
    OTHER processes kept busy meanwhile (the machine is shared)."""
    wall0, all0, idle0 = cpu_counters()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=err, text=True)
        cpu = tree_cpu(child)
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(command, child.returncode, out.read(), err.read())
    wall1, all1, idle1 = cpu_counters()
    busy = os.cpu_count() * (1 - (idle1 - idle0) / max(all1 - all0, 1))
    return wall1 - wall0, cpu, max(busy - cpu / (wall1 - wall0), 0.0), done


def tree_cpu(child: subprocess.Popen, every: float = 0.05) -> float:
    """CPU seconds (user and system) of `child` and every process under it, until `child` ends: each process's
    own, as last seen by psutil every `every` seconds. The kernels' nurseries reap their kernels without
    waiting for them, so the kernels' CPU never reaches this process's `getrusage(RUSAGE_CHILDREN)`; what a
    process spends after its last sample is missed (at most `every` seconds each)."""
    root, seen = psutil.Process(child.pid), {}
    while child.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            break
        for process in tree:
            with contextlib.suppress(psutil.Error):
                times = process.cpu_times()
                seen[process.pid, process.create_time()] = times.user + times.system
        time.sleep(every)
    child.wait()
    return sum(seen.values())


def others_line(others: float) -> str:
    warning = "  <- the machine was shared: these seconds are inflated" if others > 0.25 else ""
    return f"  other processes kept {others:.2f} of {os.cpu_count()} cores busy meanwhile{warning}"


def timed_out_cells(course: Path, assignment: str) -> list[str]:
    """Students with a cell stopped by the per-cell timeout, from the autograded notebooks."""
    found = []
    for nb_path in sorted((course / "autograded").glob(f"*/{assignment}/*.ipynb")):
        if "CellTimeoutError" in nb_path.read_text():
            found.append(nb_path.parents[1].name)
    return found


def compare(stock: dict, ours: dict, students: list[str], tests: list[str]) -> list[str]:
    """Differences per student and test cell; a student missing from a gradebook scores 0 everywhere."""
    zeros = dict.fromkeys(tests, 0.0)
    diffs = []
    for student in students:
        a, b = stock.get(student, zeros), ours.get(student, zeros)
        for test in tests:
            if a.get(test, 0.0) != b.get(test, 0.0):
                diffs.append(f"  {student} {test}: stock {a.get(test, 0.0):g}, ours {b.get(test, 0.0):g}")
    return diffs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assignment", default="04_jit")
    parser.add_argument("--submissions", type=int, default=40, help="batch size (default 40)")
    parser.add_argument("--workers", default="2", help="comma list of worker counts for ours (default 2)")
    parser.add_argument(
        "--cell-timeout", type=int, default=15, help="c.Execute.timeout for both graders (default 15 s)"
    )
    parser.add_argument("--keep", type=Path, help="build in this (new) folder and keep it, instead of a temporary one")
    args = parser.parse_args()
    workers = [int(w) for w in args.workers.split(",")]
    assignment = args.assignment

    # Same clean environment for both graders: kernels from this venv, timing checks enforced.
    for name in ("JAXCOURSE_RECORD_REFERENCES", "JAXCOURSE_REFERENCES"):
        os.environ.pop(name, None)
    os.environ["JAXCOURSE_GRADER_SEED"] = str(DEFAULT_SEED)  # the package's references serve both graders
    os.environ["JAXCOURSE_TIMING"] = "enforce"
    temporary = None if args.keep else tempfile.TemporaryDirectory(prefix="grade-bench-")
    folder = args.keep or Path(temporary.name)
    (folder / "base").mkdir(parents=True)
    os.environ["JUPYTER_DATA_DIR"] = str(folder / "jupyter-data")

    base = make_course(folder / "base", assignment)
    with open(base / "nbgrader_config.py", "a") as f:
        f.write(f"\n# bench: a hanging cell costs this, in both graders\nc.Execute.timeout = {args.cell_timeout}\n")
    batch = build_batch(base, assignment, args.submissions)
    students, tests = sorted(batch), sorted(test_points(assignment))
    counts = {k: sum(label.split()[0] == k for label in batch.values()) for k in CYCLE + ["malformed"]}
    print(
        f"Batch in {folder}: {len(batch)} submissions of {assignment}: "
        + ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    )
    for student in students:
        print(f"  {student}: {batch[student]}")
    print(
        f"Per-cell timeout: c.Execute.timeout = {args.cell_timeout} s for BOTH graders (course default 120 s), "
        "appended to the bench course's nbgrader_config.py."
    )
    print(f"Machine: {os.cpu_count()} cores; graders run one after the other, never at once.\n", flush=True)

    def fresh_copy(name: str) -> Path:
        return Path(shutil.copytree(base, folder / name))

    # What the course's config alone buys a user of stock nbgrader: the same grader with nbgrader's own
    # Execute step (each kernel a new interpreter) instead of the config's warm kernels.
    cold_course = fresh_copy("stock-cold")
    with open(cold_course / "nbgrader_config.py", "a") as f:
        f.write('c.Autograde.autograde_preprocessors = Autograde.class_traits()["autograde_preprocessors"].default()\n')
    cold_s, cold_cpu, _, cold_done = run_timed(["nbgrader", "autograde", assignment, "--force"], cold_course)
    print(
        f"stock nbgrader autograde, cold kernels (nbgrader's Execute): {cold_s:.1f} s, {cold_cpu:.1f} CPU-s, "
        f"exit {cold_done.returncode}"
    )

    stock_course = fresh_copy("stock")
    stock_s, stock_cpu, stock_others, done = run_timed(["nbgrader", "autograde", assignment, "--force"], stock_course)
    stock_rate = 60 * len(batch) / stock_s
    stock_scores = read_scores(stock_course, assignment)
    errors = [line for line in done.stderr.splitlines() if "ERROR" in line]
    print(
        f"stock nbgrader autograde: {stock_s:.1f} s, {stock_cpu:.1f} CPU-s, {stock_rate:.2f} submissions/min, "
        f"exit {done.returncode}, "
        f"{len(stock_scores)} students in its gradebook"
    )
    print(others_line(stock_others))
    for line in errors[:6]:
        print(f"  {line[:200]}")
    missing = [s for s in students if s not in stock_scores]
    print(f"  cells stopped by the cell timeout: {', '.join(timed_out_cells(stock_course, assignment)) or 'none'}")

    rows = []
    for w in workers:
        ours_course = fresh_copy(f"ours-w{w}")
        seconds, cpu, others, done = run_timed(
            ["jax-course", "grade", assignment, "--force", "--workers", str(w)], ours_course
        )
        print(f"\njax-course grade --workers {w}: {seconds:.1f} s, {cpu:.1f} CPU-s, exit {done.returncode}", flush=True)
        print(others_line(others))
        if done.returncode != 0:
            print(done.stdout[-3000:], done.stderr[-5000:], sep="\n")
        try:
            ours_scores = read_scores(ours_course, assignment)
        except Exception as error:  # no gradebook at all: report, keep going
            print(f"  could not read its gradebook: {error!r}")
            ours_scores = {}
        print(
            f"  {len(ours_scores)} students in its gradebook; "
            f"cells stopped by the cell timeout: {', '.join(timed_out_cells(ours_course, assignment)) or 'none'}"
        )
        report = ours_course / "grading" / assignment / "report.csv"
        for line in report.read_text().splitlines() if report.exists() else []:
            if ",failed," in line:
                print(f"  report.csv: {line[:200]}")
        missing += [s for s in students if s not in ours_scores]
        diffs = compare(stock_scores, ours_scores, students, tests)
        print(f"  scores identical to stock: {'yes' if not diffs else f'NO, {len(diffs)} cells differ:'}")
        for line in diffs:
            print(line)
        rows.append((w, seconds, 60 * len(batch) / seconds, stock_s / seconds, cpu, not diffs, others))

    print(
        "\nScores compared per student and test cell; a student missing from a gradebook counts as 0 on every "
        f"test cell. Missing here: {', '.join(sorted(set(missing))) or 'none'}."
    )
    print(f"\n{len(batch)} submissions of {assignment}, cell timeout {args.cell_timeout} s")
    print("ratio: stock with the course's config over each grader, in wall seconds (higher is faster); CPU ratio:")
    print("each grader's CPU-seconds per notebook (its whole process tree) over stock's with the course's config")
    header = f"{'grader':<22}{'seconds':>9}{'subs/min':>10}{'ratio':>8}{'CPU-s':>8}{'CPU/nb':>8}{'CPU ratio':>10}"
    print(f"{header}  identical  others' cores")
    cold_diffs = compare(stock_scores, read_scores(cold_course, assignment), students, tests)
    n = len(batch)

    def row(name: str, seconds: float, ratio: float, cpu: float) -> str:
        speed = f"{seconds:>9.1f}{60 * n / seconds:>10.2f}{ratio:>8.2f}"
        return f"{name:<22}{speed}{cpu:>8.1f}{cpu / n:>8.2f}{cpu / stock_cpu:>10.2f}"

    print(f"{row('stock, cold kernels', cold_s, stock_s / cold_s, cold_cpu)}  {'yes' if not cold_diffs else 'NO ':<3}")
    print(f"{row('stock, course config', stock_s, 1.0, stock_cpu)}  -{stock_others:>20.2f}")
    for w, seconds, _, ratio, cpu, same, others in rows:
        name = f"jax-course, {w} worker" + "s" * (w > 1)
        print(f"{row(name, seconds, ratio, cpu)}  {'yes' if same else 'NO ':<3}{others:>20.2f}")
    if temporary:
        temporary.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
