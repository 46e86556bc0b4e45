"""What an instructor reads after `jax-course grade`: a summary table, `report.csv` and `report.html`."""

from __future__ import annotations

import base64
import csv
import importlib
import io
from collections.abc import Sequence
from pathlib import Path

import jinja2
from rich.table import Table

from ..batch._ledger import Outcome, write_atomically
from ..batch._run import GradingRun
from ._items import WEAK_DISCRIMINATION, ItemAnalysis, analyse

_TEMPLATES = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent), autoescape=True)


# In report.csv, a cell that waits for its manual grade: not a zero (nbgrader's formgrader lists it to grade).
MANUAL = "needs manual grade"


def _graded(outcomes: list[Outcome], problem: str) -> list[tuple[float, float]]:
    """`(score, max)` of `problem` in each submission that has it graded (not waiting for a manual grade)."""
    marks = (o.problems.get(problem) for o in outcomes)
    return [(float(m[0]), float(m[1] or 0)) for m in marks if m is not None and m[0] is not None]


def pass_rate(outcomes: list[Outcome], problem: str) -> float:
    marks = _graded(outcomes, problem)
    return sum(s >= m for s, m in marks) / len(marks) if marks else 0.0


def mean_score(outcomes: list[Outcome], problem: str) -> float:
    marks = _graded(outcomes, problem)
    return sum(s for s, _ in marks) / len(marks) if marks else 0.0


def _cell(outcome: Outcome, problem: str) -> object:
    found = outcome.problems.get(problem)
    return 0 if found is None else MANUAL if found[0] is None else found[0]


# Fewer submissions than this make no chart: a distribution, or a comparison across a class, needs a class. The
# tables say the same, and matplotlib, which costs a regrade of one student more than its notebook, is not imported.
CLASS = 2
# What the charts are drawn with.
CHART_LIBRARIES = ("matplotlib.figure", "matplotlib.backends.backend_agg")


def _figure(figsize: tuple[float, float]):
    """A new matplotlib figure and its axes, drawn off screen (no pyplot: no global figures, no GUI backend)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize)
    return figure, figure.subplots()


def _png(figure) -> str:
    """`figure` as a PNG, base64-encoded for an <img> tag."""
    png = io.BytesIO()
    figure.savefig(png, format="png", bbox_inches="tight")
    return base64.b64encode(png.getvalue()).decode()


def _histogram(outcomes: list[Outcome], title: str) -> str:
    """A PNG histogram of the scores, base64-encoded for an <img> tag."""
    figure, axes = _figure((6, 3))
    axes.hist([o.score for o in outcomes], bins=20)
    axes.set_xlabel("score")
    axes.set_ylabel("submissions")
    axes.set_title(title)
    return _png(figure)


ITEM_COLUMNS = [
    "notebook",
    "problem",
    "test",
    "points",
    "pass_rate",
    "mean_score",
    "point_biserial",
    "upper_lower",
    "flag",
]


def _bars(labels: Sequence[str], values: Sequence[float], title: str, xlabel: str) -> str:
    """A PNG horizontal bar chart, base64-encoded for an <img> tag."""
    figure, axes = _figure((7, 0.4 * len(labels) + 1.2))
    axes.barh(range(len(labels)), values)
    axes.set_yticks(range(len(labels)), [label if len(label) < 70 else label[:67] + "..." for label in labels])
    axes.invert_yaxis()
    axes.set_xlabel(xlabel)
    axes.set_title(title)
    return _png(figure)


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def write_items(analysis: ItemAnalysis, folder: Path) -> str:
    """`items.csv` (a row per test) and `causes.csv` (a row per cause and student) in `folder`; returns the
    HTML section that `report.html` and `items.html` show."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(ITEM_COLUMNS)
    for i in analysis.items:
        flag = "check this test or this teaching" if i.flagged else ""
        row = [i.notebook, i.problem, i.test, i.points, round(i.pass_rate, 4), round(i.mean, 4)]
        writer.writerow([*row, _number(i.point_biserial), _number(i.upper_lower), flag])
    write_atomically(folder / "items.csv", buffer.getvalue())
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["problem", "test", "cause", "reread", "student"])
    for c in analysis.causes:
        writer.writerows([c.problem, c.test, c.cause, c.reread or "", student] for student in c.students)
    write_atomically(folder / "causes.csv", buffer.getvalue())
    rates = analysis.full_marks
    top = [c for n, c in enumerate(analysis.causes) if c.test not in {d.test for d in analysis.causes[:n]}]
    causes = [f"{c.test}: {c.cause}" for c in top], [len(c.students) for c in top]
    charts = len(analysis.students) >= CLASS
    return _TEMPLATES.get_template("items.html.jinja").render(
        analysis=analysis,
        weak=WEAK_DISCRIMINATION,
        number=_number,
        pass_rate_plot=_bars(
            list(rates), [100 * r for r in rates.values()], "Full marks per problem", "submissions (%)"
        )
        if charts
        else "",
        pass_rate_alt="Bar chart of the share of submissions with full marks on each problem: "
        + "; ".join(f"{problem}, {rate:.0%}" for problem, rate in rates.items()),
        causes_plot=_bars(*causes, "The most common cause of failure, per test", "submissions")
        if top and charts
        else "",
        causes_alt="Bar chart of the most common cause of failure of each test, in submissions: "
        + "; ".join(f"{label}, {count}" for label, count in zip(*causes, strict=True)),
    )


