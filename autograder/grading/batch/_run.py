"""`jax-course grade`: a whole class, graded in parallel, resumably, with nbgrader's own machinery.

This process does everything nbgrader's `autograde` does except running the notebooks
(`_convert.py`), so the gradebook is written by one process only. Workers (threads
here, each driving a limited child process, or Dask workers) only execute notebooks
(`_runner.py`). The ledger (`_ledger.py`) makes a rerun grade only what is new or
unfinished; nbgrader's gradebook updates rows in place, so an interrupted batch
neither loses nor duplicates a grade.
"""

from __future__ import annotations

import glob
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ..plugins._gradebook import without_sqlalchemy_warnings
from ..plugins._preprocessors import exchange_root
from ..references._seed import GradingSeed, for_grading, remember
from ._convert import HEARD, BatchAutograde, PartlyPrepared, Submission, open_course, read_scores
from ._failures import brought_down_twice, failure_reason, report_notes
from ._ledger import Ledger, Outcome, fingerprint
from ._runner import THREAD_LIMITS, Execution, stop_forkserver
from ._workers import Runner, execute_all, on_cluster, on_this_machine


@dataclass
class GradingRun:
    """The options of one `jax-course grade` and what it produced."""

    assignment: str
    folder: Path
    workers: int = 0
    notebook_timeout: float = 900
    memory_mb: float = 4096
    scheduler: str | None = None
    progress: bool = True
    outcomes: list[Outcome] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    interrupted: bool = False
    seed: GradingSeed | None = None  # where hidden inputs came from; None: the assignment has none
    db_url: str | None = None  # the gradebook's, once the course is open
    course_id: str = ""
    warnings: list[str] = field(default_factory=list)  # nbgrader's about its configuration, not a submission

    @property
    def ledger(self) -> Ledger:
        return Ledger(self.folder)

    def current(self) -> list[Outcome]:
        """Every submission graded so far, this run and earlier ones, with its scores as the gradebook holds
        them now (manual grades given since, a late penalty changed)."""
        outcomes = self.ledger.outcomes()
        if self.db_url is None:
            return outcomes
        graded = [o for o in outcomes if o.status != "missing"]
        scores = read_scores(self.db_url, self.course_id, self.assignment, [o.student for o in graded])
        for o in graded:
            now = scores[o.student]
            o.score, o.max_score, o.problems = now.score, now.max_score, now.problems
            o.raw_score, o.penalty = now.raw_score, now.penalty
        return outcomes


def _interrupt(*_) -> None:
    raise KeyboardInterrupt


def _say() -> logging.Logger:
    """What the grader tells the instructor outside the report (a new course seed), on stderr."""
    log = logging.getLogger("jax-course grade")
    if not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("jax-course grade: %(message)s"))
        log.addHandler(handler)
        log.propagate = False
    return log


def _record(
    run: GradingRun,
    converter: BatchAutograde,
    submission: Submission,
    reason: str,
    results: list[tuple[str, Execution]] | None,
    seconds: float,
    notes: str = "",
) -> None:
    """Finish a submission in the gradebook, or fail it as nbgrader does; then write its ledger entry."""
    student = submission.student
    try:
        # Each notebook up to the first that could not be run counts, as under nbgrader, which stops there.
        for path, execution in results or []:
            if execution.notebook is None:
                break
            converter.finish(student, path, execution.notebook)
        if not reason and results is not None:
            converter.close(student)
    except Exception as error:  # e.g. tampered nbgrader metadata that CheckCellMetadata rejects
        reason = reason or failure_reason(error)
    if reason:
        converter.fail(submission)
    HEARD.student = None
    course = converter.course
    scores = read_scores(course.db_url, course.course_id, course.assignment_id, [student])[student]
    # A refused cell (autograder/INTEGRITY.md) is graded, not failed: the rest of the notebook counted.
    note = "; ".join(filter(None, [reason, notes, *[f"nbgrader: {said}" for said in HEARD.take(student)]]))
    outcome = Outcome(
        student,
        "failed" if reason else "graded",
        note,
        scores.score,
        scores.max_score,
        scores.problems,
        round(seconds, 2),
        submission.fingerprint,
        run.seed.seed if run.seed else None,
        scores.raw_score,
        scores.penalty,
    )
    run.ledger.record(outcome)
    run.outcomes.append(outcome)


