"""nbgrader's own autograde scenarios (nbgrader/tests/apps/test_nbgrader_autograde.py, 0.9.6), as data.

Each plan is one assignment of one course: its source, its submissions, and steps (grading runs, edits
between runs, expectations) that tests/grading/test_conformance.py plays under stock `nbgrader autograde`
and under `jax-course grade`. Scenarios share an assignment (one student, or one notebook, each) wherever
nbgrader's test needs no options of its own, so that few grading runs cover many tests. Fixtures are
read from the installed nbgrader, never copied into this repository.
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
CONFIG = """c = get_config()
c.ClearSolutions.code_stub = dict(python="# YOUR CODE HERE")
c.Autograde.exclude_overwriting = {"ps_files": ["helper.py", "subdir/helper.py"]}
"""
# nbgrader's test_late_submission_penalty_plugin: one point off per hour late.
PLUGIN = """from nbgrader.plugins import BasePlugin

class Blarg(BasePlugin):
    def late_submission_penalty(self, student_id, score, total_seconds_late):
        return int(total_seconds_late / 3600)
"""
EMPTY = nbformat.writes(new_notebook())
_twins = new_notebook(cells=[new_code_cell("x = 1"), new_code_cell("y = 2")])
_twins.cells[1].id = _twins.cells[0].id
DUPLICATED_IDS = json.dumps(_twins)  # two cells with one nbformat id (stock nbformat repairs it)
INVALID_TIMESTAMP = "But I want to be a timestamp string :("

# A file's content: literal text, a fixture of nbgrader's, or computed from the built course.
Content = str | Path | Callable[[Path], str]


def fx(name: str) -> Path:
    return FILES / name


def released(assignment: str, notebook: str) -> Callable[[Path], str]:
    return lambda course: (course / "release" / assignment / notebook).read_text()


@dataclass(frozen=True)
class Run:
    """One grading run: `nbgrader autograde A ARGS` or `jax-course grade A ARGS`, and its exit status."""

    args: tuple[str, ...] = ()
    exit: int = 0
    scenarios: tuple[str, ...] = ()
    graders: tuple[str, ...] = BOTH


@dataclass(frozen=True)
class Edit:
    """Files changed between runs (relative to the course; None deletes)."""

    files: dict[str, str | None]


@dataclass(frozen=True)
class Expect:
    """What nbgrader's test asserts of one student after a run.

    files: path under autograded/STUDENT/ASSIGNMENT ("~/" for the course root) -> present (True),
    absent (False), exact contents (str) or a check returning a problem or None. notebooks: notebook ->
    gradebook attributes, and "failing" (grade cells with an error, what `nbgrader validate` counts).
    late: total_seconds_late > 0. graded: whether the gradebook holds the submission (None: not checked).
    report (ours): report.csv column -> regex; "columns": names that must be among its columns.
    """

    scenario: str
    student: str
    files: dict[str, object] = field(default_factory=dict)
    notebooks: dict[str, dict[str, object]] = field(default_factory=dict)
    late: bool | None = None
    graded: bool | None = None
    comments: dict[tuple[str, str], str | None] = field(default_factory=dict)
    report: dict[str, object] = field(default_factory=dict)
    graders: tuple[str, ...] = BOTH


@dataclass(frozen=True)
class Plan:
    assignment: str
    source: dict[str, Content]
    students: dict[str, dict[str, Content]]
    steps: list[Run | Edit | Expect]
    ours_only: dict[str, dict[str, Content]] = field(default_factory=dict)  # submissions stock never sees


def _outputs(path: Path) -> list:
    return [cell.get("outputs") for cell in nbformat.read(path, as_version=4).cells]


def outputs_as_submitted(equal: bool) -> Callable[[Path], str | None]:
    """test_no_execute: the autograded outputs are (not) those of test-with-output.ipynb."""

    def check(path: Path) -> str | None:
        same = _outputs(path) == _outputs(fx("test-with-output.ipynb"))
        return None if same == equal else f"outputs {'differ from' if equal else 'equal'} the submitted ones"

    return check


def _nb(score, max_score=7, manual=False, **more) -> dict[str, object]:
    return dict(score=score, max_score=max_score, needs_manual_grade=manual, **more)


U, C = fx("submitted-unchanged.ipynb"), fx("submitted-changed.ipynb")
HIDDEN = "BEGIN HIDDEN TESTS"
NO_RESPONSE = {("set_a", "p1"): "No response.", ("baz", "p1"): "No response.", ("quux", "p1"): "No response."}
PS1_SOURCE: dict[str, Content] = {
    "p1.ipynb": U,
    "p2.ipynb": U,  # test_grade_missing_notebook; p1 and p2 share grade ids (report columns: notebook/grade_id)
    "simple.ipynb": fx("autotest-simple.ipynb"),
    "hashed.ipynb": fx("autotest-hashed.ipynb"),
    "multi.ipynb": fx("autotest-multi.ipynb"),
    "hidden.ipynb": fx("test-hidden-tests.ipynb"),
    "hidden_auto.ipynb": fx("autotest-hidden.ipynb"),
    "side.ipynb": fx("side-effects.ipynb"),
    "relative.ipynb": fx("open_relative_file.ipynb"),
    "data.txt": fx("data.txt"),
    "envvar.ipynb": fx("validating-environment-variable.ipynb"),
    "loop.ipynb": fx("infinite-loop.ipynb"),
    "loop_output.ipynb": fx("infinite-loop-with-output.ipynb"),
    "noexec.ipynb": fx("test.ipynb"),
}
# Every scenario without options of its own: one student (or notebook) each, one run. A 3 s cell
# timeout ends the endless loops quickly (nbgrader's tests use 1 and 2 s); every other cell is instant.
PS1_ARGS = ("--Execute.timeout=3", "--CourseDirectory.student_id_exclude=excluded_bar,excluded_baz")
PS1 = Plan(
    "ps1",
    PS1_SOURCE,
    {
        "grade_foo": {"p1.ipynb": U},
        "grade_bar": {"p1.ipynb": C},
        "cheat_spam": {"p1.ipynb": fx("submitted-cheat-attempt.ipynb")},
        "cheat_eggs": {"p1.ipynb": fx("submitted-cheat-attempt-alternative.ipynb")},
        "simple_foo": {"simple.ipynb": fx("autotest-simple-unchanged.ipynb")},
        "simple_bar": {"simple.ipynb": fx("autotest-simple-changed.ipynb")},
        "hashed_foo": {"hashed.ipynb": fx("autotest-hashed-unchanged.ipynb")},
        "hashed_bar": {"hashed.ipynb": fx("autotest-hashed-changed.ipynb")},
        "multi_foo": {"multi.ipynb": fx("autotest-multi-unchanged.ipynb")},
        "multi_bar": {"multi.ipynb": fx("autotest-multi-changed.ipynb")},
        "excluded_foo": {"p1.ipynb": U},
        "excluded_bar": {"p1.ipynb": C},
        "excluded_baz": {"p1.ipynb": C},
        "late_foo": {"p1.ipynb": U, "timestamp.txt": LATE},
        "early_bar": {"p1.ipynb": C, "timestamp.txt": "2015-02-01 14:58:23.948203 America/Los_Angeles"},
        "empty_timestamp": {"p1.ipynb": U, "timestamp.txt": ""},
        "ontime_none": {"p1.ipynb": U, "timestamp.txt": DUE},
        "late_none": {"p1.ipynb": C, "timestamp.txt": LATE},
        "extra_notebook": {"p1 copy.ipynb": U, "p1.ipynb": C},
        "side_foo": {"side.ipynb": fx("side-effects.ipynb")},
        "relative_foo": {"relative.ipynb": fx("open_relative_file.ipynb")},
        "envvar_foo": {"envvar.ipynb": fx("validating-environment-variable.ipynb")},
        "missing_nb": {"p1.ipynb": C},
        "no_files": {},
        "loop_foo": {"loop.ipynb": fx("infinite-loop.ipynb")},
        "loop_output_foo": {"loop_output.ipynb": fx("infinite-loop-with-output.ipynb")},
        "hidden_foo": {"hidden.ipynb": released("ps1", "hidden.ipynb")},
        "hidden_auto_foo": {"hidden_auto.ipynb": fx("autotest-hidden-unchanged.ipynb")},
        "hidden_auto_bar": {"hidden_auto.ipynb": fx("autotest-hidden-changed-wrong.ipynb")},
        "hidden_auto_baz": {"hidden_auto.ipynb": fx("autotest-hidden-changed-right.ipynb")},
        "noexec_foo": {"noexec.ipynb": fx("test-with-output.ipynb")},
    },
    [
        Run(PS1_ARGS, scenarios=("grade", "student_id_exclude", "infinite_loop", "missing_files")),
        Expect("grade", "grade_foo", {"p1.ipynb": True, "timestamp.txt": False}, {"p1": _nb(1)}, comments=NO_RESPONSE),
        Expect(
            "grade",
            "grade_bar",
            {"p1.ipynb": True, "timestamp.txt": False},
            {"p1": _nb(2, manual=True)},
            comments={k: None for k in NO_RESPONSE},
        ),
        *[
            Expect(f"grade_{kind}autotest", f"{nb}_{who}", {f"{nb}.ipynb": True}, {nb: _nb(score, top)})
            for kind, nb, top, scores in (
                ("", "simple", 1, 1),
                ("hashed_", "hashed", 1, 1),
                ("complex_", "multi", 4, 3),
            )
            for who, score in (("foo", 0), ("bar", scores))
        ],
        *[
            Expect("showtraceback_exploit", s, {"p1.ipynb": True}, {"p1": _nb(1, manual=True)})
            for s in ("cheat_spam", "cheat_eggs")
        ],
        Expect("student_id_exclude", "excluded_foo", {"p1.ipynb": True}, {"p1": _nb(1)}),
        *[Expect("student_id_exclude", s, {"p1.ipynb": False}, graded=False) for s in ("excluded_bar", "excluded_baz")],
        Expect("grade_timestamp", "late_foo", {"p1.ipynb": True, "timestamp.txt": LATE}, late=True),
        Expect("grade_timestamp", "early_bar", {"p1.ipynb": True, "timestamp.txt": True}, late=False),
        Expect("grade_empty_timestamp", "empty_timestamp", {"p1.ipynb": True, "timestamp.txt": True}, late=False),
        Expect(
            "late_submission_penalty_none",
            "ontime_none",
            {"timestamp.txt": True},
            {"p1": _nb(1, late_submission_penalty=None)},
            late=False,
        ),
        Expect(
            "late_submission_penalty_none",
            "late_none",
            {"timestamp.txt": True},
            {"p1": _nb(2, manual=True, late_submission_penalty=None)},
            late=True,
        ),
        Expect("skip_extra_notebooks", "extra_notebook", {"p1.ipynb": True, "p1 copy.ipynb": False}),
        Expect(
            "side_effects", "side_foo", {"side-effect.txt": True, "~/submitted/side_foo/ps1/side-effect.txt": False}
        ),
        # nbgrader's test_validate_subdir: a cell opens a file beside the notebook (the source's data.txt).
        Expect("open_relative_file", "relative_foo", {"data.txt": True}, {"relative": dict(score=10, max_score=10)}),
        Expect("grade_with_validating_envvar", "envvar_foo", {"envvar.ipynb": True}, {"envvar": dict(score=0)}),
        Expect("grade_missing_notebook", "missing_nb", {"p1.ipynb": True, "p2.ipynb": False}, {"p2": _nb(0)}),
        Expect("missing_files", "no_files", {"..": False}),
        Expect("infinite_loop", "loop_foo", {"loop.ipynb": True}),
        # nbgrader's own (skipped) test expects a failure: that happens only when the kernel cannot be
        # interrupted; with a short cell timeout the loop is interrupted and the notebook graded.
        Expect("infinite_loop_with_output", "loop_output_foo", {"loop_output.ipynb": True}, graded=True),
        Expect(
            "hidden_tests_single_notebook",
            "hidden_foo",
            {"hidden.ipynb": lambda p: None if HIDDEN in p.read_text() else "no hidden tests"},
            {"hidden": dict(score=1.5, failing=2)},
        ),
        *[
            Expect(
                "hidden_tests_autotest",
                f"hidden_auto_{s}",
                {"hidden_auto.ipynb": lambda p: None if HIDDEN in p.read_text() else "no hidden tests"},
                {"hidden_auto": dict(score=score, failing=failing)},
            )
            for s, score, failing in (("foo", 0, 1), ("bar", 0, 1), ("baz", 1, 0))
        ],
        Expect("no_execute", "noexec_foo", {"noexec.ipynb": outputs_as_submitted(False)}),
        # jax-course reports each problem as notebook/grade_id where notebooks share grade ids.
        Expect(
            "report_keys_name_the_notebook",
            "grade_foo",
            report={"status": "graded", "columns": ("p1/foo", "p2/foo")},
            graders=OURS,
        ),
        Run(PS1_ARGS, scenarios=("grade_timestamp",)),  # "make sure it still works to run it a second time"
        Expect("grade_timestamp", "late_foo", {"timestamp.txt": LATE}, late=True),
        Run(("--force", "--no-execute", "--student", "noexec_foo"), scenarios=("no_execute",)),
        Expect("no_execute", "noexec_foo", {"noexec.ipynb": outputs_as_submitted(True)}),
    ],
)

_FILES_SUBMITTED = {"p1.ipynb": U, "foo.txt": "foo", "data/bar.txt": "bar", "blah.pyc": "asdf"}
_FORCE_FILES = {"p1.ipynb": True, "foo.txt": True, "data/bar.txt": True, "blah.pyc": False}
_A = "autograded/{}/ps_files/{}"
PS_FILES = Plan(
    "ps_files",
    {
        "p1.ipynb": U,
        "foo.txt": "foo",
        "data/bar.txt": "bar",
        "data.csv": "some,data\n",
        "helper.py": "print('hello!')\n",
        "subdir/data.csv": "some,data\n",
        "subdir/helper.py": "print('hello!')\n",
    },
    {
        "force": _FILES_SUBMITTED,
        "filter": _FILES_SUBMITTED,
        "overwrite": {
            "p1.ipynb": U,
            "timestamp.txt": LATE,
            "data.csv": "some,other,data\n",
            "helper.py": "print('this is different!')\n",
        },
        "overwrite_sub": {
            "p1.ipynb": U,
            "timestamp.txt": LATE,
            "subdir/data.csv": "some,other,data\n",
            "subdir/helper.py": "print('this is different!')\n",
        },
    },
    [
        Run(scenarios=("force", "filter_notebook", "grade_overwrite_files", "grade_overwrite_files_subdirs")),
        Expect("force", "force", _FORCE_FILES),
        Expect("filter_notebook", "filter", _FORCE_FILES),
        # The source's files win, except those in Autograde.exclude_overwriting (nbgrader_config.py).
        Expect(
            "grade_overwrite_files",
            "overwrite",
            {"timestamp.txt": LATE, "data.csv": "some,data\n", "helper.py": "print('this is different!')\n"},
        ),
        Expect(
            "grade_overwrite_files_subdirs",
            "overwrite_sub",
            {
                "timestamp.txt": LATE,
                "subdir/data.csv": "some,data\n",
                "subdir/helper.py": "print('this is different!')\n",
            },
        ),
        Edit(
            {
                _A.format("force", "foo.txt"): None,
                _A.format("filter", "p1.ipynb"): None,
                _A.format("filter", "foo.txt"): None,
            }
        ),
        # Without --force a graded submission is left alone; a missing autograded notebook is graded again.
        Run(("--notebook", "p1"), scenarios=("force", "filter_notebook")),
        Expect("force", "force", {"foo.txt": False}),
        Expect("filter_notebook", "filter", _FORCE_FILES),
        Edit({_A.format("filter", "foo.txt"): None}),
        Run(("--notebook", "p1"), scenarios=("filter_notebook",)),
        Expect("filter_notebook", "filter", {"p1.ipynb": True, "foo.txt": False}),
        Run(("--force", "--student", "force"), scenarios=("force",)),
        Expect("force", "force", {"foo.txt": True}),
        Edit({"source/ps_files/foo.txt": None, "submitted/force/ps_files/foo.txt": None}),
        Run(("--force", "--student", "force"), scenarios=("force",)),
        Expect("force", "force", {**_FORCE_FILES, "foo.txt": False}),
    ],
)

# Submissions nbgrader cannot grade: the run exits 1 and the others are graded all the same.
_NO_TRACEBACK = r"^(?!\w*(Error|Exception)\b)"  # a cause in words, not a bare Python exception
PS_FAIL = Plan(
    "ps_fail",
    {"p1.ipynb": EMPTY, "p2.ipynb": EMPTY},
    {
        "handle_foo": {"p1.ipynb": EMPTY, "p2.ipynb": EMPTY},
        "handle_bar": {"p1.ipynb": EMPTY, "p2.ipynb": fx("test.ipynb")},  # nbgrader cells unknown to the source
        "bad_timestamp": {"p1.ipynb": EMPTY, "p2.ipynb": EMPTY, "timestamp.txt": INVALID_TIMESTAMP},
        "duplicated_ids": {"p1.ipynb": DUPLICATED_IDS, "p2.ipynb": EMPTY},
    },
    [
        Run(exit=1, scenarios=("handle_failure", "grade_empty_timestamp", "broken_submissions_do_not_stop_the_batch")),
        Expect("handle_failure", "handle_foo", {".": True, "p1.ipynb": True}),
        Expect("handle_failure", "handle_bar", {".": False}),
        Expect(
            "handle_failure",
            "handle_bar",
            report={"status": "failed", "reason": _NO_TRACEBACK + r".*(metadata|valid)"},
            graders=OURS,
        ),
        Expect(
            "grade_empty_timestamp",
            "bad_timestamp",
            report={"status": "failed", "reason": _NO_TRACEBACK + r".*timestamp"},
            graders=OURS,
        ),
        # Stock nbformat repairs a duplicated cell id, and nbgrader grades the notebook.
        Expect(
            "duplicated_cell_ids", "duplicated_ids", {"p1.ipynb": True}, {"p1": dict(score=0, max_score=0)}, graded=True
        ),
        # jax-course goes further: stock stops the whole batch at a notebook whose nbgrader schema is too new
        # (the students after it are never graded); jax-course fails that one and grades the rest.
        Expect("broken_submissions_do_not_stop_the_batch", "handle_foo", {"p1.ipynb": True}, graders=OURS),
        Expect(
            "broken_submissions_do_not_stop_the_batch",
            "a_too_new",
            {"p1.ipynb": False},
            report={"status": "failed", "reason": _NO_TRACEBACK + r".*(schema|too new|newer)"},
            graders=OURS,
        ),
    ],
    ours_only={"a_too_new": {"p1.ipynb": fx("too-new.ipynb"), "p2.ipynb": EMPTY}},
)

_LATE_PAIR = {"foo": {"p1.ipynb": U, "timestamp.txt": DUE}, "bar": {"p1.ipynb": C, "timestamp.txt": LATE}}
ZERO = ("--LateSubmissionPlugin.penalty_method=zero",)
PS_ZERO = Plan(
    "ps_zero",
    {"p1.ipynb": U},
    _LATE_PAIR,
    [
        Run(ZERO, scenarios=("late_submission_penalty_zero",)),
        Expect(
            "late_submission_penalty_zero",
            "foo",
            {"timestamp.txt": True},
            {"p1": dict(score=1, late_submission_penalty=None)},
            late=False,
        ),
        Expect(
            "late_submission_penalty_zero",
            "bar",
            {"timestamp.txt": True},
            {"p1": dict(score=2, late_submission_penalty=2)},
            late=True,
        ),
        # nbgrader issue 723: the penalty goes when a forced regrade finds the submission on time.
        Edit({"submitted/bar/ps_zero/timestamp.txt": DUE}),
        Run(("--force", *ZERO), scenarios=("late_submission_penalty_zero",)),
        Expect(
            "late_submission_penalty_zero", "bar", {}, {"p1": dict(score=2, late_submission_penalty=None)}, late=False
        ),
    ],
)

PS_PLUGIN = Plan(
    "ps_plugin",
    {"p1.ipynb": U},
    {
        "foo": {"p1.ipynb": U, "timestamp.txt": "2015-02-02 18:58:23.948203 America/Los_Angeles"},
        "bar": _LATE_PAIR["bar"],
    },
    [
        Run(("--AssignLatePenalties.plugin_class=late_plugin.Blarg",), scenarios=("late_submission_penalty_plugin",)),
        Expect(
            "late_submission_penalty_plugin",
            "foo",
            {"timestamp.txt": True},
            {"p1": dict(score=1, late_submission_penalty=1)},
            late=True,
        ),
        Expect(
            "late_submission_penalty_plugin",
            "bar",
            {"timestamp.txt": True},
            {"p1": dict(score=2, late_submission_penalty=1)},
            late=True,
        ),
    ],
)

_SLEEPY = fx("timeout.ipynb")  # a cell that sleeps 5 s: passes nbgrader's default 30 s timeout, not 2 s
PS_TIMEOUT = Plan(
    "ps_timeout",
    {"p1.ipynb": _SLEEPY},
    {"foo": {"p1.ipynb": _SLEEPY}, "bar": {"p1.ipynb": _SLEEPY}},
    [
        Run(("--student", "foo"), scenarios=("autograde_timeout",)),
        Run(("--student", "bar", "--Execute.timeout=2"), scenarios=("autograde_timeout",)),
        Expect("autograde_timeout", "foo", {"p1.ipynb": True}, {"p1": dict(score=1)}),
        Expect("autograde_timeout", "bar", {"p1.ipynb": True}, {"p1": dict(score=0)}),
        # jax-course's own limit on a whole notebook: a failure whose reason says so, and exit status 1.
        Run(("--student", "slow", "--timeout", "2"), exit=1, scenarios=("notebook_timeout",), graders=OURS),
        Expect(
            "notebook_timeout",
            "slow",
            report={"status": "failed", "reason": _NO_TRACEBACK + r".*timeout"},
            graders=OURS,
        ),
    ],
    ours_only={"slow": {"p1.ipynb": _SLEEPY}},
)

PLANS = [PS1, PS_FILES, PS_FAIL, PS_ZERO, PS_PLUGIN, PS_TIMEOUT]
SCENARIOS = {s.scenario: s.graders for p in PLANS for s in p.steps if isinstance(s, Expect)}
for _plan in PLANS:  # a scenario checked under both graders anywhere runs under both
    for _step in _plan.steps:
        if isinstance(_step, Expect) and _step.graders == BOTH:
            SCENARIOS[_step.scenario] = BOTH
