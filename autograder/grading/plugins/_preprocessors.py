"""The nbgrader preprocessors this course plugs in: what happens to a notebook in autograde and in feedback."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from nbformat import NotebookNode
from nbgrader.preprocessors import ClearHiddenTests, Execute, NbGraderPreprocessor, OverwriteCells
from traitlets import Bool, Float

from ..._config import PROTECTED, environment_with
from ..._verified import problems
from .._cells import grade_id_if_test
from ..kernels._manager import WarmKernelManager
from ..kernels._nursery import preload_for
from ..kernels._outputs import CappedOutputs
from ..references._seed import for_grading, grading_seed, remember
from ..verification._verification import (
    add_hand_overs,
    apply_verdicts,
    borrow,
    failed_in_the_kernel,
    give_back,
    take_hand_overs,
    verdicts,
    verify_as_handed,
)
from ..verification._verifier import MEMORY_MB, Limits
from ._scores import own_results_only
from ._tampering import imported_names, refusal, tampering


class RestoreCells(OverwriteCells):
    """nbgrader's `OverwriteCells`, whose warning that a locked cell's checksum changed names only cells the student
    changed. nbgrader compares the handed-in cell with the source, hidden tests included, so it says that every
    test cell with hidden tests changed, in every honest submission (jupyter/nbgrader#1961), and a test the student
    edited is lost among them. Here the handed-in cell is compared with the cell as released."""

    _handed_in: str | None = None

    def preprocess_cell(self, cell, resources, cell_index):
        self._handed_in = cell.source
        return super().preprocess_cell(cell, resources, cell_index)

    def report_change(self, name: str, attr: str, old: Any, new: Any) -> None:
        if attr == "checksum" and self._handed_in == self._released(name):
            return
        super().report_change(name, attr, old, new)

    def _released(self, name: str) -> str:
        """The locked cell `name` as students got it: the source's, without its hidden tests."""
        source = self.gradebook.find_source_cell(name, self.notebook_id, self.assignment_id)
        cell = NotebookNode(cell_type=source.cell_type, source=source.source, metadata={})
        ClearHiddenTests(parent=self)._remove_hidden_test_region(cell)
        return cell.source


class RefuseTampering(NbGraderPreprocessor):
    """Sanitize step: student-editable code cells that tamper with grading are not run."""

    def preprocess(self, nb, resources):
        refused, elsewhere = [], {}
        for cell in nb.cells:
            if cell.cell_type == "code":
                elsewhere.update(imported_names(cell.source))
        for cell in nb.cells:
            if cell.metadata.get("nbgrader") == {}:
                # A copy of a graded cell, stripped by DeduplicateIds: without this, nbgrader's
                # CheckCellMetadata raises SchemaTooOldError, which stops a whole stock batch.
                del cell.metadata["nbgrader"]
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type != "code" or meta.get("locked"):
                continue  # locked cells were restored from the course's source by OverwriteCells
            findings = tampering(cell.source, elsewhere)
            if findings:
                refused.append(f"{meta.get('grade_id', 'a cell you added')}: {findings[0]}")
                cell.source = refusal(findings)
        if refused:
            nb.metadata.setdefault("jax_course", {})["refused"] = refused
        return nb, resources


class ShortenTestErrors(NbGraderPreprocessor):
    """Replace the traceback of each graded test cell's error with `Name: message`."""

    def preprocess_cell(self, cell, resources, index):
        if grade_id_if_test(cell) is not None:
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources


# Where `WarmExecute` leaves the verifier it started for `Verify`, in the resources both steps are given.
_STARTED = "jax_course_verifier"


def _graded(step: Any, resources: dict | None) -> tuple[Any, str] | None:
    """nbgrader's course folders and the assignment being graded, for a step nbgrader's converter registered
    through its exporter (whose parent knows the course's folders); None for a step run otherwise."""
    course = getattr(getattr(step.parent, "parent", None), "coursedir", None)
    assignment = (resources or {}).get("nbgrader", {}).get("assignment")
    return (course, assignment) if course is not None and assignment else None


def _grading_seed(step: Any, resources: dict | None, log, *, for_kernels: bool = True) -> tuple[Path | None, Any]:
    """The course root and the seed that grades this notebook (`references/_seed.py`), its programs compiled
    for kernels unless `for_kernels` is false."""
    if (graded := _graded(step, resources)) is None:
        return None, None
    course, assignment = graded
    root = Path(course.root)
    seed_for = for_grading if for_kernels else grading_seed
    return root, seed_for(root, root / course.source_directory, assignment, log)


def exchange_root(config: Any) -> str:
    """The folder of nbgrader's exchange that `config` names (its default where it names none)."""
    from nbgrader.exchange.default.exchange import Exchange

    return str(Exchange(config=config).root)


def _sources(step: Any, resources: dict | None) -> list[Path]:
    """The course's source notebooks of the assignment being graded (none if the course is not known)."""
    if (graded := _graded(step, resources)) is None:
        return []
    course, assignment = graded
    return sorted((Path(course.root) / course.source_directory / assignment).glob("*.ipynb"))


class WarmExecute(CappedOutputs, Execute):
    """nbgrader's `Execute` with warm kernels (it would otherwise pin nbclient's manager class), whose
    kernels draw hidden inputs from the grading seed (`references/_seed.py`), never the public one silently."""

    verify_while_running = Bool(
        False,
        help="Verify each answer as soon as its hand-over cell has run, while the notebook goes on: sooner for "
        "one notebook (the self-check), but the verifier then competes with the kernel for the cores.",
    ).tag(config=True)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", WarmKernelManager)
        # The kernel is thrown away once its last cell's outputs are in: killed (its process group with it), not
        # asked to stop and then polled every tenth of a second until it has.
        kwargs.setdefault("shutdown_kernel", "immediate")
        super().__init__(*args, **kwargs)

    _verify_early: Any = None

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if isinstance(km, WarmKernelManager):  # what it is configured to import, and what the set's notebooks do
            km.preload = list(preload_for(_sources(self, self.resources), km.preload))
        return km

    def on_cell_executed(self, **kwargs):  # nbgrader's own records a timeout's error; then the early verdict
        super().on_cell_executed(**kwargs)
        if self._verify_early is not None:
            self._verify_early(**kwargs)

    def preprocess(self, nb, resources=None, km=None):
        self._verify_early = None
        root, seed = _grading_seed(self, resources, self.log)
        if root is None or seed is None:
            return super().preprocess(nb, resources, km)
        assignment = resources["nbgrader"]["assignment"]  # pyright: ignore[reportOptionalSubscript]
        self.log.info("Hidden inputs of %s: %s", assignment, seed.describe())
        remember(root, assignment, seed)
        if problems(assignment) and self.enabled:  # `Verify` asks it once the notebook has run
            started = resources[_STARTED] = borrow(assignment, {**os.environ, **seed.verifier_environment()})  # pyright: ignore
            self._verify_early = verify_as_handed(started) if self.verify_while_running else None
        try:
            protected = seed.kept_from_kernels(root, exchange_root(self.config))
            with environment_with({**seed.kernel_environment(), PROTECTED: protected}):
                return super().preprocess(nb, resources, km)
        except BaseException:  # the notebook could not be run: `Verify` will not be asked, nor the verifier
            if (started := resources.pop(_STARTED, None)) is not None:  # pyright: ignore
                give_back(started)
            raise


class HandOver(NbGraderPreprocessor):
    """Sanitize step, after the locked cells are restored: a hand-over cell after each verified test cell."""

    def preprocess(self, nb, resources):
        assignment = resources.get("nbgrader", {}).get("assignment")
        return (add_hand_overs(nb, assignment) if assignment else nb), resources


class Verify(NbGraderPreprocessor):
    """Autograde step, right after `Execute`: the hand-over cells come out, and the verifier's verdicts
    decide the verified test cells (a cell the kernel passed and the verifier failed scores zero)."""

    memory_mb = Float(
        MEMORY_MB,
        help="The memory the verifier may use running one submission's programs (MB); a program that needs more "
        "fails its test, saying so. `jax-course grade` sets its --memory here.",
    ).tag(config=True)
    timeout = Float(
        None,
        allow_none=True,
        help="The seconds verifying one notebook may take in all (each verified test also stops after 180 s); once "
        "they are spent, the tests left fail, saying so. None: no bound but each test's. `jax-course grade` gives "
        "the verifier what the notebook's run left of its --timeout instead.",
    ).tag(config=True)

    def preprocess(self, nb, resources):
        handed, started = take_hand_overs(nb), resources.pop(_STARTED, None)
        assignment = resources.get("nbgrader", {}).get("assignment")
        if not assignment or not problems(assignment) or self.config.get("Execute", {}).get("enabled") is False:
            if started is not None:
                give_back(started)
            return nb, resources  # `--no-execute` grades the outputs as submitted
        # Only the seed: the programs were compiled for the kernel before it ran (`WarmExecute`, or `jax-course
        # grade` for its kernels' thread limits, which this process's environment lacks).
        _, seed = _grading_seed(self, resources, self.log, for_kernels=False)
        env = {**os.environ, **(seed.verifier_environment() if seed else {})}
        limits = Limits(self.memory_mb, self.timeout)
        failed = apply_verdicts(nb, verdicts(assignment, handed, env, started, failed_in_the_kernel(nb), limits))
        if failed:
            self.log.warning("Verified outside the kernel, and failed there: %s", ", ".join(failed))
        return nb, resources


class OwnResultsOnly(NbGraderPreprocessor):
    """Autograde step, before nbgrader reads the scores: only a test cell's own last value may be partial credit."""

    def preprocess(self, nb, resources):
        if shown := own_results_only(nb):
            self.log.warning("Values shown by the student's code, not read as scores: %s", ", ".join(shown))
        return nb, resources
