"""Hostile and broken submissions (tests/hostile.py), graded by stock nbgrader and by `jax-course grade`.

Stock `nbgrader autograde` runs the catalogue once, serially. `jax-course grade` runs it while
being killed at random points five times, then finishes. Every case must get no more than it
deserves in both, every grader must survive, and the killed-and-resumed gradebook must match
the serial one. The table of cases is printed at the end of the test session.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import pytest

from autograder.grading.batch._runner import SCRATCH
from autograder.grading.kernels._keeper import FILES_MB
from autograder.grading.kernels._outputs import MAX_OUTPUT_BYTES

from hostile import (
    ASSIGNMENT,
    CASES,
    OUTLIVED,
    SPIED,
    STARTUP_FILES,
    TIMED_ASSIGNMENT,
    VERIFIED_ASSIGNMENT,
    assignment_of,
    student_id,
    write_submission,
)
from support import ROOT, VENV_BIN, left_behind, make_course

pytestmark = pytest.mark.grading

REPORT = ROOT / "test-artifacts" / "hostile-report.txt"
# Graded after the killed batch of ASSIGNMENT, each in one run of each grader.
OTHERS = (TIMED_ASSIGNMENT, VERIFIED_ASSIGNMENT)
# Generous for one cell of this assignment even on a loaded machine (stock runs beside ours);
# the endless Python loop costs this much in each grader.
CELL_TIMEOUT = 20


def _scores(course: Path) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {s.student_id: float(s.score) for a in (ASSIGNMENT, *OTHERS) for s in gb.assignment_submissions(a)}


def _files(course: Path) -> dict[str, str]:
    """The course's own files (its config, solutions and release), each by its contents' hash."""
    paths = [course / "nbgrader_config.py", *(course / "solutions").rglob("*"), *(course / "exercises").rglob("*")]
    return {str(p.relative_to(course)): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file()}


def _check_gradebook(course: Path, students: set[str]) -> None:
    with sqlite3.connect(course / "gradebook.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = db.execute(
            "SELECT student.id, COUNT(*) FROM submitted_assignment JOIN student ON student.id = student_id "
            "GROUP BY student.id"
        ).fetchall()
        assert sorted(r[0] for r in rows) == sorted(students) and all(n == 1 for _, n in rows), rows
        grades = db.execute(
            "SELECT notebook_id, cell_id, COUNT(*) FROM grade GROUP BY notebook_id, cell_id HAVING COUNT(*) > 1"
        ).fetchall()
        assert grades == [], f"duplicated grades: {grades}"


def test_no_hostile_submission_gets_undeserved_points_and_a_killed_batch_loses_nothing(tmp_path):
    course = make_course(tmp_path, ASSIGNMENT, *OTHERS)
    with open(course / "nbgrader_config.py", "a") as config:
        config.write(f"\nc.Execute.timeout = {CELL_TIMEOUT}\n")
    for case in CASES:
        write_submission(course, case)
    stock = tmp_path / "stock"
    stock.mkdir()
    for name in ("nbgrader_config.py", "gradebook.db"):
        (stock / name).write_bytes((course / name).read_bytes())
    for folder in ("solutions", "exercises", "submitted"):
        subprocess.run(["cp", "-r", course / folder, stock / folder], check=True)
    for case, spec in CASES.items():
        if spec.get("ours_only"):
            subprocess.run(["rm", "-r", stock / "submitted" / student_id(case)], check=True)

    # Stock nbgrader, serially, alongside ours (its own process group, so nothing it starts outlives it).
    nbgrader = VENV_BIN / "nbgrader"
    # The graders' HOME, where a kernel that could would leave start-up files for every later command and kernel;
    # and the course's own files, which no kernel may change (a link left where the grader writes).
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    kept = {path: _files(path) for path in (course, stock)}
    stock_run = subprocess.Popen(
        ["bash", "-c", "; ".join(f"'{nbgrader}' autograde {a}" for a in (ASSIGNMENT, *OTHERS))],
        cwd=stock,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    limits = ["--timeout", "60", "--memory", "2000"]
    grade = [VENV_BIN / "jax-course", "grade", ASSIGNMENT, *limits]
    ledger = course / "grading" / ASSIGNMENT / "done"
    chance = random.Random(20261122)
    kills, orphans, killed = [], [], []
    for _ in range(5):
        # Killed mid-batch however fast the machine: once it has finished one or two more submissions.
        wanted = len(list(ledger.glob("*.json"))) + chance.randint(1, 2)
        grader = subprocess.Popen(grade, cwd=course, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 600
        while len(list(ledger.glob("*.json"))) < wanted and grader.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        grader.send_signal(signal.SIGKILL)
        grader.wait()
        # Its drivers notice within moments and end with their kernels.
        deadline = time.monotonic() + 20
        while left_behind(grader.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        orphans += left_behind(grader.pid)
        killed.append(grader.pid)
        kills.append(len(list(ledger.glob("*.json"))))
    final = subprocess.run(grade, cwd=course, env=env, capture_output=True, text=True, timeout=1800)
    # The next run removed the killed graders' scratch folders, with the submissions and references in them.
    orphans += [str(p) for pid in killed for p in Path(tempfile.gettempdir()).glob(f"{SCRATCH}{pid}-*")]
    # Exit status 1, as nbgrader's: some hostile submissions cannot be graded (invalid JSON, timeouts, memory).
    assert final.returncode == 1, final.stdout[-3000:] + final.stderr[-3000:]
    for other in OTHERS:
        done = subprocess.run(
            [VENV_BIN / "jax-course", "grade", other, *limits], cwd=course, env=env, capture_output=True, text=True,
            timeout=900,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]  # every one graded
    try:
        _, stock_log = stock_run.communicate(timeout=1800)
    finally:
        try:
            os.killpg(stock_run.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    ours, theirs = _scores(course), _scores(stock)
    # Stock ran beside ours and the other tests' graders on 2 cores, where a kernel can die before
    # replying (jupyter/nbgrader#1230); a submission the two graded differently is graded by stock
    # once more, alone, and what its first run said goes to the warnings summary.
    differ = {s for s in theirs if ours.get(s) != theirs.get(s)}
    if differ:
        stock_log = _grade_again_alone(stock, differ, stock_log, env)
        theirs = _scores(stock)
    entries = {p.stem: json.loads(p.read_text()) for p in (course / "grading").glob("*/done/*.json")}
    rows, undeserved = [], []
    for case, spec in CASES.items():
        student = student_id(case)
        got_ours = ours.get(student, 0.0)
        got_stock = None if spec.get("ours_only") else theirs.get(student, 0.0)
        said = entries.get(student, {}).get("reason", "")
        rows.append((case, got_stock, got_ours, spec["deserved"], said or "-"))
        if got_ours > spec["deserved"] or (got_stock or 0.0) > spec["deserved"]:
            undeserved.append(case)
        if "stock_gets" in spec and got_stock != spec["stock_gets"]:
            undeserved.append(f"{case} (stock nbgrader gave {got_stock}, not {spec['stock_gets']})")
        unnamed = [name for name in spec.get("report_names", []) if name not in said]
        if unnamed:
            undeserved.append(f"{case} (the report does not name {unnamed})")
        if "ours_gets" in spec and got_ours != spec["ours_gets"]:
            undeserved.append(f"{case} (jax-course grade gave {got_ours}, not {spec['ours_gets']})")
    _write_report(rows, kills)

    assert undeserved == [], f"undeserved points, or not what stock_gets or ours_gets say: {undeserved} (see {REPORT})"
    assert orphans == [], f"what a killed grader left behind (processes, scratch folders): {orphans}"
    assert sorted(entries) == sorted(student_id(c) for c in CASES), "a submission has no ledger entry"
    killed_batch = [c for c in CASES if assignment_of(c) == ASSIGNMENT]
    assert kills == sorted(set(kills)) and kills[-1] < len(killed_batch), f"not killed mid-batch each time: {kills}"
    _check_gradebook(course, {student_id(c) for c in CASES})
    # What cells print is kept up to a bound (`kernels/_outputs.py`): no graded notebook grows past it, in either.
    graded = [path for root in (course, stock) for path in (root / "autograded").rglob("*.ipynb")]
    large = {str(p.relative_to(tmp_path)): p.stat().st_size for p in graded if p.stat().st_size > 2 * MAX_OUTPUT_BYTES}
    assert large == {}, f"graded notebooks past the bound on outputs: {large}"
    # What a kernel writes is bounded in all (`kernels/_keeper.py`), with room for a poll's worth past the bound.
    written = {
        str(folder.relative_to(tmp_path)): sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        for root in (course, stock)
        for folder in (root / "autograded").glob("*/*")
    }
    large = {folder: size for folder, size in written.items() if size > (FILES_MB + 512) * 2**20}
    assert large == {}, f"submissions that wrote past the bound on files: {large}"
    # No kernel heard another's channels or read what another kernel or the grader keeps, in either pipeline.
    spied = [str(p.relative_to(tmp_path)) for root in (course, stock) for p in (root / "autograded").rglob("*.ipynb")
             if SPIED in p.read_text(errors="replace")]  # fmt: skip
    assert spied == [], f"a kernel got another submission's or the grader's words: {spied}"
    # Nothing a kernel started outlived it (it would act within moments of its kernel's end), in either pipeline.
    time.sleep(3)
    outlived = [str(p.relative_to(tmp_path)) for root in (course, stock) for p in (root / "autograded").rglob(OUTLIVED)]
    assert outlived == [], f"a process a kernel started changed its folder after grading: {outlived}"
    # Nothing a kernel left behind changed the course's files or reached the graders' HOME.
    assert {path: _files(path) for path in kept} == kept, "a kernel changed the course's solutions or config"
    assert [name for name in STARTUP_FILES if (home / name).exists()] == [], "a kernel wrote start-up files in HOME"
    # The killed-and-resumed batch gives what a clean serial run gives, wherever both ran.
    differ = {s: (ours.get(s), theirs.get(s)) for s in theirs if ours.get(s) != theirs.get(s)}
    said = _said_about(stock_log, differ)
    assert differ == {}, f"scores differ from the serial run: {differ}\nstock nbgrader said: {said}"
    # Stock nbgrader survived every submission it was given: it graded all of them.
    assert set(theirs) == {student_id(c) for c, s in CASES.items() if not s.get("ours_only")}, stock_log[-3000:]


def _grade_again_alone(stock: Path, students: set[str], first_log: str, env: dict[str, str]) -> str:
    """Grade these students' submissions with stock nbgrader again, one at a time; what it said."""
    said = []
    for student in sorted(students):
        case = next(c for c in CASES if student_id(c) == student)
        command = [VENV_BIN / "nbgrader", "autograde", assignment_of(case), "--student", student, "--force"]
        said.append(subprocess.run(command, cwd=stock, env=env, capture_output=True, text=True, timeout=600).stderr)
    first = _said_about(first_log, students)
    warnings.warn(f"stock nbgrader graded {sorted(students)} again, alone; its first run said:\n{first}", stacklevel=2)
    return "\n".join(said)


