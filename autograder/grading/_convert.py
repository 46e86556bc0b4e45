"""`jax-course grade`: a whole class, graded in parallel, resumably, with nbgrader's own machinery.

The coordinator (this process) does everything nbgrader's `autograde` does except
running the notebooks: it creates the submission in the gradebook, copies files,
sanitizes each notebook (ClearOutput, OverwriteCells, ...), and after execution runs
SaveAutoGrades, AssignLatePenalties and CheckCellMetadata, so the gradebook is
written by one process only. Workers (threads here, each driving a limited child
process; or Dask workers) only execute notebooks: `_sandbox.execute_submission`.

A submission is done when its ledger entry (`grading/ASSIGNMENT/done/STUDENT.json`)
is written, last and atomically. A rerun skips submissions whose entry matches the
files submitted now; anything else (never graded, interrupted, resubmitted) is
graded again from scratch, and nbgrader's gradebook updates rows in place, so an
interrupted batch neither loses nor duplicates a grade.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
import os
import queue
import re
import shutil
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat
from nbgrader import utils
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.converters.autograde import Autograde
from nbgrader.converters.base import BaseConverter, NbGraderException
from nbgrader.preprocessors import Execute

from ._sandbox import Execution, close_launchers, execute_submission


@dataclass
class Outcome:
    """One submission's result, as the ledger and the report keep it."""

    student: str
    status: str  # "graded" or "failed"
    reason: str
    score: float
    max_score: float
    problems: dict[str, list[float]] = field(default_factory=dict)  # grade_id -> [score, max]
    seconds: float = 0.0
    fingerprint: str = ""


def fingerprint(folder: Path) -> str:
    """A hash of every file a student submitted: a resubmission changes it."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, path)


class GradingError(Exception):
    """The batch cannot start (no such assignment, no submissions): the message says why."""


class BatchAutograde(Autograde):
    """nbgrader's Autograde converter with execution handed to parallel workers."""

    def __init__(self, *, run, **kwargs):
        super().__init__(**kwargs)
        self.run = run

    # --- the coordinator's steps, each nbgrader's own code ------------------------------------

    def _prepare(self, assignment: str, student: str, notebooks: list[str]) -> list[tuple[str, str]]:
        """Gradebook entry, copied files, sanitized notebooks; returns (name, sanitized JSON) pairs."""
        dest = Path(self._format_dest(assignment, student))
        if dest.exists():
            shutil.rmtree(dest)
        self.notebooks = list(notebooks)
        self.run_pre_convert_hook()
        self.init_assignment(assignment, student)
        sanitized = []
        for notebook in self.notebooks:
            self._sanitizing = True
            self._init_preprocessors()
            BaseConverter.convert_single_notebook(self, notebook)
            path = Path(self.writer.build_directory) / Path(notebook).name
            sanitized.append((str(path), path.read_text()))
        return sanitized

    def _finish(self, sanitized_path: str, executed: str) -> None:
        """The autograde preprocessors after Execute (SaveAutoGrades among them), and the write."""
        self._sanitizing = False
        self.exporter._preprocessors = []
        for preprocessor in self.autograde_preprocessors:
            if not (isinstance(preprocessor, type) and issubclass(preprocessor, Execute)):
                self.exporter.register_preprocessor(preprocessor)
        resources = self.init_single_notebook_resources(sanitized_path)
        nb = nbformat.reads(executed, as_version=4)
        with utils.setenv(NBGRADER_EXECUTION="autograde"):
            output, resources = self.exporter.from_notebook_node(nb, resources=resources)
        self.write_single_notebook(output, resources)
        self._sanitizing = True

    def _zero(self, assignment: str, student: str) -> None:
        """No points for a submission that could not be graded (as nbgrader does for a missing one)."""
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            gb.update_or_create_student(student)
            gb.update_or_create_submission(assignment, student)
            for notebook in gb.find_assignment(assignment).notebooks:
                for grade in gb.find_submission_notebook(notebook.name, assignment, student).grades:
                    grade.auto_score = 0
                    grade.needs_manual_grade = False
            gb.db.commit()

    def _scores(self, assignment: str, student: str) -> tuple[float, float, dict[str, list[float]]]:
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            submission = gb.find_submission(assignment, student)
            problems = {
                grade.name: [float(grade.score), float(grade.max_score)]
                for notebook in submission.notebooks for grade in notebook.grades
            }
            return float(submission.score), float(submission.max_score), problems

    @staticmethod
    def _stopped_notebook(notebook: str, reason: str) -> str:
        """The notebook as far as it ran, every test cell it did not finish failed by `reason`."""
        nb = nbformat.reads(notebook, as_version=4)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            finished = cell.get("execution_count") is not None
            if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution") and not finished:
                cell.outputs = [nbformat.v4.new_output(
                    "error", ename="GradingStopped", evalue=reason, traceback=[f"GradingStopped: {reason}"],
                )]
        return nbformat.writes(nb)

    # --- the batch ---------------------------------------------------------------------------

    def convert_notebooks(self) -> None:
        run = self.run
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                gb.find_assignment(run.assignment)
            except MissingEntry:
                raise GradingError(
                    f"the gradebook ({self.coursedir.db_url}) has no assignment {run.assignment}: release it first "
                    f"with `nbgrader generate_assignment {run.assignment}` using the same db_url"
                ) from None
        pattern = self._format_source("(?P<assignment_id>.*)", "(?P<student_id>.*)", escape=True)
        todo = []
        for key in sorted(self.assignments):
            found = re.match(pattern, key)
            assignment, student = found["assignment_id"], found["student_id"]
            excluded = self.coursedir.student_id_exclude.split(",") if self.coursedir.student_id_exclude else []
            if student in excluded:
                continue
            print_ = fingerprint(Path(self._format_source(assignment, student)))
            if not run.force and run.is_done(student, print_, self):
                run.skipped.append(student)
                continue
            todo.append((assignment, student, sorted(self.assignments[key]), print_))
        run.grade(self, todo)


