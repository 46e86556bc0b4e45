"""Item analysis: what a class got wrong, per problem and test cell, and why.

It reads any nbgrader course, however it was graded (stock `nbgrader autograde`, the hub, `jax-course grade`):
the scores from the gradebook, through nbgrader's API, and what each failed test cell said from the notebooks
under `autograded/`. A cause is a failure message's first line with its numbers and quoted values taken out, so
that the same mistake made on other inputs counts once.
"""

from __future__ import annotations

import json
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..selfcheck._selfreport import read_results, reread_of

# Below this, a test does not tell strong submissions from weak ones: check the test, or the teaching.
WEAK_DISCRIMINATION = 0.1
# The share of submissions in each of the top and bottom groups of the upper-lower index (Kelley's 27%).
GROUP = 0.27
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.])")
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
# What a test cell says when a limit stopped the notebook: jax-course grade's note, or the course's cell timeout.
_LIMIT = re.compile(r"^(GradingStopped: )?(timeout|memory)\b|^stopped: ")


@dataclass(frozen=True)
class Item:
    """One graded cell, over the class."""

    notebook: str
    test: str
    problem: str
    points: float
    pass_rate: float
    mean: float
    point_biserial: float | None  # with the rest of the score; None where everyone scored the same
    upper_lower: float | None  # pass rate of the top 27% minus that of the bottom 27%

    @property
    def flagged(self) -> bool:
        """Near-zero or negative discrimination: strong submissions fail it as often as weak ones, or more."""
        return self.point_biserial is not None and self.point_biserial < WEAK_DISCRIMINATION


@dataclass(frozen=True)
class Cause:
    """One reason a test failed, and who it failed that way."""

    test: str
    problem: str
    cause: str
    reread: str | None
    students: tuple[str, ...]


@dataclass
class ItemAnalysis:
    assignment: str
    students: list[str]
    items: list[Item]
    causes: list[Cause]  # by test, the most common first
    limits: dict[str, int] = field(default_factory=dict)  # problem -> submissions stopped in it by a limit
    full_marks: dict[str, float] = field(default_factory=dict)  # problem -> share of submissions passing all its tests


def cause_of(message: str) -> str:
    """A failure message's first line, with what varies from one submission to the next taken out."""
    first = (message.strip().splitlines() or ["no message"])[0]
    return _NUMBER.sub("#", _QUOTED.sub("'…'", first)).strip()


def _point_biserial(item: list[float], rest: list[float]) -> float | None:
    if len(set(item)) < 2 or len(set(rest)) < 2:
        return None
    return statistics.correlation(item, rest)


def _upper_lower(item: list[float], totals: list[float]) -> float | None:
    size = max(1, round(GROUP * len(totals)))
    if len(totals) < 2 * size:
        return None
    ranked = sorted(range(len(totals)), key=lambda i: totals[i])
    lower, upper = ranked[:size], ranked[-size:]
    return sum(item[i] for i in upper) / size - sum(item[i] for i in lower) / size


def course_gradebook(root: Path, db_url: str | None) -> str:
    """`db_url`, else the course's own `gradebook.db` (nbgrader's default)."""
    return db_url or f"sqlite:///{root / 'gradebook.db'}"


def missing_gradebook(db_url: str) -> Path | None:
    """The SQLite file `db_url` names, if there is none: opening it would make an empty gradebook there."""
    from sqlalchemy.engine import make_url

    url = make_url(db_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return None if Path(url.database).exists() else Path(url.database)


def _read_gradebook(db_url: str, assignment: str) -> dict[str, dict[tuple[str, str], tuple[float, float]]]:
    """`{student: {(notebook, grade_id): (score, max_score)}}` of every submission of `assignment` (none if the
    gradebook is a SQLite file not there: a report writes nothing in the course)."""
    from nbgrader.api import Gradebook

    scores: dict[str, dict[tuple[str, str], tuple[float, float]]] = {}
    if missing_gradebook(db_url):
        return scores
    with Gradebook(db_url) as gb:
        for submission in gb.assignment_submissions(assignment):
            scores[str(submission.student_id)] = {
                (notebook.name, grade.name): (float(grade.score), float(grade.max_score))
                for notebook in submission.notebooks
                for grade in notebook.grades
            }
    return scores


def _messages(autograded: Path, student: str, assignment: str, notebook: str) -> tuple[dict[str, str], dict]:
    """What each graded cell of one autograded notebook said, and its problem names; empty if it is missing."""
    try:
        nb = json.loads((autograded / student / assignment / f"{notebook}.ipynb").read_text())
        results = read_results(nb, None)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # missing, or not a notebook: no messages
        return {}, {}
    return {r.test: r.message for r in results}, {r.test: r.problem for r in results}


def analyse(root: Path, assignment: str, db_url: str | None = None) -> ItemAnalysis:
    """The item analysis of `assignment` in the course at `root` (gradebook: `db_url`, else `root/gradebook.db`)."""
    scores = _read_gradebook(course_gradebook(root, db_url), assignment)
    students = sorted(scores)
    keys = sorted({key for graded in scores.values() for key in graded})
    said: dict[str, dict[str, str]] = {}
    problems: dict[str, str] = {}
    limits: dict[str, int] = defaultdict(int)
    for student in students:
        said[student] = {}
        for notebook in sorted({name for name, _ in keys}):
            messages, names = _messages(root / "autograded", student, assignment, notebook)
            said[student].update(messages)
            problems.update(names)
        stopped = next((t for _, t in keys if _LIMIT.match(said[student].get(t, ""))), None)
        if stopped is not None:
            limits[problems.get(stopped, stopped)] += 1
    order = {test: n for n, test in enumerate(problems)}  # as the notebooks have them
    keys.sort(key=lambda key: (key[0], order.get(key[1], len(order)), key[1]))
    totals = [sum(score for score, _ in scores[s].values()) for s in students]
    items, causes = [], []
    for notebook, test in keys:
        points = max((scores[s].get((notebook, test), (0.0, 0.0))[1] for s in students), default=0.0)
        got = [scores[s].get((notebook, test), (0.0, points))[0] for s in students]
        passed = [1.0 if points and g >= points else 0.0 for g in got]
        rest = [total - g for total, g in zip(totals, got, strict=True)]
        problem = problems.get(test, test)
        items.append(
            Item(
                notebook,
                test,
                problem,
                points,
                sum(passed) / len(students) if students else 0.0,
                statistics.fmean(got) if got else 0.0,
                _point_biserial(got, rest),
                _upper_lower(passed, totals),
            )
        )
        grouped: dict[str, list[str]] = defaultdict(list)
        rereads: dict[str, str | None] = {}
        for student, score in zip(students, got, strict=True):
            message = said[student].get(test, "")
            if score < points and message:
                grouped[cause_of(message)].append(student)
                rereads.setdefault(cause_of(message), reread_of(message))
        for cause, who in sorted(grouped.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            causes.append(Cause(test, problem, cause, rereads[cause], tuple(who)))
    passed_all: dict[str, list[bool]] = defaultdict(lambda: [True] * len(students))
    for notebook, test in keys:
        points = next(i.points for i in items if (i.notebook, i.test) == (notebook, test))
        for n, student in enumerate(students):
            if scores[student].get((notebook, test), (0.0, points))[0] < points:
                passed_all[problems.get(test, test)][n] = False
    full_marks = {problem: sum(flags) / len(flags) for problem, flags in passed_all.items()}
    return ItemAnalysis(assignment, students, items, causes, dict(limits), full_marks)
