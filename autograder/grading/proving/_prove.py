"""`jax-course prove`: a set graded from every side, in both pipelines, and a scorecard of what held.

The reference must get full marks, the untouched release zero, the answers that do nothing (`_nothing.py`) zero
on every test that reads them, each declared wrong answer lose exactly its points with a message that names
its cause, and each declared alternative keep full marks. Besides: every section a test cites exists, no hidden
test or reference answer reaches the feedback, and every test is verified outside the kernel or names why not.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..._verified import in_the_kernel, problems
from . import _nothing
from ._declared import declared, problems_with
from ._judge import (
    WHOLE_SET,
    Findings,
    failure,
    failures_read_well,
    feedback_keeps_its_secrets,
    feedback_sections,
    page_text,
    passes_are_quiet,
    says_its_cause,
    where_caught,
)
from ._packing import pack
from ._run import JAX_COURSE, NBGRADER, PIPELINES, Scratch, layout, scratch_courses
from ._sets import ExerciseSet, lecture_headings

# Timed, structural and statistical checks: each needs two declared wrong answers that fail it.
SPECIAL_CHECKS = (
    "check_speedup",
    "check_jaxpr_constant",
    "check_primitives",
    "check_pure",
    "check_jitted",
    "check_compile_count",
    "check_largest_intermediate",
    "check_no_key_reuse",
    "check_reproducible",
    "check_within_sigmas",
    "check_independent_rows",
    "check_timing_protocol",
    "check_saved_residuals",
    "check_hottest_op",
    "check_pallas_kernel",
    "check_collectives",
    "check_memory_per_device",
    "check_not_replicated",
    "check_no_program_built",
)
REFERENCE, UNTOUCHED = "reference", "untouched"


def nothing_student(kind: str) -> str:
    return "nothing-" + kind.replace(" ", "-")


@dataclass
class Row:
    """One line of the scorecard: an answer's score on a test, against what it must score."""

    test: str
    answer: str
    expected: float
    got: dict[str, float | None] = field(default_factory=dict)  # by pipeline
    caught: str = ""  # visible, hidden or verifier: where it failed
    message: str = ""  # its failure's first line

    @property
    def holds(self) -> bool:
        return all(score == self.expected for score in self.got.values())


@dataclass
class Proof:
    exercise: ExerciseSet
    tests: list[str]  # those proven (one problem's, with --problem)
    rows: list[Row]
    findings: Findings
    caught: dict[tuple[str, str], str]  # (declared answer, test) -> visible or hidden
    bypassed: dict[str, bool]  # bypass name (and "nothing") -> caught
    packs: dict[str, dict[str, set[str]]]  # the scratch student -> {declared answer: the tests it can affect}

    @property
    def sound(self) -> bool:
        return not self.findings.unsound


@dataclass
class _Plan:
    """Who is submitted, with what answers, graded by which pipelines."""

    answers: dict[str, dict[str, str]] = field(default_factory=dict)
    graded_by: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def add(self, student: str, answers: dict[str, str], pipelines: tuple[str, ...]) -> None:
        self.answers[student], self.graded_by[student] = answers, pipelines


def tests_of(exercise: ExerciseSet, problem: str | None) -> list[str]:
    """The tests to prove: every one, or those of one problem (its number, or any grade id within it)."""
    if problem is None:
        return list(exercise.points)
    for number, (heading, tests) in enumerate(exercise.problems, 1):
        if problem in (str(number), heading, *tests) or problem in _answer_cells_before(exercise, tests):
            return tests
    names = ", ".join(f"{n} ({h})" for n, (h, _) in enumerate(exercise.problems, 1))
    raise ValueError(f"{exercise.name} has no problem {problem!r}; its problems: {names}")


def _answer_cells_before(exercise: ExerciseSet, tests: list[str]) -> set[str]:
    """The answer cells between the previous problem's tests and these."""
    cells, found = exercise.code_cells, set()
    for cell in cells:
        if cell.grade_id in tests:
            return found
        if cell.is_test:
            found = set()
        elif cell.is_answer and cell.grade_id:
            found.add(cell.grade_id)
    return found


