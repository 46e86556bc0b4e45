"""The notebooks themselves: clean, in sync, leak-free, and runnable."""

from __future__ import annotations

import time

import nbclient
import nbformat
import pytest

import lecture_runs
from support import ASSIGNMENTS, LECTURES, ROOT, make_course, secret_lines, section_links, unexpected_errors

COMMITTED = sorted([*ROOT.glob("solutions/*/*.ipynb"), *ROOT.glob("exercises/*/*.ipynb"), *LECTURES])


def _relative(path):
    return str(path.relative_to(ROOT))


@pytest.mark.unit
@pytest.mark.parametrize("path", COMMITTED, ids=_relative)
def test_committed_notebooks_carry_no_outputs(path):
    nb = nbformat.read(path, as_version=4)
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    assert not dirty, f"cells {dirty} have outputs or execution counts: clear them before committing"


# A code cell longer than this is hard to take in at once: split it, with a sentence of prose between the parts.
LONGEST_CODE_CELL = 25


@pytest.mark.unit
@pytest.mark.parametrize("path", LECTURES, ids=_relative)
def test_lecture_code_cells_are_short(path):
    nb = nbformat.read(path, as_version=4)
    long = [
        f"cell {i}: {len(c.source.splitlines())} lines"
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and len(c.source.splitlines()) > LONGEST_CODE_CELL
    ]
    assert not long, f"{_relative(path)} has code cells over {LONGEST_CODE_CELL} lines: {', '.join(long)}"


def _without_ids(nb):
    for cell in nb.cells:
        cell.pop("id", None)
    return nb


@pytest.mark.grading
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_exercises_are_what_nbgrader_generates_from_solutions(assignment, tmp_path):
    fresh = make_course(tmp_path, assignment) / "exercises" / assignment
    committed = ROOT / "exercises" / assignment
    assert sorted(p.name for p in fresh.iterdir()) == sorted(p.name for p in committed.iterdir()), (
        "run `make exercises`"
    )
    for path in fresh.glob("*.ipynb"):
        assert _without_ids(nbformat.read(path, as_version=4)) == _without_ids(
            nbformat.read(committed / path.name, as_version=4)
        ), f"exercises/{assignment}/{path.name} is stale: run `make exercises`"


@pytest.mark.unit
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_exercises_contain_no_solution_or_hidden_test(assignment):
    release = (ROOT / "exercises" / assignment / f"{assignment}.ipynb").read_text()
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        assert marker not in release
    released = nbformat.reads(release, as_version=4)
    shown = {line.strip() for c in released.cells for line in c.source.splitlines()}
    leaked = sorted(secret_lines(assignment) & shown)
    assert not leaked, f"exercises/{assignment} shows: {leaked[:3]}"


def _coloured(output) -> bool:
    """Whether the site shows this output as text with ANSI colour codes: a stream, or plain text with nothing
    richer beside it (a picture with an HTML form, such as rich's sharding pictures, is shown as HTML).
    Tracebacks are highlighted by the site, not shown with their codes."""
    if output.output_type == "stream":
        return "\x1b[" in output.text
    data = output.get("data", {})
    return set(data) == {"text/plain"} and "\x1b[" in data["text/plain"]


@pytest.mark.notebook
@pytest.mark.parametrize("path", LECTURES, ids=_relative)
def test_lecture_runs_top_to_bottom(path, capsys, monkeypatch):
    nb = nbformat.read(path, as_version=4)
    # JupyterLab names the notebook to its kernel so; the course's words for an error reread this lecture.
    monkeypatch.setenv("JPY_SESSION_NAME", str(path))
    start = time.perf_counter()
    # A fresh kernel per lecture, started cold, as Jupyter, Colab and a site build without this run start one:
    # the site shows this run. (A kernel forked warm for grading imported JAX before IPython, so JAX prints
    # as outside a notebook: its jaxprs come without the colours a reader's kernel gives them.)
    nbclient.NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    seconds = time.perf_counter() - start
    # A figure, not a verdict: how long a lecture may take is bench/lecture_times.py's question.
    with capsys.disabled():
        print(f"\n{_relative(path)}: executed in {seconds:.1f} s")
    assert not unexpected_errors(nb)
    # A measured comparison the text makes held on this machine (`autograder.lecture.compare_times` says so).
    from autograder.lecture import AGAINST_THE_TEXT  # JAX, in the worker that runs this test only

    against = [
        "".join(o.get("text", "")).strip()
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if AGAINST_THE_TEXT in "".join(o.get("text", ""))
    ]
    assert not against, f"comparisons that went against the text: {against}"
    # A reader's kernel colours some printed text with ANSI codes (a jaxpr printed as it is): the site shows
    # them as coloured text whose contrast fails WCAG (axe-core, tests/site), so lectures print without colour.
    coloured = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and any(map(_coloured, c.outputs))]
    assert not coloured, f"cells {coloured} print ANSI colour codes: e.g. jaxpr.pretty_print(use_color=False)"
    # A tag left on a cell that no longer fails would mislead the reader; a cell meant to fail shows the mistake
    # it makes in the course's words, with a section of this lecture to reread.
    for cell in nb.cells:
        if "raises-exception" in cell.metadata.get("tags", []):
            errors = [o for o in cell.outputs if o.output_type == "error"]
            assert errors, f"tagged to raise but did not: {cell.source[:80]}"
            shown = f"{errors[0].evalue}\n" + "\n".join(errors[0].traceback)
            assert "What it means:" in shown and "Try:" in shown, f"no course words for: {cell.source[:80]}"
            assert f"Reread: {_relative(path)}#" in shown, (
                f"{cell.source[:80]!r} rereads {shown.split('Reread: ')[-1].splitlines()[0]!r}, not this lecture"
            )
    # The site shows this run (`make site`), rather than running the lecture again.
    lecture_runs.store(path, nb, seconds)


@pytest.mark.unit
def test_lectures_have_the_sections_checks_link_to():
    """Every `section=` a test cell or a check names is a heading of its lecture."""
    from autograder.checks._errors import LECTURES as LINKED

    links = section_links()
    assert len(links) > 5
    for lecture, heading in links:
        nb = nbformat.read(ROOT / LINKED[lecture], as_version=4)
        headings = {
            line.lstrip("#").strip()
            for c in nb.cells
            if c.cell_type == "markdown"
            for line in c.source.splitlines()
            if line.startswith("#")
        }
        assert heading in headings, f"a check links to a missing section {lecture}#{heading}"
