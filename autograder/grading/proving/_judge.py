"""What a graded proof must show, claim by claim: each finding names the test it is about and why it is not sound."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from ..._passes import MARK
from ..selfcheck._selfreport import read_results
from ._sets import ExerciseSet, hidden_from

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Where a test cell raised: IPython's frame line, or the line a CheckFailed names (checks/_tracebacks.py).
_CELL_LINE = re.compile(r"Cell In\[\d+\], line (\d+)|\(in the test cell, line (\d+):")
VERIFIER = "Checked outside your notebook"
WHOLE_SET = "the set"


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


@dataclass
class Findings:
    """Why tests are not sound (`unsound`, by test or `WHOLE_SET`), and what is not yet proven (`gaps`)."""

    unsound: dict[str, list[str]] = field(default_factory=dict)
    gaps: list[str] = field(default_factory=list)

    def add(self, test: str, why: str) -> None:
        self.unsound.setdefault(test, []).append(why)


def failure(nb: dict) -> dict[str, tuple[str, str, str]]:
    """For each failed test cell: where it was caught (visible, hidden or verifier), its error's first line, and
    all it shows a student (printed text and the error)."""
    found = {}
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        outputs = cell.get("outputs", [])
        error = next((o for o in outputs if o["output_type"] == "error"), None)
        if error is None or not grade_id:
            continue
        if error["evalue"].startswith(VERIFIER):
            where = "verifier"
        else:
            raised = _CELL_LINE.search(strip_ansi("\n".join(error["traceback"])))
            line = int(raised[1] or raised[2]) if raised else None
            where = "visible" if line and line < hidden_from("".join(cell["source"])) else "hidden"
        printed = "".join("".join(o.get("text", "")) for o in outputs if o["output_type"] == "stream")
        first = f"{error['ename']}: {error['evalue']}".splitlines()[0]
        found[grade_id] = (where, strip_ansi(first), strip_ansi(f"{printed}{error['ename']}: {error['evalue']}"))
    return found


def where_caught(nb: dict) -> dict[str, str]:
    """Visible or hidden, for the variants table: a verifier's verdict comes after the whole cell ran."""
    return {test: "hidden" if where == "verifier" else where for test, (where, _, _) in failure(nb).items()}


def failures_read_well(nb: dict, where: str, findings: Findings) -> None:
    """Every failure shows its message on its first line, what to try and what to reread (an answer not yet
    written says so instead), none of the grader's frames, a CheckFailed in at most 15 lines."""
    for cell in nb["cells"]:
        test = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") or WHOLE_SET
        for error in (o for o in cell.get("outputs", []) if o["output_type"] == "error"):
            shown = strip_ansi("\n".join(error["traceback"]))
            said = f"{error['evalue']}\n{shown}"
            # A cell stopped at the time limit shows the pipeline's interrupt, whose words the report gives.
            stopped = error["ename"] == "KeyboardInterrupt"
            if not stopped and "not answered yet" not in said and not ("\nTry: " in said and "\nReread: " in said):
                first = f"{error['ename']}: {error['evalue']}".splitlines()[0]
                findings.add(test, f"{where}: its failure says no Try and Reread: {first[:120]!r}")
            if not shown.startswith(f"{error['ename']}:") and error["ename"] != "KeyboardInterrupt":
                findings.add(test, f"{where}: its failure starts {shown[:80]!r}, not with its message")
            if "/autograder/" in shown:
                findings.add(test, f"{where}: its failure shows the grader's code")
            if error["ename"] == "CheckFailed" and len(shown.splitlines()) > 15:
                findings.add(test, f"{where}: its failure takes {len(shown.splitlines())} lines (15 at most)")


def passes_are_quiet(nb: dict, where: str, findings: Findings, says_passed: bool = True) -> None:
    """A passing test cell says it passed (`says_passed`: the course's checks know its tests), leaves no value
    (nbgrader would read a number as partial credit), and prints at most one line besides: no dump, no log."""
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell["cell_type"] != "code" or not meta.get("grade") or meta.get("solution"):
            continue
        if any(o["output_type"] == "error" for o in cell["outputs"]):
            continue  # a failure, which its score already says
        printed = "".join("".join(o.get("text", "")) for o in cell["outputs"] if o["output_type"] == "stream")
        said = [line for line in printed.strip().splitlines() if not line.startswith(MARK)]
        values = [o["output_type"] for o in cell["outputs"] if o["output_type"] != "stream"]
        if values or len(said) > 1:
            findings.add(meta["grade_id"], f"{where}: it shows {values + said[:3]}")
        if says_passed and not any(line.startswith(MARK) for line in printed.splitlines()):
            findings.add(meta["grade_id"], f"{where}: passing, it does not say so (`{MARK}... passed`)")


def says_its_cause(
    nb: dict, scores: dict[str, float], name: str, variant: dict, where: str, findings: Findings
) -> None:
    """The words a declared answer's failure must show, in the graded notebook and in the self-check's report."""
    says = variant.get("says")
    if not says:
        return
    shown = {test: text for test, (_, _, text) in failure(nb).items()}
    report = {r.test: r.message for r in read_results(nb, scores)}
    wanted = says if isinstance(says, dict) else dict.fromkeys(variant["loses"], says)
    for test, words in wanted.items():
        words = words or []
        for seen_in, text in (("graded notebook", shown.get(test, "")), ("self-check", report.get(test, ""))):
            if missing := [word for word in words if word.lower() not in text.lower()]:
                findings.add(test, f"{where}: `{name}`'s {seen_in} does not name {missing}: {text[:300]!r}")


def page_text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def feedback_sections(page: str) -> dict[str, str]:
    """A feedback page's HTML from each graded cell's anchor (`<a name="grade_id">`) to the next anchor."""
    parts = re.split(r'<a name="([^"]+)"></a>', page)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def feedback_keeps_its_secrets(
    exercise: ExerciseSet, page: str, written: str, secret_answers: set[str], student: str, findings: Findings
) -> None:
    """No hidden test line (but one the student wrote) and no reference answer line reaches a feedback page."""
    text = page_text(page)
    if leaked := [line for line in exercise.hidden_lines if line in text and line not in written]:
        findings.add(WHOLE_SET, f"{student}'s feedback shows hidden test code: {leaked[:3]}")
    if "BEGIN HIDDEN TESTS" in text:
        findings.add(WHOLE_SET, f"{student}'s feedback shows a hidden test block")
    if leaked := [line for line in secret_answers if line in text and line not in written]:
        findings.add(WHOLE_SET, f"{student}'s feedback shows the reference answer: {leaked[:3]}")
