"""A self-check's results: each test cell's verdict, in words a self-learner can act on."""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .._cells import grade_id_if_test

_REREAD = re.compile(r"Reread: (\S+)")
# JupyterLab right-aligns table cells; a report reads from the left.
_LEFT = ' style="text-align:left"'


def reread_of(message: str) -> str | None:
    """The lecture section a failure message's "Reread:" line points to, if it has one."""
    found = _REREAD.search(message)
    return found.group(1) if found else None


@dataclass(frozen=True)
class ProblemResult:
    """One graded test cell of a notebook, as a self-learner sees it."""

    problem: str
    test: str
    points: float
    max_points: float
    message: str
    timed: bool = False  # its test measures speed (`check_speedup`)

    @property
    def passed(self) -> bool:
        return self.points >= self.max_points

    @property
    def reread(self) -> str | None:
        return reread_of(self.message)


@dataclass(frozen=True)
class SelfCheck:
    notebook: Path
    results: list[ProblemResult]
    hidden_tests: bool
    timing: str
    timing_reason: str
    unwalled: str = ""  # what this computer could not wall the notebook's code from (`_sandbox.shortfall`)

    @property
    def score(self) -> tuple[float, float]:
        return sum(r.points for r in self.results), sum(r.max_points for r in self.results)

    def report(self) -> str:
        got, total = self.score
        tests = (
            "visible and hidden tests"
            if self.hidden_tests
            else "visible tests only (this notebook is not one of the course's exercise sets)"
        )
        lines = [f"Self-check of {self.notebook.name}: {tests}", ""]
        width = max((len(r.problem) for r in self.results), default=10)
        for r in self.results:
            mark = "passed" if r.passed else "FAILED"
            lines.append(f"  {mark}  {r.problem:<{width}}  {r.points:g}/{r.max_points:g}  ({r.test}){self._untimed(r)}")
            if not r.passed:
                # The whole message, as the notebook shows it: JAX's explanation, "Try:" and "Reread:" lines too.
                message = r.message.strip() or "the test did not run"
                lines += [f"          {line}" for line in message.splitlines()]
        # Said so that no one copies a value a hidden test printed: grading draws other inputs.
        only = (
            " (hidden inputs from the public seed; grading draws its own)"
            if self.hidden_tests
            else " (visible tests only: the hidden tests did not run)"
        )
        # Said only where a test measures speed: elsewhere it is nothing the student can act on.
        timing = f" Timing checks: {self.timing} ({self.timing_reason})." if any(r.timed for r in self.results) else ""
        lines += ["", f"Score: {got:g}/{total:g}{only}.{timing}"]
        return "\n".join(lines + (["", self.walls_note] if self.unwalled else []))

    @property
    def walls_note(self) -> str:
        """Said once a session: what the grader's walls could not do here, and why that costs no points."""
        return (
            f"Note: {self.unwalled}. Your notebook was checked all the same, and its score does not depend on it: "
            "the grader uses these walls to keep one student's code from another's work."
        )

    def _untimed(self, r: ProblemResult) -> str:
        """One verdict per problem: a timed test that passed here without its timing judged says so."""
        return f"; timing not judged: {self.timing_reason}" if r.timed and self.timing == "advisory" else ""

    def __repr__(self) -> str:
        # One line: what a console echoes; a notebook shows the table (`_repr_html_`).
        got, total = self.score
        return f"<self-check of {self.notebook.name}: {got:g}/{total:g}>"

    def _repr_html_(self) -> str:
        """The report as JupyterLab and Colab show it: a row per test, its message under a failing one, and
        "Reread:" a link to the lecture's section."""
        first, *rest = self.report().removesuffix(f"\n\n{self.walls_note}" if self.unwalled else "").split("\n\n")
        rows = []
        for r in self.results:
            verdict = "passed" if r.passed else "<strong>FAILED</strong>"
            test = f"({html.escape(r.test)}){html.escape(self._untimed(r))}"
            cells = (verdict, html.escape(r.problem), f"{r.points:g}/{r.max_points:g}", test)
            rows.append("<tr>" + "".join(f"<td{_LEFT}>{cell}</td>" for cell in cells) + "</tr>")
            if not r.passed:
                lines = (r.message.strip() or "the test did not run").splitlines()
                said = "<br>".join(self._line_html(line) for line in lines)
                rows.append(f'<tr><td></td><td colspan="3"{_LEFT}>{said}</td></tr>')
        return (
            f"<p><strong>{html.escape(first)}</strong></p>"
            + "<table><tr>"
            + "".join(f"<th{_LEFT}>{name}</th>" for name in ("verdict", "problem", "points", "test"))
            + "</tr>"
            + "".join(rows)
            + f"</table><p>{html.escape(rest[-1] if rest else '')}</p>"
            + (f"<p>{html.escape(self.walls_note)}</p>" if self.unwalled else "")
        )

    def _line_html(self, line: str) -> str:
        found = _REREAD.fullmatch(line.strip())
        if not found:
            return html.escape(line)
        target = found.group(1)
        return f'Reread: <a href="{html.escape(lecture_href(self.notebook, target))}">{html.escape(target)}</a>'


