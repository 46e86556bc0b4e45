"""An exercise set as its solution notebook holds it: answer cells, test cells, points, problems and sections."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

import nbformat

from ..._passes import HIDDEN_MARKERS
from .._cells import grade_id_if_test

_MARKER = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$")
# The heading that starts a problem: the report, the item analysis and the tables read its name and points.
PROBLEM_HEADING = re.compile(r"^## (Problem \d+[^\n]*?)\s*(\(\d+ points?\))?\s*$", re.M)
_SECTION = re.compile(r"""section\s*=\s*["']([^"'#]+)#([^"']+)["']""")


@dataclass(frozen=True)
class CodeCell:
    grade_id: str | None
    is_test: bool
    is_answer: bool
    source: str


@dataclass(frozen=True)
class ExerciseSet:
    """`root/solutions/name/name.ipynb` (the source folder nbgrader's config names), read once."""

    root: Path
    name: str
    source_directory: str = "solutions"

    @property
    def notebook_path(self) -> Path:
        return self.root / self.source_directory / self.name / f"{self.name}.ipynb"

    @cached_property
    def notebook(self) -> nbformat.NotebookNode:
        return nbformat.read(self.notebook_path, as_version=4)

    @cached_property
    def code_cells(self) -> tuple[CodeCell, ...]:
        cells = []
        for cell in self.notebook.cells:
            if cell.cell_type != "code":
                continue
            meta = cell.metadata.get("nbgrader", {})
            test = grade_id_if_test(cell)
            cells.append(CodeCell(meta.get("grade_id"), test is not None, bool(meta.get("solution")), cell.source))
        return tuple(cells)

    @cached_property
    def reference(self) -> dict[str, str]:
        """The reference answer of every answer cell, by grade_id, without the solution markers."""
        return {
            c.grade_id: "\n".join(line for line in c.source.splitlines() if not _MARKER.match(line))
            for c in self.code_cells
            if c.is_answer and c.grade_id
        }

    @cached_property
    def uses_checks(self) -> bool:
        """Whether its notebook imports the course's checks: only then has it references and verifier entries."""
        return "import autograder" in "".join(cell.source for cell in self.code_cells)

    @cached_property
    def points(self) -> dict[str, float]:
        """`{test grade_id: points}`."""
        return {
            c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"].get("points", 0))
            for c in self.notebook.cells
            if grade_id_if_test(c)
        }

    @cached_property
    def problems(self) -> list[tuple[str, list[str]]]:
        """`(heading, [test grade_ids])` for each `## Problem N: ...` heading, in order."""
        found: list[tuple[str, list[str]]] = []
        for cell in self.notebook.cells:
            heading = PROBLEM_HEADING.search(cell.source) if cell.cell_type == "markdown" else None
            if heading:
                found.append((heading[1], []))
            elif found and (test := grade_id_if_test(cell)):
                found[-1][1].append(test)
        return found

    def problem_of(self, test: str) -> str:
        return next((heading for heading, tests in self.problems if test in tests), "no problem heading")

    @cached_property
    def hidden_lines(self) -> set[str]:
        """Lines of the hidden tests (over 20 characters) that no visible line of the notebook shows too."""
        hidden, visible = set(), set()
        for cell in self.notebook.cells:
            before, _, rest = cell.source.partition(HIDDEN_MARKERS[0])
            inside, _, after = rest.partition(HIDDEN_MARKERS[1])
            hidden.update(line.strip() for line in inside.splitlines() if len(line.strip()) > 20)
            visible.update(line.strip() for line in (before + after).splitlines())
        return {line for line in hidden if not any(line in shown for shown in visible)}

    def test_source(self, test: str) -> str:
        return next(c.source for c in self.code_cells if c.grade_id == test)

    @cached_property
    def sections(self) -> dict[str, set[tuple[str, str]]]:
        """Each test cell's cited sections, `(lecture, heading)`, from its `section="NN#Heading"` arguments."""
        return {c.grade_id: set(_SECTION.findall(c.source)) for c in self.code_cells if c.is_test and c.grade_id}


def hidden_from(source: str) -> int:
    """The line number (from 1) where a test cell's hidden tests begin (past its end if it has none)."""
    lines = source.splitlines()
    return next((n for n, line in enumerate(lines, 1) if HIDDEN_MARKERS[0] in line), len(lines) + 1)


def lecture_headings(root: Path, lecture: str) -> set[str] | None:
    """The headings of lecture `NN` (`course/NN_*.ipynb`), or of a path given instead; None if there is none."""
    found = sorted((root / "course").glob(f"{lecture}_*.ipynb")) or [root / lecture]
    if not found[0].is_file():
        return None
    nb = nbformat.read(found[0], as_version=4)
    return {
        line.lstrip("#").strip()
        for c in nb.cells
        if c.cell_type == "markdown"
        for line in c.source.splitlines()
        if line.startswith("#")
    }


@cache
def names_of(source: str) -> tuple[frozenset[str], frozenset[str]]:
    """The names a cell binds at top level, and every name it reads (all of them, if it does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset(), frozenset({"*"})
    bound = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        else:
            bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return frozenset(bound), frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