class GradingRun:
    """The options of one `jax-course grade` and what it produced."""

    def __init__(self, root: Path, assignment: str, *, workers: int, force: bool, notebook_timeout: float,
                 memory_mb: float, scheduler: str | None, progress: bool):
        self.root, self.assignment = root, assignment
        self.workers, self.force = workers, force
        self.notebook_timeout, self.memory_mb = notebook_timeout, memory_mb
        self.scheduler, self.progress = scheduler, progress
        self.folder = root / "grading" / assignment
        self.outcomes: list[Outcome] = []
        self.skipped: list[str] = []
        self.interrupted = False

    def ledger(self, student: str) -> Path:
        return self.folder / "done" / f"{student}.json"

    def is_done(self, student: str, print_: str, converter: BatchAutograde) -> bool:
        try:
            entry = json.loads(self.ledger(student).read_text())
        except (OSError, ValueError):
            return False
        if entry.get("fingerprint") != print_:
            return False
        try:  # a gradebook reset since then means grading again
            with Gradebook(converter.coursedir.db_url, converter.coursedir.course_id) as gb:
                gb.find_submission(self.assignment, student)
        except MissingEntry:
            return False
        return True

    def _executor(self):
        """A function running one notebook on a worker, and how many run at once."""
        limits = dict(notebook_timeout=self.notebook_timeout, memory_mb=self.memory_mb)
        if self.scheduler:
            from distributed import Client

            client = Client(self.scheduler, timeout="30s")
            slots = self.workers or sum(client.nthreads().values())

            def on_cluster(notebook: str, config: dict) -> Execution:
                return client.submit(execute_submission, notebook, execute_config=config, pure=False, **limits).result()

            return on_cluster, slots, client
        cores = sorted(os.sched_getaffinity(0))
        slots = self.workers or len(cores)
        free: queue.Queue[int] = queue.Queue()
        for slot in range(slots):
            free.put(cores[slot % len(cores)])

        def here(notebook: str, config: dict) -> Execution:
            core = free.get()
            try:
                return execute_submission(notebook, execute_config=config, core=core, stop=self._stop, **limits)
            finally:
                free.put(core)

        return here, slots, None

    def grade(self, converter: BatchAutograde, todo: list) -> None:
        self._stop = threading.Event()
        run_one, slots, client = self._executor()
        config = dict(converter.config.get("Execute", {}))
        config.setdefault("timeout", Execute.timeout.default_value)
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        progress = Progress(
            TextColumn(f"grading {self.assignment}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            disable=not self.progress,
        )
        task = progress.add_task("grade", total=len(todo), rate="")
        started = time.monotonic()
        waiting = list(todo)
        running: dict[Future, tuple] = {}
        pool = ThreadPoolExecutor(max_workers=slots)
        previous = signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops as cleanly as Ctrl-C
        try:
            with progress:
                while waiting or running:
                    # Keep every worker busy, one prepared submission ahead.
                    while waiting and len(running) < slots + 1:
                        assignment, student, notebooks, print_ = waiting.pop(0)
                        try:
                            prepared = converter._prepare(assignment, student, notebooks)
                        except Exception as error:  # a malformed notebook: recorded, the batch goes on
                            self._record(converter, student, print_, f"unreadable: {_first_line(error)}", None, 0.0)
                            progress.advance(task)
                            continue
                        if not prepared:
                            self._record(converter, student, print_, "", [], 0.0)
                            progress.advance(task)
                            continue
                        # One notebook per assignment is the course's rule; several run one after another.
                        future = pool.submit(lambda p=prepared: [(path, run_one(text, config)) for path, text in p])
                        running[future] = (student, print_, _refusals(prepared))
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in done:
                        student, print_, refused = running.pop(future)
                        results = future.result()
                        reason = next((e.failure for _, e in results if e.failure), "")
                        # Running time only, not the time spent queued behind other submissions.
                        seconds = sum(execution.seconds for _, execution in results)
                        self._record(converter, student, print_, reason, results, seconds, refused)
                        progress.advance(task)
                        per_minute = 60 * len(self.outcomes) / max(time.monotonic() - started, 1e-9)
                        progress.update(task, rate=f"{per_minute:.1f}/min")
        except KeyboardInterrupt:
            self.interrupted = True
            self._stop.set()
        finally:
            signal.signal(signal.SIGTERM, previous)
            pool.shutdown(wait=True, cancel_futures=True)
            close_launchers()
            if client is not None:
                client.close()

    def _record(self, converter: BatchAutograde, student: str, print_: str, reason: str, results, seconds: float,
                refused: str = "") -> None:
        assignment = self.assignment
        try:
            if results is None:
                converter._zero(assignment, student)
            for path, execution in results or []:
                executed = execution.notebook
                if executed is None:
                    ran = execution.partial or Path(path).read_text()
                    executed = converter._stopped_notebook(ran, execution.failure)
                converter._finish(path, executed)
            if results is not None:
                converter.set_permissions(assignment, student)
                converter.run_post_convert_hook()
        except Exception as error:  # e.g. tampered nbgrader metadata that CheckCellMetadata rejects
            reason = reason or f"ungradable: {_first_line(error)}"
            shutil.rmtree(converter._format_dest(assignment, student), ignore_errors=True)
            converter._zero(assignment, student)
        score, max_score, problems = converter._scores(assignment, student)
        # A refused cell (autograder/INTEGRITY.md) is graded, not failed: the rest of the notebook counted.
        note = "; ".join(filter(None, [reason, refused]))
        outcome = Outcome(student, "failed" if reason else "graded", note, score, max_score, problems,
                          round(seconds, 2), print_)
        _write_atomically(self.ledger(student), json.dumps(asdict(outcome), indent=1))
        self.outcomes.append(outcome)

    # --- what the instructor reads -----------------------------------------------------------

    def all_outcomes(self) -> list[Outcome]:
        """Every submission of the assignment graded so far, from the ledger (this run and earlier ones)."""
        entries = []
        for path in sorted((self.folder / "done").glob("*.json")):
            try:
                entries.append(Outcome(**json.loads(path.read_text())))
            except (ValueError, TypeError):
                continue
        return entries


def _refusals(prepared: list[tuple[str, str]]) -> str:
    """What the sanitize step refused to run (`RefuseTampering`), as one line for the ledger."""
    found = []
    for _, text in prepared:
        try:
            found += json.loads(text).get("metadata", {}).get("jax_course", {}).get("refused", [])
        except ValueError:
            pass
    return f"refused to run {'; '.join(found)}" if found else ""


def _interrupt(*_) -> None:
    raise KeyboardInterrupt


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:300]


