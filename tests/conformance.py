"""nbgrader's own autograde scenarios (nbgrader/tests/apps/test_nbgrader_autograde.py, 0.9.6), as data.

Each plan is one assignment: its source, its submissions, and steps (grading runs, edits between runs,
expectations) that tests/grading/test_conformance.py plays under stock `nbgrader autograde` and under
`jax-course grade`. Scenarios share an assignment (a student or a notebook each) wherever nbgrader's
test needs no options of its own, so that few runs cover many tests. Fixtures are read from the
installed nbgrader, never copied into this repository.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import nbgrader
from nbformat.v4 import new_code_cell, new_notebook

FILES = Path(nbgrader.__file__).parent / "tests" / "apps" / "files"
BOTH, OURS = ("stock", "ours"), ("ours",)
DUE = "2015-02-02 14:58:23.948203 America/Los_Angeles"
LATE = "2015-02-02 15:58:23.948203 America/Los_Angeles"
CONFIG = 'c = get_config()\nc.Autograde.exclude_overwriting = {"ps_files": ["helper.py", "subdir/helper.py"]}\n'
# nbgrader's test_late_submission_penalty_plugin: one point off per hour late.
PLUGIN = """from nbgrader.plugins import BasePlugin

class Blarg(BasePlugin):
    def late_submission_penalty(self, student_id, score, total_seconds_late):
        return int(total_seconds_late / 3600)