def prove(
    root: Path,
    assignment: str,
    *,
    problem: str | None = None,
    once: bool = False,
    workers: int = 0,
    scratch: Path | None = None,
) -> Proof:
    """Grade the set's reference, untouched release, answers that do nothing and declared answers, and judge them.

    Every submission goes through both pipelines, or, `once`, each but the reference through one (the wrong
    answers through nbgrader's, the answers that do nothing through `jax-course grade`), as the course's suite
    does. The references must already be recorded (`jax-course prove` records them first).
    """
    exercise = ExerciseSet(root, assignment, layout(root).source)
    tests = tests_of(exercise, problem)
    findings = Findings()
    variants = declared(root, assignment)
    _static(exercise, variants, tests, findings)
    if findings.unsound.get(WHOLE_SET):
        return Proof(exercise, tests, [], findings, {}, {}, {})  # the declarations cannot be graded as they are
    chosen = {n: v for n, v in variants.items() if problem is None or _touches(exercise, v, tests)}
    packs = {f"pack{n:02d}": members for n, members in enumerate(pack(exercise, chosen), 1)}
    plan = _plan(exercise, chosen, packs, once)
    with tempfile.TemporaryDirectory(prefix=f"jax-course-prove-{assignment}-", dir=scratch) as folder:
        courses = scratch_courses(root, exercise, Path(folder), PIPELINES)
        for course in courses:
            for student, answers in plan.answers.items():
                if course.pipeline in plan.graded_by[student]:
                    course.submit(student, answers)
            course.grade(workers)
            if not once or course.pipeline == NBGRADER:  # once: the other's feedback is of the same cells
                course.feedback()
        return _judge(exercise, tests, chosen, packs, plan, courses, findings)


def _touches(exercise: ExerciseSet, variant: dict, tests: list[str]) -> bool:
    from ._packing import affected_by

    return bool(affected_by(exercise, variant) & set(tests))


def _plan(exercise: ExerciseSet, variants: dict, packs: dict, once: bool) -> _Plan:
    plan = _Plan()
    plan.add(REFERENCE, exercise.reference, PIPELINES)
    plan.add(UNTOUCHED, {}, (NBGRADER,) if once else PIPELINES)
    for kind in _nothing.KINDS:
        plan.add(nothing_student(kind), _nothing.answers(exercise, kind), (JAX_COURSE,) if once else PIPELINES)
    for student, members in packs.items():
        answers = {cell: source for name in members for cell, source in variants[name]["answers"].items()}
        plan.add(student, {**exercise.reference, **answers}, (NBGRADER,) if once else PIPELINES)
    return plan


def _static(exercise: ExerciseSet, variants: dict, tests: list[str], findings: Findings) -> None:
    """What needs no grading: the declarations, the cited sections, and where each test is decided."""
    for why in problems_with(exercise, variants, set(problems(exercise.name))):
        findings.add(WHOLE_SET, f"tests/variants/{exercise.name}.py: {why}")
    verified, kept = problems(exercise.name), in_the_kernel(exercise.name)
    for test in tests:
        for lecture, heading in sorted(exercise.sections.get(test, ())):
            headings = lecture_headings(exercise.root, lecture)
            if headings is None:
                findings.add(test, f"cites section {lecture}#{heading}, but there is no lecture {lecture}")
            elif heading not in headings:
                findings.add(test, f"cites section {lecture}#{heading}, which lecture {lecture} has no heading for")
        if exercise.uses_checks and test not in verified and test not in kept:
            findings.add(
                test,
                f"is neither verified outside the kernel nor says why not: add [{test}] to "
                f'autograder/verified/{exercise.name}.toml, or `{test} = "why"` under its [in_the_kernel]',
            )
    lost = set().union(*(v["loses"] for v in variants.values())) if variants else set()
    for test in tests:
        if test not in lost:
            findings.gaps.append(f"{test}: no declared wrong answer loses it (no one has seen it fail)")
        special = any(check in exercise.test_source(test) for check in SPECIAL_CHECKS)
        failing = [name for name, v in variants.items() if test in v["loses"]]
        if special and len(failing) < 2:
            findings.gaps.append(
                f"{test}: a timed or structural check failed by {len(failing)} declared answer(s), not 2"
            )


def _judge(
    exercise: ExerciseSet,
    tests: list[str],
    variants: dict,
    packs: dict[str, dict[str, set[str]]],
    plan: _Plan,
    courses: list[Scratch],
    findings: Findings,
) -> Proof:
    points = exercise.points
    graded = {course.pipeline: (course, course.scores()) for course in courses}
    rows: dict[tuple[str, str], Row] = {}

    read: set[tuple[str, str]] = set()

    def expect(student: str, answer: str, expected: dict[str, float]) -> None:
        for pipeline in plan.graded_by[student]:
            course, scores = graded[pipeline]
            nb = course.graded(student)
            if student not in scores or nb is None:
                findings.add(WHOLE_SET, f"{answer} could not be graded by {pipeline}: {course.said.strip()}")
                continue
            failed = failure(nb)
            for test, want in expected.items():
                row = rows.setdefault((test, answer), Row(test, answer, want))
                row.got[pipeline] = scores[student].get(test)
                if test in failed and not row.message:
                    row.caught, row.message = failed[test][0], failed[test][1]
            if (student, pipeline) not in read:  # a pack's notebook once, whichever member is judged first
                read.add((student, pipeline))
                failures_read_well(nb, f"{student} ({pipeline})", findings)
            if student == REFERENCE:
                passes_are_quiet(nb, f"the reference ({pipeline})", findings, exercise.uses_checks)

    expect(REFERENCE, REFERENCE, {t: points[t] for t in tests})
    expect(UNTOUCHED, "the untouched release", dict.fromkeys(tests, 0.0))
    nothing_caught = True
    for kind in _nothing.KINDS:
        loses = _nothing.losing_tests(exercise, kind)
        if not loses:
            findings.add(WHOLE_SET, f"no test reads an answer that does nothing ({kind})")
        expect(nothing_student(kind), f"does nothing ({kind})", {t: 0.0 if t in loses else points[t] for t in tests})
        graded_rows = [rows.get((t, f"does nothing ({kind})")) for t in tests if t in loses]
        nothing_caught &= all(row is not None and row.holds for row in graded_rows)
    for student, members in packs.items():
        for name, affected in members.items():
            loses = variants[name]["loses"]
            expect(student, name, {t: 0.0 if t in loses else points[t] for t in sorted(affected) if t in tests})
        unaffected = set(tests) - set().union(*members.values())
        expect(
            student, f"{student} ({', '.join(members)}), on tests none can affect", {t: points[t] for t in unaffected}
        )
    for row in rows.values():
        if not row.holds:
            findings.add(row.test, _why(row))
    caught, bypassed = _declared_answers(exercise, variants, packs, plan, graded, findings)
    bypassed["nothing"] = nothing_caught
    _feedback(exercise, variants, packs, plan, courses, caught, findings)
    return Proof(exercise, tests, list(rows.values()), findings, caught, bypassed, packs)