def write_report(run: GradingRun) -> tuple[Path, Path]:
    """`report.csv` (one row per submission) and `report.html` (pass rates, histogram, failures)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    outcomes = run.all_outcomes()
    problems = sorted({name for o in outcomes for name in o.problems})
    csv_path, html_path = run.folder / "report.csv", run.folder / "report.html"
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["student", "status", "reason", "score", "max_score", "seconds", *problems])
    for o in outcomes:
        writer.writerow([o.student, o.status, o.reason, o.score, o.max_score, o.seconds,
                         *[o.problems.get(p, [0, 0])[0] for p in problems]])
    _write_atomically(csv_path, buffer.getvalue())

    figure, axes = plt.subplots(figsize=(6, 3))
    axes.hist([o.score for o in outcomes], bins=20)
    axes.set_xlabel("score")
    axes.set_ylabel("submissions")
    axes.set_title(f"{run.assignment}: {len(outcomes)} submissions")
    png = io.BytesIO()
    figure.savefig(png, format="png", bbox_inches="tight")
    plt.close(figure)
    import base64

    rates = "".join(
        f"<tr><td>{html.escape(p)}</td><td>{pass_rate(outcomes, p):.0%}</td><td>{mean_score(outcomes, p):.2f}</td></tr>"
        for p in problems
    )
    failures = "".join(
        f"<tr><td>{html.escape(o.student)}</td><td>{html.escape(o.reason)}</td><td>{o.score:g}</td></tr>"
        for o in outcomes if o.status != "graded"
    ) or "<tr><td colspan=3>none</td></tr>"
    page = f"""<!doctype html><meta charset="utf-8"><title>{html.escape(run.assignment)}: grading report</title>