def write_items_page(analysis: ItemAnalysis, folder: Path) -> Path:
    """`items.html`: the item analysis alone, for a gradebook that `jax-course grade` did not fill."""
    section = write_items(analysis, folder)
    page = _TEMPLATES.get_template("items_page.html.jinja").render(assignment=analysis.assignment, section=section)
    write_atomically(folder / "items.html", page)
    return folder / "items.html"


def write_report(run: GradingRun) -> tuple[Path, Path]:
    """`report.csv` (one row per submission) and `report.html` (pass rates, histogram, failures, item analysis)."""
    outcomes = run.current()
    problems = sorted({name for o in outcomes for name in o.problems})
    csv_path, html_path = run.folder / "report.csv", run.folder / "report.html"
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    # score, raw_score and late_submission_penalty as `nbgrader export` writes them.
    header = ["student", "status", "reason", "score", "max_score", "raw_score", "late_submission_penalty"]
    writer.writerow([*header, "seconds", "seed", *problems])
    for o in outcomes:
        seed = "" if o.seed is None else o.seed
        row = [o.student, o.status, o.reason, o.score, o.max_score, o.raw_score, o.penalty, o.seconds, seed]
        writer.writerow([*row, *[_cell(o, p) for p in problems]])
    write_atomically(csv_path, buffer.getvalue())
    page = _TEMPLATES.get_template("report.html.jinja").render(
        assignment=run.assignment,
        outcomes=outcomes,
        graded=sum(o.status == "graded" for o in outcomes),
        histogram=_histogram(outcomes, f"{run.assignment}: {len(outcomes)} submissions") if draws(outcomes) else "",
        problems=[dict(name=p, pass_rate=pass_rate(outcomes, p), mean=mean_score(outcomes, p)) for p in problems],
        failures=[o for o in outcomes if o.status != "graded"],
        warnings=run.warnings,
        noted=[o for o in outcomes if o.status == "graded" and o.reason],
        seeds=_seeds(run, outcomes),
        items=write_items(analyse(run.folder.parents[1], run.assignment, run.db_url), run.folder) if outcomes else "",
    )
    write_atomically(html_path, page)
    return csv_path, html_path


def draws(outcomes: list[Outcome]) -> bool:
    """Whether the report of these submissions has charts."""
    return len(outcomes) >= CLASS


def prepare_charts(run: GradingRun, students: list[str]) -> None:
    """Import what the report will draw with, if it will draw once `students` are graded too: while a notebook
    runs, rather than after it."""
    if len({o.student for o in run.ledger.outcomes()} | set(students)) >= CLASS:
        for name in CHART_LIBRARIES:
            importlib.import_module(name)


def _seeds(run: GradingRun, outcomes: list[Outcome]) -> str:
    """Which seeds the submissions' hidden inputs came from: this run's, and any other an earlier run used."""
    others = sorted({o.seed for o in outcomes if o.seed is not None and (not run.seed or o.seed != run.seed.seed)})
    said = [run.seed.describe()] if run.seed else []
    if others:
        said.append(f"seed {', '.join(map(str, others))} for submissions graded earlier")
    return "; ".join(said)


def summary_table(run: GradingRun) -> Table:
    """What this run did, and the mean score of each problem over every submission graded so far."""
    outcomes = run.current()
    table = Table(title=f"{run.assignment}: {len(outcomes)} submissions graded in all")
    table.add_column("")
    table.add_column("")
    table.add_row("graded now", str(sum(o.status == "graded" for o in run.outcomes)))
    table.add_row("already graded (skipped)", str(len(run.skipped)))
    if seeds := _seeds(run, outcomes):
        table.add_row("hidden inputs from", seeds)
    reasons: dict[str, int] = {}
    for o in run.outcomes:
        if o.status != "graded":
            key = f"failed now: {o.reason.split(':')[0]}" if o.status == "failed" else "no notebook handed in"
            reasons[key] = reasons.get(key, 0) + 1
    for reason, count in sorted(reasons.items()):
        table.add_row(reason, str(count))
    if waiting := sum(any(m[0] is None for m in o.problems.values()) for o in outcomes if o.status == "graded"):
        table.add_row("waiting for a manual grade", str(waiting))
    for problem in sorted({name for o in outcomes for name in o.problems}):
        table.add_row(f"mean score: {problem}", f"{mean_score(outcomes, problem):.2f}")
    return table
