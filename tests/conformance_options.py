"""nbgrader's autograde scenarios that need runs or options of their own (tests/conformance.py has the rest).

Files beside the notebook and reruns (--force, --notebook), failures (exit status 1), late penalties
and timeouts, each assignment graded by its own runs of both graders.
"""

from __future__ import annotations

import nbformat
from conformance import (
    BOTH,
    DUE,
    DUPLICATED_IDS,
    EMPTY,
    LATE,
    OURS,
    P1,
    PS1,
    PS_HIDDEN,
    SLEEPY,
    C,
    Edit,
    Expect,
    Plan,
    Run,
    U,
    fx,
    nb,
)
from nbformat.v4 import new_code_cell, new_notebook

_HANDED_IN = {P1: U, "foo.txt": "foo", "data/bar.txt": "bar", "blah.pyc": "asdf"}
_ALL = {P1: True, "foo.txt": True, "data/bar.txt": True, "blah.pyc": False}
_HELLO, _DIFFERENT, _DATA, _OTHER = (
    "print('hello!')\n",
    "print('this is different!')\n",
    "some,data\n",
    "some,other,data\n",
)
PS_FILES = Plan(
    "ps_files",
    {
        P1: U,
        "foo.txt": "foo",
        "data/bar.txt": "bar",
        **{f"{d}{n}": c for d in ("", "subdir/") for n, c in (("data.csv", _DATA), ("helper.py", _HELLO))},
    },
    {
        "force": _HANDED_IN,
        "filter": _HANDED_IN,
        **{
            s: {P1: U, "timestamp.txt": LATE, f"{d}data.csv": _OTHER, f"{d}helper.py": _DIFFERENT}
            for s, d in (("overwrite", ""), ("overwrite_sub", "subdir/"))
        },
    },
    [
        Run(scenarios=("force", "filter_notebook", "grade_overwrite_files", "grade_overwrite_files_subdirs")),
        Expect("force", "force", _ALL),
        Expect("filter_notebook", "filter", _ALL),
        # The source's files win over the student's, but for Autograde.exclude_overwriting (nbgrader_config.py).
        *[
            Expect(
                f"grade_overwrite_files{x}",
                s,
                {"timestamp.txt": LATE, f"{d}data.csv": _DATA, f"{d}helper.py": _DIFFERENT},
            )
            for s, d, x in (("overwrite", "", ""), ("overwrite_sub", "subdir/", "_subdirs"))
        ],
        Edit(
            dict.fromkeys(
                ["autograded/force/ps_files/foo.txt", *[f"autograded/filter/ps_files/{f}" for f in (P1, "foo.txt")]]
            )
        ),
        # Without --force a graded submission stays as it is; a missing autograded notebook is made again.
        Run(("--notebook", "p1"), scenarios=("force", "filter_notebook")),
        Expect("force", "force", {"foo.txt": False}),
        Expect("filter_notebook", "filter", _ALL),
        Edit({"autograded/filter/ps_files/foo.txt": None}),
        Run(("--notebook", "p1"), scenarios=("filter_notebook",)),
        Expect("filter_notebook", "filter", {P1: True, "foo.txt": False}),
        Run(("--force", "--student", "force"), scenarios=("force",)),
        Expect("force", "force", {"foo.txt": True}),
        Edit({"source/ps_files/foo.txt": None, "submitted/force/ps_files/foo.txt": None}),
        Run(("--force", "--student", "force"), scenarios=("force",)),
        Expect("force", "force", {**_ALL, "foo.txt": False}),
    ],
)