def _progress(run: GradingRun) -> Progress:
    return Progress(
        TextColumn(f"grading {run.assignment}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        disable=not run.progress,
    )


def _grade_all(
    run: GradingRun,
    converter: BatchAutograde,
    todo: list[Submission],
    runner: Runner,
    slots: int,
    stop: threading.Event,
) -> None:
    """Keep every worker busy, one prepared submission ahead; record each as it finishes."""
    config, expected = converter.execute_config(), converter.expected_notebooks
    progress = _progress(run)
    task = progress.add_task("grade", total=len(todo), rate="")
    started, waiting = time.monotonic(), list(todo)
    running: dict[Future, tuple[Submission, str, str]] = {}
    pool = ThreadPoolExecutor(max_workers=slots)
    try:
        with progress:
            while waiting or running:
                while waiting and len(running) < slots + 1:
                    submission = waiting.pop(0)
                    unreadable = ""
                    try:
                        prepared = converter.prepare(submission)
                    except PartlyPrepared as partly:  # a malformed notebook: the ones before it are graded
                        prepared, unreadable = partly.sanitized, failure_reason(partly.__cause__ or partly)
                    except Exception as error:  # recorded, and the batch goes on
                        prepared, unreadable = [], failure_reason(error)
                    if not prepared:
                        _record(run, converter, submission, unreadable, None, 0.0)
                        progress.advance(task)
                        continue
                    # One notebook per assignment is the course's rule; several run one after another.
                    env = {**os.environ, **(run.seed.verifier_environment() if run.seed else {})}
                    future = pool.submit(
                        execute_all, runner, config, prepared, run.assignment, env, run.notebook_timeout, run.memory_mb
                    )
                    running[future] = (submission, unreadable, report_notes(submission.folder, prepared, expected))
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    submission, unreadable, notes = running.pop(future)
                    results = future.result()
                    # Running time only, not the time spent queued behind other submissions.
                    seconds = sum(execution.seconds for _, execution in results)
                    if (lost := next((e.failure for _, e in results if e.lost and e.failure), None)) is not None:
                        if (reason := _lost(run, submission, lost)) is None:
                            waiting.insert(0, submission)  # once more, next
                            continue
                        _record(run, converter, submission, reason, None, seconds, notes)
                    else:
                        reason = next((e.failure for _, e in results if e.failure), None) or unreadable
                        _record(run, converter, submission, reason, results, seconds, notes)
                    per_minute = 60 * len(run.outcomes) / max(time.monotonic() - started, 1e-9)
                    progress.update(task, advance=1, rate=f"{per_minute:.1f}/min")
    finally:
        stop.set()  # on Ctrl-C: running notebooks are stopped, queued ones never start
        pool.shutdown(wait=True, cancel_futures=True)


def _lost(run: GradingRun, submission: Submission, failure: str) -> str | None:
    """A submission whose grading process was killed (`failure` says how): None the first time, to grade it
    once more; the second time, in this run or an earlier one, why it is not graded."""
    before = run.ledger.lost_before(submission.student, submission.fingerprint)
    if before is None:
        run.ledger.note_lost(submission.student, submission.fingerprint, failure)
        return None
    return brought_down_twice(run.assignment, submission.student, [before, failure])


def _to_grade(run: GradingRun, converter: BatchAutograde, force: bool) -> list[Submission]:
    """The submissions to grade: not those done before and unchanged. Folders without a notebook are
    recorded as missing, as nbgrader leaves them ungraded."""
    todo = []
    seed = run.seed.seed if run.seed else None
    for submission in converter.submissions:
        entry = run.ledger.entry(submission.student)
        if not force and converter.done(submission, entry) and entry and entry.seed == seed:
            run.skipped.append(submission.student)
        else:
            todo.append(submission)
    for student, folder in converter.without_notebooks():
        expected = ", ".join(converter.expected_notebooks)
        reason = f"missing: {os.path.relpath(folder)} holds no notebook (expected {expected}): nothing to grade"
        outcome = Outcome(student, "missing", reason, 0.0, 0.0, {}, 0.0, fingerprint(folder))
        run.ledger.record(outcome)
        run.outcomes.append(outcome)
    return todo


# The gradebook is written in this process only (`_convert.py`): what SQLAlchemy says of nbgrader's use of it
# would show in the instructor's terminal with every run, and they can do nothing about it.
@without_sqlalchemy_warnings()
def grade(
    root: Path,
    assignment: str,
    *,
    workers: int = 0,
    force: bool = False,
    notebook_timeout: float = 900,
    memory_mb: float = 4096,
    scheduler: str | None = None,
    student: str | None = None,
    db_url: str | None = None,
    nbgrader_options: list[str] | None = None,
    progress: bool = True,
    while_running: Callable[[GradingRun, list[str]], None] | None = None,
) -> GradingRun:
    """Grade every submission of `assignment` under `root/submitted`; see the module docstring. `while_running`
    is called in a thread of its own as notebooks start to run, with the run and the students about to be graded."""
    run = GradingRun(
        assignment,
        root / "grading" / assignment,
        workers=workers,
        notebook_timeout=notebook_timeout,
        memory_mb=memory_mb,
        scheduler=scheduler,
        progress=progress,
    )
    here = os.getcwd()
    os.chdir(root)
    stop, client = threading.Event(), None
    previous = signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops as cleanly as Ctrl-C
    try:
        # First: the forkserver's imports then overlap nbgrader's start-up.
        limits: dict[str, Any] = dict(notebook_timeout=notebook_timeout, memory_mb=memory_mb)
        if scheduler:
            client, runner, slots = on_cluster(scheduler, run.workers, limits)
        else:
            # One student by name: one notebook, so no kernel libraries for a forkserver to share.
            alone = student is not None and not glob.has_magic(student)
            runner, slots = on_this_machine(run.workers, limits, stop, alone)
        # The verifier's memory is the notebook's: what `Verify` gives it when it verifies here (`execute_all` verifies
        # ahead, with the notebook's time left too).
        options = [*(nbgrader_options or []), f"--Verify.memory_mb={memory_mb}"]
        converter = open_course(assignment, db_url=db_url, student=student, options=options)
        course = converter.course
        run.db_url, run.course_id = course.db_url, course.course_id
        run.seed = for_grading(root, Path(course.root) / course.source_directory, assignment, _say(), THREAD_LIMITS)
        if run.seed:  # sent with every notebook from now on (the runners read `limits` at each call)
            protected = run.seed.kept_from_kernels(root, exchange_root(converter.config))
            limits.update(run.seed.for_each_notebook(assignment), protected=protected)
            remember(root, assignment, run.seed)
        todo = _to_grade(run, converter, force)
        if todo and while_running is not None:
            threading.Thread(target=while_running, args=(run, [s.student for s in todo]), daemon=True).start()
        _grade_all(run, converter, todo, runner, slots, stop)
    except KeyboardInterrupt:
        run.interrupted = True
    finally:
        signal.signal(signal.SIGTERM, previous)
        stop_forkserver()
        run.warnings = [said.splitlines()[0][:300] for said in HEARD.general]
        if client is not None:
            client.close()
        os.chdir(here)
    return run
