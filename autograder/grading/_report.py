"""What an instructor reads after `jax-course grade`: a summary table, `report.csv` and `report.html`."""

from __future__ import annotations

import base64
import csv
import io
from pathlib import Path

import jinja2
from rich.table import Table

from ._ledger import Outcome, write_atomically
from ._run import GradingRun

_TEMPLATES = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent), autoescape=True)


def pass_rate(outcomes: list[Outcome], problem: str) -> float:
    marks = [o.problems[problem] for o in outcomes if problem in o.problems]
    return sum(s >= m for s, m in marks) / len(marks) if marks else 0.0


def mean_score(outcomes: list[Outcome], problem: str) -> float:
    marks = [o.problems[problem][0] for o in outcomes if problem in o.problems]
    return sum(marks) / len(marks) if marks else 0.0


def _histogram(outcomes: list[Outcome], title: str) -> str:
    """A PNG histogram of the scores, base64-encoded for an <img> tag."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 3))
    axes.hist([o.score for o in outcomes], bins=20)
    axes.set_xlabel("score")
    axes.set_ylabel("submissions")
    axes.set_title(title)
    png = io.BytesIO()
    figure.savefig(png, format="png", bbox_inches="tight")
    plt.close(figure)
    return base64.b64encode(png.getvalue()).decode()


def write_report(run: GradingRun) -> tuple[Path, Path]:
    """`report.csv` (one row per submission) and `report.html` (pass rates, histogram, failures)."""
    outcomes = run.ledger.outcomes()
    problems = sorted({name for o in outcomes for name in o.problems})
    csv_path, html_path = run.folder / "report.csv", run.folder / "report.html"
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["student", "status", "reason", "score", "max_score", "seconds", "seed", *problems])
    for o in outcomes:
        writer.writerow(
            [
                o.student,
                o.status,
                o.reason,
                o.score,
                o.max_score,
                o.seconds,
                "" if o.seed is None else o.seed,
                *[o.problems.get(p, [0, 0])[0] for p in problems],
            ]
        )
    write_atomically(csv_path, buffer.getvalue())
    page = _TEMPLATES.get_template("report.html.jinja").render(
        assignment=run.assignment,
        outcomes=outcomes,
        graded=sum(o.status == "graded" for o in outcomes),
        histogram=_histogram(outcomes, f"{run.assignment}: {len(outcomes)} submissions"),
        problems=[dict(name=p, pass_rate=pass_rate(outcomes, p), mean=mean_score(outcomes, p)) for p in problems],
        failures=[o for o in outcomes if o.status != "graded"],
        seeds=_seeds(run, outcomes),
    )
    write_atomically(html_path, page)
    return csv_path, html_path


def _seeds(run: GradingRun, outcomes: list[Outcome]) -> str:
    """Which seeds the submissions' hidden inputs came from: this run's, and any other an earlier run used."""
    others = sorted({o.seed for o in outcomes if o.seed is not None and (not run.seed or o.seed != run.seed.seed)})
    said = [run.seed.describe()] if run.seed else []
    if others:
        said.append(f"seed {', '.join(map(str, others))} for submissions graded earlier")
    return "; ".join(said)


def summary_table(run: GradingRun) -> Table:
    """What this run did, and the mean score of each problem over every submission graded so far."""
    outcomes = run.ledger.outcomes()
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
    for problem in sorted({name for o in outcomes for name in o.problems}):
        table.add_row(f"mean score: {problem}", f"{mean_score(outcomes, problem):.2f}")
    return table