def _why(row: Row) -> str:
    got = ", ".join(f"{score if score is not None else 'nothing'} by {p}" for p, score in row.got.items())
    if row.expected == 0:
        return f"{row.answer} must score 0 and scores {got}"
    said = f": {row.message}" if row.message else ""
    return f"{row.answer} must keep its {row.expected:g} points and scores {got}{said}"


def _declared_answers(exercise, variants, packs, plan, graded, findings):
    """Where each declared wrong answer is caught (for the variants table), whether each bypass is, and whether
    each names its cause."""
    caught: dict[tuple[str, str], str] = {}
    bypassed: dict[str, bool] = {}
    for student, members in packs.items():
        pipeline = plan.graded_by[student][0]
        course, scores = graded[pipeline]
        nb = course.graded(student)
        if nb is None or student not in scores:
            continue
        where = where_caught(nb)
        for name in members:
            variant = variants[name]
            caught.update({(name, test): where.get(test, "no error shown") for test in sorted(variant["loses"])})
            if "bypass" in variant:
                bypassed[name] = all(scores[student].get(test) == 0.0 for test in variant["loses"])
            for pipeline_ in plan.graded_by[student]:
                course_, scores_ = graded[pipeline_]
                if (nb_ := course_.graded(student)) is not None and student in scores_:
                    says_its_cause(nb_, scores_[student], name, variant, pipeline_, findings)
    return caught, bypassed


def _feedback(exercise, variants, packs, plan, courses, caught, findings) -> None:
    """Feedback keeps each failure's message and shows no hidden test or reference answer."""
    secret = _secret_answer_lines(exercise)
    caught_hidden = [(name, test) for (name, test), where in caught.items() if where == "hidden"]
    for course in courses:
        for student in course.students:
            page = course.feedback_page(student)
            if page is None:
                continue
            written = "\n".join(s for name in packs.get(student, {}) for s in variants[name]["answers"].values())
            shares_reference = student != UNTOUCHED  # the other submissions hold reference answers they did not write
            feedback_keeps_its_secrets(
                exercise, page, written, set() if shares_reference else secret, student, findings
            )
        for name, test in caught_hidden:
            student = next(s for s, members in packs.items() if name in members)
            page = course.feedback_page(student) if student in course.students else None
            if page is None:
                continue
            shown = page_text(feedback_sections(page).get(test, ""))
            if not re.search(r"\w+(Error|Failed|Exception): \S", shown):
                findings.add(test, f"{name}: its feedback ({course.pipeline}) names no failure")
            if name.endswith("_hardcoded") and not re.search(r"on (a )?hidden input", shown):
                findings.add(test, f"{name}: its feedback does not say the input was hidden")
    if variants and not caught_hidden:
        findings.gaps.append(
            "no declared wrong answer is caught only by a hidden test: the feedback of a hidden failure is not proven"
        )


def _secret_answer_lines(exercise: ExerciseSet) -> set[str]:
    """Lines of the reference answers that nothing a student is shown holds (the problem's own words may quote
    a line of code the answer has: that is no leak)."""
    public, secret = set(), set()
    for cell in exercise.notebook.cells:
        inside = False
        for line in cell.source.splitlines():
            if "### BEGIN SOLUTION" in line:
                inside = True
            elif "### END SOLUTION" in line:
                inside = False
            elif inside:
                secret.add(line.strip())
            else:
                public.add(line.strip())
    shown = "\n".join(public)
    return {line for line in secret - public if len(line) > 12 and line not in shown}