def _said_about(log: str, students) -> str:
    """The lines of stock nbgrader's log from its grading of these students' submissions."""
    everyone = {student_id(case) for case in CASES}
    said, current = [], None
    for line in log.splitlines():
        named = [s for s in everyone if f"/{s}/" in line or f"'{s}'" in line]
        if named:
            current = max(named, key=len)
        if current in students:
            said.append(line)
    return "\n".join(said)[-6000:]


def _write_report(rows, kills) -> None:
    width = max(len(r[0]) for r in rows)
    lines = [
        f"Hostile submissions ({ASSIGNMENT}, and {' and '.join(OTHERS)} where marked): points got by stock nbgrader "
        f"and by jax-course grade (killed 5 times during {ASSIGNMENT}, after {kills} were done), and points deserved.",
        f"{'case':<{width}}  {'stock':>5}  {'ours':>5}  {'deserved':>8}  reason recorded (ours)",
    ]
    for case, stock, ours, deserved, reason in rows:
        flag = "  <-- UNDESERVED" if ours > deserved or (stock or 0) > deserved else ""
        shown = "n/a" if stock is None else f"{stock:g}"
        lines.append(f"{case:<{width}}  {shown:>5}  {ours:>5g}  {deserved:>8g}  {reason[:90]}{flag}")
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("\n".join(lines) + "\n")