"""
EMPTY = nbformat.writes(new_notebook())
_twins = new_notebook(cells=[new_code_cell("x = 1"), new_code_cell("y = 2")])
_twins.cells[1].id = _twins.cells[0].id
DUPLICATED_IDS = json.dumps(_twins)  # two cells with one nbformat id (stock's nbformat repairs it)

Content = str | Path | Callable[[Path], str]  # literal text, a fixture of nbgrader's, or from the built course


def fx(name: str) -> Path:
    return FILES / name


@dataclass(frozen=True)
class Run:
    """One run, `nbgrader autograde A ARGS` or `jax-course grade A ARGS`; its exit status counts for `scenarios`."""

    args: tuple[str, ...] = ()
    exit: int = 0
    scenarios: tuple[str, ...] = ()
    graders: tuple[str, ...] = BOTH


@dataclass(frozen=True)
class Edit:
    files: dict[str, str | None]  # relative to the course; None deletes


@dataclass(frozen=True)
class Expect:
    """What nbgrader's test asserts of one student after a run.

    files: path under autograded/STUDENT/ASSIGNMENT ("~/" for the course root) -> present (True), absent
    (False), exact contents (str), or a check returning a problem or None. notebooks: notebook -> gradebook
    attributes, and "failing": grade cells with an error (what `nbgrader validate` counts). late:
    total_seconds_late > 0. graded: whether the gradebook holds the submission (None: not checked).
    report (jax-course's report.csv): column -> regex, and "columns": names its header must have.
    """

    scenario: str
    student: str
    files: dict[str, object] = field(default_factory=dict)
    notebooks: dict[str, dict[str, object]] = field(default_factory=dict)
    late: bool | None = None
    graded: bool | None = None
    comments: dict[tuple[str, str], str | None] = field(default_factory=dict)  # (cell, notebook) -> comment
    report: dict[str, object] = field(default_factory=dict)
    graders: tuple[str, ...] = BOTH


@dataclass(frozen=True)
class Plan:
    assignment: str
    source: dict[str, Content]
    students: dict[str, dict[str, Content]]
    steps: list[Run | Edit | Expect]
    ours_only: dict[str, dict[str, Content]] = field(default_factory=dict)  # submissions stock never sees
    release: tuple[str, ...] = ()  # options of its own for `nbgrader generate_assignment`


def _outputs(path: Path) -> list:
    return [cell.get("outputs") for cell in nbformat.read(path, as_version=4).cells]


def as_submitted(equal: bool) -> Callable[[Path], str | None]:
    """test_no_execute: the autograded outputs are (not) those submitted in test-with-output.ipynb."""

    def check(path: Path) -> str | None:
        same = _outputs(path) == _outputs(fx("test-with-output.ipynb"))
        return None if same == equal else f"outputs {'differ from' if equal else 'equal'} the submitted ones"

    return check


def has_hidden_tests(path: Path) -> str | None:
    return None if "BEGIN HIDDEN TESTS" in path.read_text() else "the hidden tests are not back"


def nb(score, top=None, manual=None, penalty: object = ...) -> dict[str, object]:
    """A notebook's expected gradebook attributes (None: not checked; a penalty of None is checked)."""
    found = {k: v for k, v in dict(score=score, max_score=top, needs_manual_grade=manual).items() if v is not None}
    return found if penalty is ... else {**found, "late_submission_penalty": penalty}


SLEEPY = fx("timeout.ipynb")  # a cell sleeps 5 s: within nbgrader's default 30 s a cell, not within 3 s
U, C, P1 = fx("submitted-unchanged.ipynb"), fx("submitted-changed.ipynb"), "p1.ipynb"
NO_RESPONSE = {("set_a", "p1"): "No response.", ("baz", "p1"): "No response.", ("quux", "p1"): "No response."}
NONE = dict.fromkeys(NO_RESPONSE)
AUTOTESTS = {"simple": ("", 1, 1), "hashed": ("hashed_", 1, 1), "multi": ("complex_", 4, 3)}  # prefix, max, right
LOOPS = {"loop": "infinite-loop.ipynb", "loop_output": "infinite-loop-with-output.ipynb"}
# Every scenario without options of its own: a student (or notebook) each, one run. A 3 s cell timeout
# ends the endless loops soon (nbgrader's tests use 1 and 2 s) and the 5 s sleep; other cells take milliseconds.
PS1_ARGS = ("--Execute.timeout=3", "--CourseDirectory.student_id_exclude=excluded_bar,excluded_baz")
PS1 = Plan(
    "ps1",
    {
        P1: U,
        "p2.ipynb": U,  # test_grade_missing_notebook; p1 and p2 share grade ids
        **{f"{n}.ipynb": fx(f"autotest-{n}.ipynb") for n in AUTOTESTS},
        **{f"{n}.ipynb": fx(f) for n, f in LOOPS.items()},
        "side.ipynb": fx("side-effects.ipynb"),
        "relative.ipynb": fx("open_relative_file.ipynb"),
        "data.txt": fx("data.txt"),
        "envvar.ipynb": fx("validating-environment-variable.ipynb"),
        "sleepy.ipynb": SLEEPY,
        "noexec.ipynb": fx("test.ipynb"),
    },
    {
        **{f"{k}_foo": {P1: U} for k in ("grade", "excluded")},
        **{f"{k}_bar": {P1: C} for k in ("grade", "excluded", "missing")},
        "excluded_baz": {P1: C},
        "cheat_spam": {P1: fx("submitted-cheat-attempt.ipynb")},
        "cheat_eggs": {P1: fx("submitted-cheat-attempt-alternative.ipynb")},
        **{
            f"{n}_{w}": {f"{n}.ipynb": fx(f"autotest-{n}-{w}.ipynb")}
            for n in AUTOTESTS
            for w in ("unchanged", "changed")
        },
        "late_foo": {P1: U, "timestamp.txt": LATE},
        "early_bar": {P1: C, "timestamp.txt": "2015-02-01 14:58:23.948203 America/Los_Angeles"},
        "empty_timestamp": {P1: U, "timestamp.txt": ""},
        "ontime_none": {P1: U, "timestamp.txt": DUE},
        "late_none": {P1: C, "timestamp.txt": LATE},
        "extra_notebook": {"p1 copy.ipynb": U, P1: C},
        **{f"{n}_foo": {f"{n}.ipynb": fx(f)} for n, f in LOOPS.items()},
        "side_foo": {"side.ipynb": fx("side-effects.ipynb")},
        "relative_foo": {"relative.ipynb": fx("open_relative_file.ipynb")},
        "envvar_foo": {"envvar.ipynb": fx("validating-environment-variable.ipynb")},
        "no_files": {},
        "noexec_foo": {"noexec.ipynb": fx("test-with-output.ipynb")},
        "timeout_bar": {"sleepy.ipynb": SLEEPY},
    },
    [
        Run(PS1_ARGS, scenarios=("grade", "student_id_exclude", "infinite_loop", "missing_files", "autograde_timeout")),
        # test_autograde_timeout, with the timeout given on the command line: 3 s is too short for the cell.
        Expect("autograde_timeout", "timeout_bar", {"sleepy.ipynb": True}, {"sleepy": nb(0)}),
        Expect("grade", "grade_foo", {P1: True, "timestamp.txt": False}, {"p1": nb(1, 7, False)}, comments=NO_RESPONSE),
        Expect("grade", "grade_bar", {P1: True, "timestamp.txt": False}, {"p1": nb(2, 7, True)}, comments=NONE),
        # Its manually graded cells wait for a grade: not zeros in the report.
        Expect(
            "report_scores_are_nbgrader_exports",
            "grade_bar",
            report={"p1/baz": "^needs manual grade$", "p1/foo": "^1.0$"},
            graders=OURS,
        ),
        *[
            Expect(f"grade_{prefix}autotest", f"{n}_{w}", {f"{n}.ipynb": True}, {n: nb(score, top, False)})
            for n, (prefix, top, right) in AUTOTESTS.items()
            for w, score in (("unchanged", 0), ("changed", right))
        ],
        *[Expect("showtraceback_exploit", s, {P1: True}, {"p1": nb(1, 7, True)}) for s in ("cheat_spam", "cheat_eggs")],
        Expect("student_id_exclude", "excluded_foo", {P1: True}, {"p1": nb(1)}),
        *[Expect("student_id_exclude", s, {P1: False}, graded=False) for s in ("excluded_bar", "excluded_baz")],
        Expect("grade_timestamp", "late_foo", {P1: True, "timestamp.txt": LATE}, late=True),
        # Where jax-course goes further: nbgrader's warnings about a submission are in its report row.
        Expect("warnings_in_the_report", "late_foo", report={"reason": r"nbgrader: .* seconds late"}, graders=OURS),
        Expect("grade_timestamp", "early_bar", {P1: True, "timestamp.txt": True}, late=False),
        Expect("grade_empty_timestamp", "empty_timestamp", {P1: True, "timestamp.txt": True}, late=False),
        Expect("late_submission_penalty_none", "ontime_none", {}, {"p1": nb(1, penalty=None)}, False),
        Expect("late_submission_penalty_none", "late_none", {}, {"p1": nb(2, penalty=None)}, True),
        Expect("skip_extra_notebooks", "extra_notebook", {P1: True, "p1 copy.ipynb": False}),
        Expect(
            "side_effects", "side_foo", {"side-effect.txt": True, "~/submitted/side_foo/ps1/side-effect.txt": False}
        ),
        # nbgrader's test_validate_subdir, autograded: a cell reads data.txt, beside the notebook.
        Expect("open_relative_file", "relative_foo", {"data.txt": True}, {"relative": nb(10, 10)}),
        Expect("grade_with_validating_envvar", "envvar_foo", {"envvar.ipynb": True}, {"envvar": nb(0)}),
        Expect("grade_missing_notebook", "missing_bar", {P1: True, "p2.ipynb": False}, {"p2": nb(0, manual=False)}),
        Expect("missing_files", "no_files", {"..": False}),
        Expect("infinite_loop", "loop_foo", {"loop.ipynb": True}),
        # nbgrader's own test (skipped there) expects a failure, which needs a kernel that cannot be
        # interrupted; with a short cell timeout the loop is interrupted and the notebook graded.
        Expect("infinite_loop_with_output", "loop_output_foo", {"loop_output.ipynb": True}, graded=True),
        Expect("no_execute", "noexec_foo", {"noexec.ipynb": as_submitted(False)}),
        # jax-course names each problem notebook/grade_id in report.csv: p1 and p2 share grade ids.
        Expect("report_keys_name_the_notebook", "grade_foo", report={"columns": ("p1/foo", "p2/foo")}, graders=OURS),
        Run(PS1_ARGS, scenarios=("grade_timestamp",)),  # "make sure it still works to run it a second time"
        Expect("grade_timestamp", "late_foo", {"timestamp.txt": LATE}, late=True),
        Run(("--force", "--no-execute", "--student", "noexec_foo"), scenarios=("no_execute",)),
        Expect("no_execute", "noexec_foo", {"noexec.ipynb": as_submitted(True)}),
    ],
)

HIDDEN = {"foo": "unchanged", "bar": "changed-wrong", "baz": "changed-right"}
PS_HIDDEN = Plan(
    "ps_hidden",
    {"hidden.ipynb": fx("test-hidden-tests.ipynb"), "auto.ipynb": fx("autotest-hidden.ipynb"), "sleepy.ipynb": SLEEPY},
    {
        "hidden_foo": {"hidden.ipynb": lambda course: (course / "release/ps_hidden/hidden.ipynb").read_text()},
        **{f"auto_{s}": {"auto.ipynb": fx(f"autotest-hidden-{f}.ipynb")} for s, f in HIDDEN.items()},
        "timeout_foo": {"sleepy.ipynb": SLEEPY},
    },
    [
        Run(scenarios=("hidden_tests_single_notebook", "hidden_tests_autotest", "autograde_timeout")),
        # test_autograde_timeout, the other half: nbgrader's default timeout (30 s a cell) lets it finish.
        Expect("autograde_timeout", "timeout_foo", {"sleepy.ipynb": True}, {"sleepy": nb(1)}),
        Expect(
            "hidden_tests_single_notebook",
            "hidden_foo",
            {"hidden.ipynb": has_hidden_tests},
            {"hidden": dict(score=1.5, failing=2)},
        ),
        *[
            Expect(
                "hidden_tests_autotest",
                f"auto_{s}",
                {"auto.ipynb": has_hidden_tests},
                {"auto": dict(score=x, failing=1 - x)},
            )
            for s, x in (("foo", 0), ("bar", 0), ("baz", 1))
        ],
    ],
    release=("--force", "--ClearSolutions.code_stub=# YOUR CODE HERE"),  # as nbgrader's two tests release it
)