# A cell past Execute.timeout whose kernel does not stop when interrupted: nbgrader fails the submission.
HANGS = nbformat.writes(
    new_notebook(
        cells=[new_code_cell("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(15)")]
    )
)
# Submissions nbgrader cannot grade: the run exits 1, and the others are graded all the same.
_IN_WORDS = r"^(?!\w*(Error|Exception)\b)"  # report.csv's reason: a cause in words, not a bare Python exception
PS_FAIL = Plan(
    "ps_fail",
    {P1: EMPTY, "p2.ipynb": EMPTY},
    {
        "handle_foo": {P1: EMPTY, "p2.ipynb": EMPTY},
        "handle_bar": {P1: EMPTY, "p2.ipynb": fx("test.ipynb")},  # nbgrader cells its source does not have
        "bad_timestamp": {P1: EMPTY, "p2.ipynb": EMPTY, "timestamp.txt": "But I want to be a timestamp string :("},
        "duplicated_ids": {P1: DUPLICATED_IDS, "p2.ipynb": EMPTY},
        "hang": {P1: HANGS, "p2.ipynb": EMPTY},
        "truncated": {P1: EMPTY[: len(EMPTY) // 2], "p2.ipynb": EMPTY},
    },
    [
        Run(
            ("--Execute.timeout=2",),
            exit=1,
            scenarios=(
                "handle_failure",
                "grade_empty_timestamp",
                "broken_submissions_do_not_stop_the_batch",
                "failed_submission",
            ),
        ),
        Expect("handle_failure", "handle_foo", {".": True, P1: True}),
        Expect("handle_failure", "handle_bar", {".": False}),
        Expect(
            "handle_failure",
            "handle_bar",
            report={"status": "failed", "reason": _IN_WORDS + ".*metadata"},
            graders=OURS,
        ),
        Expect(
            "grade_empty_timestamp",
            "bad_timestamp",
            report={"status": "failed", "reason": _IN_WORDS + ".*timestamp"},
            graders=OURS,
        ),
        # What nbgrader does with a submission it fails: its autograded folder removed, its gradebook rows as
        # grading had left them (none for an unreadable timestamp), and jax-course says why in the report.
        Expect("failed_submission", "bad_timestamp", {".": False}, graded=False),
        *[
            Expect("failed_submission", s, {".": False}, {"p1": nb(0, manual=False)}, graded=True)
            for s in ("hang", "truncated")
        ],
        *[
            Expect("failed_submission", s, report={"status": "failed", "reason": _IN_WORDS + why}, graders=OURS)
            for s, why in (("hang", ".*timeout.*cell"), ("truncated", ".*not a notebook"))
        ],
        # nbformat repairs a duplicated cell id and stock nbgrader grades the notebook.
        Expect("duplicated_cell_ids", "duplicated_ids", {P1: True}, {"p1": nb(0, 0)}, graded=True),
        # jax-course goes further: stock stops the whole batch at a notebook whose nbgrader schema is too
        # new (nobody after it is graded); jax-course fails that one, says why, and grades the rest.
        Expect("broken_submissions_do_not_stop_the_batch", "handle_foo", {P1: True}, graders=OURS),
        Expect(
            "broken_submissions_do_not_stop_the_batch",
            "a_too_new",
            {P1: False},
            report={"status": "failed", "reason": _IN_WORDS + ".*(schema|too new|newer)"},
            graders=OURS,
        ),
    ],
    ours_only={"a_too_new": {P1: fx("too-new.ipynb"), "p2.ipynb": EMPTY}},  # first, so stock would stop at once
)

ZERO = "--LateSubmissionPlugin.penalty_method=zero"
PS_ZERO = Plan(
    "ps_zero",
    {P1: U},
    {"foo": {P1: U, "timestamp.txt": DUE}, "bar": {P1: C, "timestamp.txt": LATE}},
    [
        Run((ZERO,), scenarios=("late_submission_penalty_zero",)),
        Expect(
            "late_submission_penalty_zero",
            "foo",
            {P1: True},
            {"p1": nb(1, penalty=None)},
            False,
        ),
        Expect("late_submission_penalty_zero", "bar", {P1: True}, {"p1": nb(2, penalty=2)}, True),
        # report.csv's scores are `nbgrader export`'s: the raw score less the penalty.
        Expect(
            "report_scores_are_nbgrader_exports",
            "bar",
            report={"score": "^0.0$", "raw_score": "^2.0$", "late_submission_penalty": "^2.0$"},
            graders=OURS,
        ),
        # nbgrader issue 723: a forced regrade that finds the submission on time takes the penalty back.
        Edit({"submitted/bar/ps_zero/timestamp.txt": DUE}),
        Run(("--force", "--student", "bar", ZERO), scenarios=("late_submission_penalty_zero",)),
        Expect("late_submission_penalty_zero", "bar", {}, {"p1": nb(2, penalty=None)}, False),
    ],
)

PS_PLUGIN = Plan(
    "ps_plugin",
    {P1: U},
    {"foo": {P1: U, "timestamp.txt": DUE.replace("14:", "18:")}, "bar": {P1: C, "timestamp.txt": LATE}},
    [
        Run(("--AssignLatePenalties.plugin_class=late_plugin.Blarg",), scenarios=("late_submission_penalty_plugin",)),
        Expect("late_submission_penalty_plugin", "foo", {P1: True}, {"p1": nb(1, penalty=1)}, True),
        Expect("late_submission_penalty_plugin", "bar", {P1: True}, {"p1": nb(2, penalty=1)}, True),
    ],
)

# jax-course's own limit on a whole notebook (test_autograde_timeout is in tests/conformance.py): the
# notebook fails, its reason says so, and the run exits 1.
PS_TIMEOUT = Plan(
    "ps_timeout",
    {P1: SLEEPY},
    {},
    [
        Run(("--timeout", "2"), exit=1, scenarios=("notebook_timeout",), graders=OURS),
        Expect(
            "notebook_timeout", "slow", report={"status": "failed", "reason": _IN_WORDS + ".*timeout"}, graders=OURS
        ),
    ],
    ours_only={"slow": {P1: SLEEPY}},
)

PLANS = [PS1, PS_HIDDEN, PS_FILES, PS_FAIL, PS_ZERO, PS_PLUGIN, PS_TIMEOUT]
# Each scenario, and the graders it is checked under (under both if any of its checks is).
SCENARIOS: dict[str, tuple[str, ...]] = {}
for _expect in (s for p in PLANS for s in p.steps if isinstance(s, Expect)):
    SCENARIOS[_expect.scenario] = BOTH if BOTH in (_expect.graders, SCENARIOS.get(_expect.scenario)) else OURS
