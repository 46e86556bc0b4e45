"""A test cell's verdict does not depend on what ran before it.

Each test cell is run alone in a fresh process, after only the cells that are not tests and that it
needs (setup, given code, answers: `needed`), and must give the verdict the whole notebook's kernel gives it: the
reference passes every test; a variant fails exactly the tests it `loses` (which course/test_autograde.py
proves for the whole notebook under the real nbgrader) but those `lost_in_the_verifier`, which no kernel
state decides, and where the variants table
(docs/guide/tables.md) says the whole notebook fails it: in a visible test, or only in the
hidden ones. (An earlier cell that warms a cache can hide a visible failure while a hidden test
still fails.) That is what lets that test grade several variants in one submission.

Which runs: every test cell of the reference, and for each variant every test cell that reads a
name its changed answers bind, directly or through another cell (the other test cells run the
reference's answers, as the reference's own runs do). The fresh
process is forked from one that has imported JAX, NumPy and the checks and run nothing else
(a grading kernel before its first cell: JAX's backend not yet started), then runs the
kernel's `guard()` and the cells. A new Jupyter kernel per run would cost about two seconds
of CPU more, for each of some eight hundred runs.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

import nbformat
import pytest

from autograder.grading._cells import grade_id_if_test
from autograder.grading.proving._packing import affected_by
from autograder.grading.proving._sets import ExerciseSet, hidden_from, names_of
from autograder.grading.proving._tables import table_caught

from support import ASSIGNMENTS, ROOT, solution_sources
from variants import VARIANTS

pytestmark = pytest.mark.grading

# Imports only: JAX's backend starts in each forked run, where a notebook's first operation starts it.
# Set 14's libraries too (about a second in each of its runs otherwise): none of them starts JAX's
# backend or a thread on import. The server is started once per process, so this list is global.
_PRELOAD = ["jax", "jax.numpy", "numpy", "autograder", "autograder.checks", "nbformat"]
_PRELOAD += ["flax.nnx", "optax", "orbax.checkpoint", "sklearn.datasets", "sklearn.model_selection"]


def runs(assignment: str) -> Iterator[tuple[str, dict[str, str], str, bool, frozenset[str]]]:
    """`(submission, answers, test cell, passes, answer cells run whatever the test reads)` for each run this module
    makes: a variant's answer cells that change a global `setting` run before every test cell after them."""
    reference = solution_sources(assignment)
    exercise = ExerciseSet(ROOT, assignment)
    every_test = [test for _, tests in exercise.problems for test in tests]
    for test in every_test:
        yield "reference", reference, test, True, frozenset()
    for name, variant in VARIANTS[assignment].items():
        touched = affected_by(exercise, variant)
        for test in [t for t in every_test if t in touched]:
            in_the_kernel = variant["loses"] - variant.get("lost_in_the_verifier", set())
            forced = frozenset(variant["answers"]) if variant.get("setting") else frozenset()
            yield name, {**reference, **variant["answers"]}, test, test not in in_the_kernel, forced


def alone(assignment: str, answers: dict[str, str], test: str, forced: frozenset[str] = frozenset()) -> list[str]:
    """The sources of the code cells `test` needs (`needed`, with the `forced` ones), with `answers`, then of `test`."""
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    kept, last, keep = [], None, []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        source = answers.get(grade_id, cell.source)
        if grade_id == test:
            last = source
        elif grade_id_if_test(cell) is None:
            kept.append(source)
            if grade_id in forced:
                keep.append(len(kept) - 1)
    assert last is not None, f"{assignment} has no test cell {test}"
    return [*needed(kept, last, keep), last]


def needed(cells: list[str], test: str, forced: list[int] | None = None) -> list[str]:
    """Of `cells` (none a test, in order), those `test` needs: each that binds a name it reads, directly or
    through another needed cell, and each that binds nothing (a setting, a call made for its effect). A cell
    left out (a demonstration that trains a model, say) cannot be what a verdict relies on."""
    wanted, keep = set(names_of(test)[1]), [False] * len(cells)
    for i in forced or ():  # a global setting: every later cell sees it
        keep[i] = True
        wanted |= names_of(cells[i])[1]
    grew = True
    while grew:
        grew = False
        for i, source in enumerate(cells):
            bound, read = names_of(source)
            if not keep[i] and (not bound or "*" in read or bound & wanted):
                keep[i], grew = True, True
                wanted |= read
    return [source for source, kept in zip(cells, keep, strict=True) if kept]


