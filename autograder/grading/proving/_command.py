"""`jax-course prove`'s command: record, prove, print the scorecard, write the tables the proof changes."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..._config import PACKAGE_REFERENCES
from ..authoring._share import graded_tests, share_table, update_integrity
from ..references._references import record_references
from . import _tables
from ._declared import declared
from ._judge import WHOLE_SET
from ._prove import Proof, prove
from ._run import ProofError, build_release, layout
from ._sets import ExerciseSet


def _score(score: float | None) -> str:
    return "-" if score is None else f"{score:g}"


def scorecard(proof: Proof) -> Table:
    """Per test: each answer's expected and actual score, where it failed, and its message's first line."""
    table = Table(title=f"{proof.exercise.name}: what each answer scores", show_lines=False, expand=True)
    for column in ("test", "answer", "must score", "scores", "caught", "its message"):
        table.add_column(column, overflow="fold")
    by_test: dict[str, list] = {}
    for row in proof.rows:
        by_test.setdefault(row.test, []).append(row)
    for test in proof.tests:
        for n, row in enumerate(by_test.get(test, [])):
            got = sorted({_score(s) for s in row.got.values()})
            scores = got[0] if len(got) == 1 else ", ".join(f"{_score(s)} ({p})" for p, s in row.got.items())
            style = None if row.holds else "bold red"
            name = f"{test} ({proof.exercise.points[test]:g})" if n == 0 else ""
            # A message is a submission's text: shown as written, never read as rich's markup.
            cells = (name, row.answer, f"{row.expected:g}", scores, row.caught, row.message[:160])
            table.add_row(*map(escape, cells), style=style)
        table.add_section()
    return table


def report(proof: Proof, console: Console) -> None:
    console.print(scorecard(proof))
    for gap in proof.findings.gaps:
        console.print(f"[yellow]not yet proven[/]: {escape(gap)}")
    if proof.sound:
        console.print(f"[green]{proof.exercise.name}: sound[/] ({len(proof.tests)} tests proven)")
        return
    console.print(f"[bold red]{proof.exercise.name}: not sound[/]")
    for test, reasons in proof.findings.unsound.items():
        where = test if test == WHOLE_SET else f"{test} ({proof.exercise.problem_of(test)})"
        for why in reasons:
            console.print(f"  {escape(where)}: {escape(why)}")


def _build(root: Path, assignment: str, console: Console) -> None:
    """The course's own release and references, as `make exercises` and `make references` make them."""
    console.print(f"Building the release of {assignment}, and recording its references ...")
    build_release(root, assignment)
    source = root / layout(root).source
    if ExerciseSet(root, assignment, source.name).uses_checks:  # a set of another course compares no references
        record_references(assignment, root, PACKAGE_REFERENCES, source=source)


def _write_tables(root: Path, proof: Proof, console: Console) -> None:
    """The course's pages that show what its sets prove, this set's rows written anew."""
    exercise, variants = proof.exercise, declared(root, proof.exercise.name)
    if len(proof.tests) == len(exercise.points):  # a whole set's proof: one problem's does not grade every answer
        bypass = _tables.bypass_rows(exercise, variants, proof.bypassed)
        if _tables.rewrite(root, exercise.name, bypass, _tables.variant_rows(exercise, variants, proof.caught)):
            console.print(f"Wrote {exercise.name}'s rows of {_tables.PAGE}")
    integrity = root / "autograder" / "INTEGRITY.md"
    if integrity.is_file():
        update_integrity(integrity, share_table(graded_tests(root / layout(root).source)))
        console.print(f"Wrote the table of verified tests in {integrity.relative_to(root)}")


def run_prove(root: Path, assignment: str, *, problem: str | None, once: bool, workers: int, write: bool) -> int:
    # Piped or logged, a wider page than rich's 80 columns keeps the scorecard's messages readable.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    start = time.perf_counter()
    source = root / layout(root).source
    if not (source / assignment / f"{assignment}.ipynb").is_file():
        print(
            f"jax-course prove: no {source.name}/{assignment}/{assignment}.ipynb in {root} (start one with "
            f"`jax-course new {assignment} --problem NAME`)",
            file=sys.stderr,
        )
        return 2
    try:
        declared(root, assignment)
    except Exception as error:  # the author's own file: whatever it raises, said with where it is
        print(f"jax-course prove: tests/variants/{assignment}.py cannot be read: {error!r}", file=sys.stderr)
        return 2
    try:
        if write:
            _build(root, assignment, console)
        what = f"problem {problem} of {assignment}" if problem else assignment
        console.print(f"Proving {what}: grading its answers in {'one pipeline each' if once else 'both pipelines'} ...")
        proof = prove(root, assignment, problem=problem, once=once, workers=workers)
    except (ProofError, ValueError, SystemExit) as error:
        print(f"jax-course prove: {error}", file=sys.stderr)
        return 2
    report(proof, console)
    if write and proof.sound:
        _write_tables(root, proof, console)
    console.print(f"({time.perf_counter() - start:.0f} s)")
    return 0 if proof.sound else 1
