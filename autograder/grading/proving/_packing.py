"""Which test cells a changed answer can affect, and declared answers packed into shared submissions.

A test cell's verdict depends only on the cells it reads (tests/course/test_fresh_process.py proves it for
every declared answer of the course's own sets, each alone), so answers that change different answer cells can
share one submission when, with all their answers in one notebook, each can affect exactly the test cells it
affects alone, and every test cell a member loses can be affected by no other member. A test cell several
members can affect is then one they all keep: it must keep its full points in the pack, as it does for each of
them alone. The tests no member can affect keep the reference's full points. One submission costs a kernel
start, JAX's import and the notebook's fast cells, whatever it holds; packed, the declared answers need fewer
than half as many submissions.
"""

from __future__ import annotations

from ._sets import ExerciseSet, names_of

# Members per pack at most. A pack's members run one after another in one kernel, so its cells take about the
# sum of theirs (nbgrader's per-cell timeout still bounds each test cell, which only one member can affect):
# the cap keeps a set with many slow answers from making one submission that runs for minutes.
MAX_PACK = 6


def cells_reading_changed_names(
    exercise: ExerciseSet,
    changed: dict[str, str],
    elsewhere: dict[str, str] | None = None,
    names: set[str] | None = None,
) -> set[str]:
    """The test cells that read a name the `changed` answer cells bind, directly or through other cells.

    The other cells are the solution notebook's, or `elsewhere`'s answers where it gives one (a pack's other
    members: a wrong answer may call another answer that the reference does not). With `names`, only those of
    the changed cells' names count as changed.
    """
    elsewhere = elsewhere or {}
    if names is None:
        names = set()
        for grade_id, source in changed.items():
            names |= names_of(source)[0] | names_of(exercise.reference.get(grade_id, ""))[0]
    tainted = set(names)
    tests = set()
    for cell in exercise.code_cells:  # in order: a helper calling an answer passes it on
        if cell.grade_id in changed:
            continue
        bound, read = names_of(elsewhere.get(cell.grade_id or "", cell.source))
        if read & tainted or "*" in read:
            if cell.is_test and cell.grade_id:
                tests.add(cell.grade_id)
            else:
                tainted |= bound
    return tests


def tests_after(exercise: ExerciseSet, changed: dict[str, str]) -> set[str]:
    """Every test cell after the first of the `changed` answer cells: what a global setting there can affect."""
    cells = exercise.code_cells
    first = min(i for i, cell in enumerate(cells) if cell.grade_id in changed)
    return {cell.grade_id for cell in cells[first:] if cell.is_test and cell.grade_id}


def affected_by(exercise: ExerciseSet, variant: dict) -> set[str]:
    """The test cells a declared answer can affect: those reading what it binds, or, for one that changes a
    `setting` every later cell sees (jax_enable_x64 switched on), every test cell after it."""
    if variant.get("setting"):
        return tests_after(exercise, variant["answers"])
    return cells_reading_changed_names(exercise, variant["answers"])


def affected_tests(exercise: ExerciseSet, variants: dict[str, dict]) -> dict[str, set[str]]:
    """Each declared answer's test cells that it can affect; refuses one that `loses` any other."""
    affected = {}
    for name, variant in variants.items():
        affected[name] = affected_by(exercise, variant)
        outside = set(variant["loses"]) - affected[name]
        if outside:
            raise ValueError(
                f"{exercise.name}: {name} loses {sorted(outside)}, which read nothing its answers bind "
                "(is `loses` or the notebook wrong?)"
            )
    return affected


def can_share(exercise: ExerciseSet, variants: dict[str, dict], affected: dict[str, set[str]]) -> bool:
    """Whether `variants` can share a submission: they change different answer cells, with all their answers in
    each can affect exactly the test cells it affects alone, and a test cell one of them loses can be affected
    by no other (a test cell they can all affect is one they all keep)."""
    cells = [cell for variant in variants.values() for cell in variant["answers"]]
    if len(cells) != len(set(cells)):
        return False
    if len(variants) > 1 and any(variant.get("setting") for variant in variants.values()):
        return False  # a global setting would change the other members' verdicts: it is graded alone
    answers = {cell: source for variant in variants.values() for cell, source in variant["answers"].items()}
    lost: set[str] = set()
    kept: set[str] = set()
    for name, variant in variants.items():
        here = cells_reading_changed_names(exercise, variant["answers"], answers)
        loses = here & set(variant["loses"])
        if here != affected[name] or loses & (lost | kept) or (here - loses) & lost:
            return False
        lost |= loses
        kept |= here - loses
    return True


def pack(exercise: ExerciseSet, variants: dict[str, dict], max_size: int = MAX_PACK) -> list[dict[str, set[str]]]:
    """Declared answers in shared submissions (`can_share`): each pack maps its members to their affected tests.

    First fit, the answers that affect the most tests first (ties in `variants`' order): the same packs on
    every run.
    """
    affected = affected_tests(exercise, variants)
    packs: list[dict[str, set[str]]] = []
    for name in sorted(variants, key=lambda name: -len(affected[name])):  # stable: ties keep their order
        fits = (
            members
            for members in packs
            if len(members) < max_size and can_share(exercise, {n: variants[n] for n in [*members, name]}, affected)
        )
        members = next(fits, None)
        if members is None:
            members = {}
            packs.append(members)
        members[name] = affected[name]
    return packs
