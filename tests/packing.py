"""Which test cells a changed answer can affect, and wrong variants packed into shared submissions.

A test cell's verdict depends only on the cells it reads (course/test_fresh_process.py proves it
for every variant), so variants that change different answer cells and can affect different
test cells can share one submission: each test cell of the pack gives the verdict of the one
member that can affect it, and the tests no member can affect keep the reference's full points.
One submission costs a kernel start, JAX's import and the notebook's fast cells, whatever it
holds; packed, the wrong variants need fewer than half as many submissions.
"""

from __future__ import annotations

import ast
from functools import cache

import nbformat

from support import ROOT, solution_sources

# Members per pack at most. A pack runs its members' slow answers one after the other in one
# kernel, so a pack of many timed variants could run for minutes; sets have at most about
# six problems, so this rarely binds and no pack is much slower than its slowest member.
MAX_PACK = 6


def cell_grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def is_test_cell(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


def _names(source: str) -> tuple[set[str], set[str]]:
    """The names a cell binds at top level, and every name it reads (all of them, if it does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(), {"*"}
    bound = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        else:
            bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return bound, {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


@cache
def _code_cells(assignment: str) -> tuple[tuple[str | None, bool, str], ...]:
    """`(grade_id, is a test, source)` of each code cell of the solution notebook, in order."""
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    return tuple((cell_grade_id(c), is_test_cell(c), c.source) for c in nb.cells if c.cell_type == "code")


@cache
def _reference(assignment: str) -> dict[str, str]:
    return solution_sources(assignment)


def cells_reading_changed_names(assignment: str, changed: dict[str, str]) -> set[str]:
    """The test cells that read a name the `changed` answer cells bind, directly or through other cells."""
    reference = _reference(assignment)
    tainted: set[str] = set()
    for grade_id, source in changed.items():
        tainted |= _names(source)[0] | _names(reference.get(grade_id, ""))[0]
    tests = set()
    for grade_id, is_test, source in _code_cells(assignment):  # in order: a helper calling an answer passes it on
        if grade_id in changed:
            continue
        bound, read = _names(source)
        if read & tainted or "*" in read:
            if is_test:
                tests.add(grade_id)
            else:
                tainted |= bound
    return tests


def affected_tests(assignment: str, variants: dict[str, dict]) -> dict[str, set[str]]:
    """Each variant's test cells that its answers can affect; refuses a variant that `loses` any other."""
    affected = {}
    for name, variant in variants.items():
        affected[name] = cells_reading_changed_names(assignment, variant["answers"])
        outside = set(variant["loses"]) - affected[name]
        if outside:
            raise ValueError(
                f"{assignment} variant {name} loses {sorted(outside)}, which read nothing its answers bind: "
                "it cannot share a submission (is `loses` or the notebook wrong?)"
            )
    return affected


def pack(assignment: str, variants: dict[str, dict], max_size: int = MAX_PACK) -> list[dict[str, set[str]]]:
    """Variants in shared submissions: each pack maps its members to their affected tests.

    Members of a pack change disjoint answer cells and can affect disjoint test cells. First
    fit, the variants that affect the most tests first (ties in `variants`' order): the same
    packs on every run.
    """
    affected = affected_tests(assignment, variants)
    order = sorted(variants, key=lambda name: -len(affected[name]))  # stable: ties keep their order
    packs: list[dict[str, set[str]]] = []
    cells: list[set[str]] = []  # the answer cells and test cells each pack's members use
    for name in order:
        uses = {f"answer:{a}" for a in variants[name]["answers"]} | {f"test:{t}" for t in affected[name]}
        slot = next((i for i, p in enumerate(packs) if len(p) < max_size and not cells[i] & uses), None)
        if slot is None:
            packs.append({})
            cells.append(set())
            slot = len(packs) - 1
        packs[slot][name] = affected[name]
        cells[slot] |= uses
    return packs