<style>body{{font-family:sans-serif;max-width:50em;margin:2em auto}}td,th{{padding:.2em .8em;text-align:left}}</style>
<h1>{html.escape(run.assignment)}: {len(outcomes)} submissions</h1>
<p>Graded {sum(o.status == 'graded' for o in outcomes)}, stopped or failed {sum(o.status != 'graded' for o in outcomes)}.
One row per submission: <a href="report.csv">report.csv</a>.</p>
<h2>Score distribution</h2><img alt="histogram of scores" src="data:image/png;base64,{base64.b64encode(png.getvalue()).decode()}">
<h2>Problems</h2><table><tr><th>test</th><th>full marks</th><th>mean score</th></tr>{rates}</table>
<h2>Submissions that hit a limit or an error</h2><table><tr><th>student</th><th>reason</th><th>score</th></tr>{failures}</table>
"""
    _write_atomically(html_path, page)
    return csv_path, html_path


def pass_rate(outcomes: list[Outcome], problem: str) -> float:
    marks = [o.problems[problem] for o in outcomes if problem in o.problems]
    return sum(s >= m for s, m in marks) / len(marks) if marks else 0.0


def mean_score(outcomes: list[Outcome], problem: str) -> float:
    marks = [o.problems[problem][0] for o in outcomes if problem in o.problems]
    return sum(marks) / len(marks) if marks else 0.0


def summary_table(run: GradingRun):
    from rich.table import Table

    outcomes = run.all_outcomes()
    table = Table(title=f"{run.assignment}: {len(outcomes)} submissions graded in all")
    table.add_column("")
    table.add_column("")
    table.add_row("graded now", str(sum(o.status == "graded" for o in run.outcomes)))
    table.add_row("already graded (skipped)", str(len(run.skipped)))
    reasons: dict[str, int] = {}
    for o in run.outcomes:
        if o.status != "graded":
            key = o.reason.split(":")[0]
            reasons[key] = reasons.get(key, 0) + 1
    for reason, count in sorted(reasons.items()):
        table.add_row(f"failed now: {reason}", str(count))
    for problem in sorted({name for o in outcomes for name in o.problems}):
        table.add_row(f"mean score: {problem}", f"{mean_score(outcomes, problem):.2f}")
    return table


def grade(root: Path, assignment: str, *, workers: int = 0, force: bool = False, notebook_timeout: float = 900,
          memory_mb: float = 4096, scheduler: str | None = None, student: str | None = None,
          db_url: str | None = None, progress: bool = True) -> GradingRun:
    """Grade every submission of `assignment` under `root/submitted`; see the module docstring."""
    from nbgrader.apps.autogradeapp import AutogradeApp

    run = GradingRun(root, assignment, workers=workers, force=force, notebook_timeout=notebook_timeout,
                     memory_mb=memory_mb, scheduler=scheduler, progress=progress)
    # Only errors: nbgrader warns about every hidden test ("checksum has changed") by design.
    argv = [assignment, "--log-level=ERROR"]
    if db_url:
        argv.append(f"--CourseDirectory.db_url={db_url}")
    if student:
        argv.append(f"--CourseDirectory.student_id={student}")
    # nbgrader runs its gradebook migrations with `alembic`, by name, from this environment.
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    here = os.getcwd()
    os.chdir(root)
    try:
        app = AutogradeApp()
        app.initialize(argv)
        app.coursedir.assignment_id = assignment
        converter = BatchAutograde(coursedir=app.coursedir, parent=app, run=run)
        try:
            converter.start()
        except NbGraderException as error:
            raise GradingError(str(error)) from None
    finally:
        os.chdir(here)
    return run
