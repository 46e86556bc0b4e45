"""Which test cells a changed answer can affect, and wrong variants packed into shared submissions.

A test cell's verdict depends only on the cells it reads (course/test_fresh_process.py proves it
for every variant, each alone), so variants that change different answer cells can share one
submission when, with all their answers in one notebook, each can affect exactly the test cells it
affects alone, and every test cell a member loses can be affected by no other member. A test cell
several members can affect is then one they all keep: it must keep its full points in the pack, as
it does for each of them alone. The tests no member can affect keep the reference's full points.
One submission costs a kernel start, JAX's import and the notebook's fast cells, whatever it
holds; packed, the wrong variants need fewer than half as many submissions.
"""

from __future__ import annotations

import ast
from functools import cache

import nbformat

from support import ROOT, solution_sources

# Members per pack at most. A pack's members run one after another in one kernel, so its cells
# take about the sum of theirs (nbgrader's per-cell timeout still bounds each test cell, which
# only one member can affect): the cap keeps a set with many slow variants from making one
# submission that runs for minutes. The autograde test prints each set's slowest pack.
MAX_PACK = 6


def cell_grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def is_test_cell(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


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


@cache
def _code_cells(assignment: str) -> tuple[tuple[str | None, bool, str], ...]:
    """`(grade_id, is a test, source)` of each code cell of the solution notebook, in order."""
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    return tuple((cell_grade_id(c), is_test_cell(c), c.source) for c in nb.cells if c.cell_type == "code")


@cache
def _reference(assignment: str) -> dict[str, str]:
    return solution_sources(assignment)


def cells_reading_changed_names(
    assignment: str, changed: dict[str, str], elsewhere: dict[str, str] | None = None, names: set[str] | None = None
) -> set[str]:
    """The test cells that read a name the `changed` answer cells bind, directly or through other cells.

    The other cells are the solution notebook's, or `elsewhere`'s answers where it gives one (a
    pack's other members: a wrong answer may call another answer that the reference does not).
    With `names`, only those of the changed cells' names count as changed.
    """
    reference = _reference(assignment)
    elsewhere = elsewhere or {}
    if names is None:
        names = set()
        for grade_id, source in changed.items():
            names |= names_of(source)[0] | names_of(reference.get(grade_id, ""))[0]
    tainted = set(names)
    tests = set()
    for grade_id, is_test, source in _code_cells(assignment):  # in order: a helper calling an answer passes it on
        if grade_id in changed:
            continue
        bound, read = names_of(elsewhere.get(grade_id, source))
        if read & tainted or "*" in read:
            if is_test:
                tests.add(grade_id)
            else:
                tainted |= bound
    return tests


def tests_after(assignment: str, changed: dict[str, str]) -> set[str]:
    """Every test cell after the first of the `changed` answer cells: what a global setting there can affect."""
    cells = _code_cells(assignment)
    first = min(i for i, (grade_id, _, _) in enumerate(cells) if grade_id in changed)
    return {grade_id for grade_id, is_test, _ in cells[first:] if is_test and grade_id}


def affected_by(assignment: str, variant: dict) -> set[str]:
    """The test cells a variant's answers can affect: those reading what they bind, or, for a variant whose
    answers change a `setting` every later cell sees (jax_enable_x64 switched on), every test cell after them."""
    if variant.get("setting"):
        return tests_after(assignment, variant["answers"])
    return cells_reading_changed_names(assignment, variant["answers"])


def affected_tests(assignment: str, variants: dict[str, dict]) -> dict[str, set[str]]:
    """Each variant's test cells that its answers can affect; refuses a variant that `loses` any other."""
    affected = {}
    for name, variant in variants.items():
        affected[name] = affected_by(assignment, variant)
        outside = set(variant["loses"]) - affected[name]
        if outside:
            raise ValueError(
                f"{assignment} variant {name} loses {sorted(outside)}, which read nothing its answers bind: "
                "it cannot share a submission (is `loses` or the notebook wrong?)"
            )
    return affected


def can_share(assignment: str, variants: dict[str, dict], affected: dict[str, set[str]]) -> bool:
    """Whether `variants` can share a submission: they change different answer cells, with all their
    answers in each can affect exactly the test cells it affects alone, and a test cell one of them
    loses can be affected by no other (a test cell they can all affect is one they all keep)."""
    cells = [cell for variant in variants.values() for cell in variant["answers"]]
    if len(cells) != len(set(cells)):
        return False
    if len(variants) > 1 and any(variant.get("setting") for variant in variants.values()):
        return False  # a global setting would change the other members' verdicts: it is graded alone
    answers = {cell: source for variant in variants.values() for cell, source in variant["answers"].items()}
    lost: set[str] = set()
    kept: set[str] = set()
    for name, variant in variants.items():
        here = cells_reading_changed_names(assignment, variant["answers"], answers)
        loses = here & set(variant["loses"])
        if here != affected[name] or loses & (lost | kept) or (here - loses) & lost:
            return False
        lost |= loses
        kept |= here - loses
    return True


def pack(assignment: str, variants: dict[str, dict], max_size: int = MAX_PACK) -> list[dict[str, set[str]]]:
    """Variants in shared submissions (`can_share`): each pack maps its members to their affected tests.

    First fit, the variants that affect the most tests first (ties in `variants`' order): the
    same packs on every run.
    """
    affected = affected_tests(assignment, variants)
    packs: list[dict[str, set[str]]] = []
    for name in sorted(variants, key=lambda name: -len(affected[name])):  # stable: ties keep their order
        fits = (
            members
            for members in packs
            if len(members) < max_size and can_share(assignment, {n: variants[n] for n in [*members, name]}, affected)
        )
        members = next(fits, None)
        if members is None:
            members = {}
            packs.append(members)
        members[name] = affected[name]
    return packs