def _where(error: BaseException, filename: str, source: str) -> str:
    """ "visible" if the test cell's line that raised is above its hidden tests, else "hidden"."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    return "visible" if tb is not None and tb.tb_lineno < hidden_from(source) else "hidden"


def _run_cells(sources: list[str]) -> tuple[str, str, str]:
    """In a fresh process: the kernel's `guard()`, then each cell; `("passed" | "failed" | "broke", error, where)`."""
    import autograder.checks

    autograder.checks.guard()
    namespace = {"__name__": "__main__"}
    for number, source in enumerate(sources):
        try:
            exec(compile(source, f"<cell {number}>", "exec"), namespace)
        except BaseException as error:  # a test cell's verdict, whatever it raised
            outcome = "failed" if number == len(sources) - 1 else "broke"
            return outcome, f"{type(error).__name__}: {error}", _where(error, f"<cell {number}>", source)
    return "passed", "", ""


def fresh_processes() -> ProcessPoolExecutor:
    """A pool whose every task runs in a new process forked from a server that only imported `_PRELOAD`."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    return ProcessPoolExecutor(max_workers=1, mp_context=context, max_tasks_per_child=1)


@pytest.mark.parametrize("assignment", sorted(ASSIGNMENTS, reverse=True))
def test_each_test_cell_alone_in_a_fresh_process_gives_the_notebooks_verdict(assignment, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where a notebook's cells would write, as the kernel's folder
    differ, caught = [], table_caught(ROOT)
    with fresh_processes() as pool:
        for submission, answers, test, passes, forced in runs(assignment):
            cells = alone(assignment, answers, test, forced)
            outcome, error, where = pool.submit(_run_cells, cells).result(timeout=300)
            assert outcome != "broke", f"{submission}/{test}: a cell before the test failed: {error}"
            if (outcome == "passed") != passes:
                whole = "passes" if passes else "fails"
                differ.append(f"{submission}/{test}: {whole} after the whole notebook; alone, {error or 'passes'}")
            elif outcome == "failed" and caught.get((assignment, submission, test), where) != where:
                # The variants table says where the whole notebook fails it (course/test_autograde.py).
                differ.append(
                    f"{submission}/{test}: {caught[assignment, submission, test]} tests fail it after the "
                    f"whole notebook; alone, {where} ones: {error}"
                )
    assert not differ, "verdicts that depend on earlier cells:\n" + "\n".join(differ)


def test_a_check_that_counts_what_earlier_cells_left_gets_another_verdict_alone():
    """The defect this module looks for: a compile count taken as cache growth passes alone, fails after."""
    setup = "import jax\nimport jax.numpy as jnp\n\nf = jax.jit(lambda x: x + 1)"
    earlier_test = "f(jnp.ones(3))"
    cache_growth = (
        "before = f._cache_size()\nf(jnp.ones(3))\nassert f._cache_size() - before == 1, 'no compilation seen'"
    )
    with fresh_processes() as pool:
        after_whole_notebook = pool.submit(_run_cells, [setup, earlier_test, cache_growth]).result(timeout=120)
        alone = pool.submit(_run_cells, [setup, cache_growth]).result(timeout=120)
    assert after_whole_notebook == ("failed", "AssertionError: no compilation seen", "visible")
    assert alone == ("passed", "", "")
    # Where a failure is, as the variants table says it: below the hidden-tests marker, "hidden".
    hidden = "x = 1\n### BEGIN HIDDEN TESTS\nassert x == 2, 'on a hidden input'\n### END HIDDEN TESTS"
    with fresh_processes() as pool:
        assert pool.submit(_run_cells, [hidden]).result(timeout=120) == (
            "failed",
            "AssertionError: on a hidden input",
            "hidden",
        )


def test_a_test_runs_after_the_cells_it_reads_and_those_that_bind_nothing():
    cells = [
        "import jax\njax.config.update('jax_enable_x64', True)",  # binds `jax`, which the test reads
        "print('a setting, or a call made for its effect')",  # binds nothing: kept
        "data = list(range(3))",
        "model = sum(data)",  # read by the test, and reads `data`
        "history = [model] * 1000  # a demonstration the test never reads",
    ]
    assert needed(cells, "assert model == jax.numpy.asarray(3)") == cells[:4]
    assert needed(cells, "exec(source)") == cells[1:2]  # reads no name a cell binds
    assert needed(["def broken(:", "x = 1"], "assert x") == ["def broken(:", "x = 1"]  # unreadable: kept