def lecture_href(notebook: Path, target: str) -> str:
    """Where "Reread: course/NN.ipynb#Section" leads from `notebook`: the lecture beside it in a clone (JupyterLab
    opens a relative link at its section), else the lecture in the course's repository."""
    path, _, anchor = target.partition("#")
    for folder in notebook.resolve().parents:
        if (folder / path).is_file():
            relative = os.path.relpath(folder / path, notebook.resolve().parent)
            return f"{relative}#{anchor}" if anchor else relative
    try:
        urls = metadata.metadata("jax-course").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        urls = []
    repository = next((url.split(", ", 1)[1] for url in urls if url.startswith("Repository, ")), None)
    return f"{repository}/blob/main/{target}" if repository else target


def _problem_names(cells: list[dict]) -> dict[str, str]:
    """Each test cell's grade_id -> the heading of the problem it belongs to."""
    names, heading = {}, None
    for cell in cells:
        source = "".join(cell.get("source", ""))
        if cell.get("cell_type") == "markdown":
            for line in source.splitlines():
                if line.startswith("## "):
                    heading = line[3:].strip()
        elif (test := grade_id_if_test(cell)) is not None:
            names[test] = heading or test
    return names


# The course's limit per cell (nbgrader_config.py's Execute.timeout), for a lone notebook too.
CELL_TIMEOUT = 120.0
NEVER_FINISHES = (
    "look for an answer that never finishes (an endless loop, or a loop over millions of elements in Python)"
)


def _error(cell: dict) -> tuple[str, str] | None:
    return next(
        (
            (o.get("ename", "Error"), o.get("evalue", ""))
            for o in cell.get("outputs", [])
            if o.get("output_type") == "error"
        ),
        None,
    )


def _error_message(cell: dict, cell_timeout: float, stopped: str | None) -> str:
    name, value = _error(cell) or ("", "")
    if name in ("CheckFailed", "AssertionError"):
        return value or "a test failed"
    if name == "NameError" and "an answer cell above still raises NotImplementedError()" in value:
        return value  # which answer is missing, the kernel could only guess: its message says so
    if name == "NotImplementedError" or (name == "NameError" and "is not answered yet" in value):
        return "not answered yet (the cell still raises NotImplementedError)"
    if name == "KeyboardInterrupt":
        return f"stopped: this test ran longer than the limit of {cell_timeout:g} s per cell; {NEVER_FINISHES}"
    if name == "NameError" and stopped:
        return (
            f"{value}: cell {stopped} was stopped after running longer than the limit of {cell_timeout:g} s per "
            f"cell, so what it defines does not exist; {NEVER_FINISHES}"
        )
    if name == "NameError" and "What it means:" not in value:  # the course's words say it already
        return f"{value}: run the cell with your answer first, or check the name you defined"
    return f"{name}: {value}" if name else ""


def read_results(nb: dict, scores: dict[str, float] | None, cell_timeout: float = CELL_TIMEOUT) -> list[ProblemResult]:
    names = _problem_names(nb["cells"])
    results, stopped = [], None
    for number, cell in enumerate(nb["cells"], 1):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") != "code":
            continue
        if (test := grade_id_if_test(cell)) is None:
            if (_error(cell) or ("",))[0] == "KeyboardInterrupt":
                stopped = meta.get("grade_id") or f"number {number}"
            continue
        message = _error_message(cell, cell_timeout, stopped)
        full = float(meta.get("points", 0))
        points = scores.get(test, 0.0) if scores is not None else (0.0 if message else full)
        timed = "check_speedup" in "".join(cell.get("source", ""))
        results.append(ProblemResult(names[test], test, points, full, message, timed))
    return results
