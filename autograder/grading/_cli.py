"""`jax-course`: the course's command line."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .._config import PACKAGE_REFERENCES


def course_root() -> Path:
    """The checkout that holds `solutions/`: the current folder or one above it."""
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "solutions").is_dir() and (folder / "nbgrader_config.py").is_file():
            return folder
    raise SystemExit("jax-course: run this inside the course checkout (no solutions/ and nbgrader_config.py found)")


def nbgrader_course_root(command: str = "grade") -> Path:
    """Any nbgrader course: the current folder or one above it that holds `nbgrader_config.py` (else `jax-course
    COMMAND` says where to run it)."""
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "nbgrader_config.py").is_file():
            return folder
    raise SystemExit(f"jax-course {command}: run this in an nbgrader course (no nbgrader_config.py here or above)")


def assignments(root: Path) -> list[str]:
    """Assignment ids, from the folders of `solutions/`."""
    return sorted(p.name for p in (root / "solutions").iterdir() if (p / f"{p.name}.ipynb").is_file())


def _add_report(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser(
        "report",
        help="what the class got wrong: pass rates, discrimination and failure causes per test, from any gradebook",
        description="Item analysis of ASSIGNMENT from the course's gradebook (filled by `nbgrader autograde`, the hub "
        "or `jax-course grade`) and its autograded/ notebooks, into grading/ASSIGNMENT/items.html, items.csv and "
        "causes.csv.",
    )
    report.add_argument("assignment")
    report.add_argument("--db", help="gradebook SQLAlchemy URL (default: sqlite:///gradebook.db in the course)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jax-course", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    refs = commands.add_parser(
        "references",
        help="re-record the reference outputs from solutions/ (run after changing a solution or its hidden tests)",
    )
    refs.add_argument("assignment", nargs="*", help="assignment ids (default: all)")
    refs.add_argument("--into", type=Path, default=PACKAGE_REFERENCES, help="folder to write (default: the package's)")
    refs.add_argument(
        "--tests-only", action="store_true", help="only rewrite each set's tests.json (no notebook is run)"
    )
    check = commands.add_parser(
        "check",
        help="grade your own notebook in a fresh kernel, with the course's hidden tests (the package holds them)",
    )
    check.add_argument("notebooks", nargs="+", type=Path, help="exercise notebooks to check")
    watch = commands.add_parser(
        "watch", help="check your notebook again every time you save it, a line for each test that changed"
    )
    watch.add_argument("notebook", type=Path, help="the exercise notebook to watch")
    badges = commands.add_parser(
        "badges",
        help="rewrite the Open-in-Colab badges and setup cells from pyproject.toml (then run `make exercises`)",
    )
    badges.add_argument("--check", action="store_true", help="only list what is out of date; exit 1 if anything is")
    grade = commands.add_parser(
        "grade",
        help="autograde every submission of an assignment in parallel, into nbgrader's gradebook (instructors)",
        description="Grade submitted/*/ASSIGNMENT with nbgrader's own preprocessors, several at once, in any "
        "nbgrader course. Reruns grade only what is new or unfinished; reports go to grading/ASSIGNMENT/. "
        "Options not listed here go to nbgrader as `nbgrader autograde` takes them (--no-execute, "
        "--notebook=NAME, --course-dir=PATH, --quiet, --Execute.timeout=60, ...; see `nbgrader autograde "
        "--help-all`). Exit status, as nbgrader's: 0 when every submission was graded, 1 when one could not be "
        "or grading could not start, 2 for an option neither takes.",
    )
    grade.add_argument("assignment", nargs="?", default="", help="the assignment id (or nbgrader's --assignment)")
    grade.add_argument(
        "--workers",
        type=int,
        default=0,
        help="notebooks run at once (default: one per core, or the Dask cluster's threads)",
    )
    grade.add_argument("-f", "--force", action="store_true", help="regrade every submission, even those already graded")
    grade.add_argument("--timeout", type=float, default=900, help="seconds one whole notebook may run (default 900)")
    grade.add_argument(
        "--memory", type=float, default=4096, help="MB one notebook's processes may use together (default 4096)"
    )
    grade.add_argument(
        "--scheduler", help="a Dask scheduler address (tcp://host:8786): run the notebooks on its workers"
    )
    grade.add_argument("--student", help="grade only this student")
    grade.add_argument("--db", help="gradebook SQLAlchemy URL (default: nbgrader's db_url, sqlite:///gradebook.db)")
    _add_report(commands)
    verified = commands.add_parser(
        "verified",
        help="each set's share of points decided outside the student's kernel, and how each test is verified",
    )
    verified.add_argument("--update", action="store_true", help="also rewrite the table in autograder/INTEGRITY.md")
    _add_authoring(commands)
    return parser


def _add_authoring(commands: argparse._SubParsersAction) -> None:
    prove = commands.add_parser(
        "prove",
        help="prove a set from every side: reference, untouched, answers that do nothing, declared wrong answers",
        description="Build ASSIGNMENT's release, record its references, and grade, with `nbgrader autograde` (the "
        "course's config) and `jax-course grade`: the reference (full marks), the untouched release (0), four "
        "answers that do nothing (0), each wrong answer declared in tests/variants/ASSIGNMENT.py (loses exactly "
        "its points, its message names what it must) and each declared alternative (full marks). Prints a "
        "scorecard per test; exits 1 naming each test that is not sound, 2 when the set cannot be proven.",
    )
    prove.add_argument("assignment")
    prove.add_argument("--problem", help="prove one problem: its number, or a grade id of its cells")
    prove.add_argument(
        "--once",
        action="store_true",
        help="grade each answer but the reference in one pipeline only (wrong answers in nbgrader's, answers "
        "that do nothing in jax-course grade's): half the time, what the course's own suite runs",
    )
    prove.add_argument("--workers", type=int, default=0, help="notebooks jax-course grade runs at once")
    prove.add_argument(
        "--no-write",
        action="store_true",
        help="prove the course's files as they are: build no release, record no references, rewrite no table",
    )
    new = commands.add_parser(
        "new",
        help="start an exercise set, or a problem in one, with the cells, metadata and files the course needs",
        description="Write solutions/ASSIGNMENT/ASSIGNMENT.ipynb (or add a problem to it) with a heading, an answer "
        "cell and a test cell with hidden tests, a verifier entry in autograder/verified/ASSIGNMENT.toml and a "
        "place for the problem's wrong answers in tests/variants/ASSIGNMENT.py. Then fill them in and run "
        "`jax-course prove ASSIGNMENT`.",
    )
    new.add_argument("assignment")
    new.add_argument("--problem", required=True, help="the answer's function name, e.g. relu")
    new.add_argument("--title", help="the problem's title (default: from the function's name)")
    new.add_argument("--section", default="", help='the lecture section its messages cite, e.g. "05#Manual batching"')


def _grade(args: argparse.Namespace, nbgrader_options: list[str]) -> int:
    import glob

    from .batch._runner import start_forkserver
    from .kernels._nursery import preload_for

    # First, so that the forkserver imports nbgrader (and for a batch, the kernels' libraries, with those the
    # set's notebooks import: `source/ASSIGNMENT/*.ipynb` or however the course names it) while this process
    # does too. One student by name: one notebook, so no kernel libraries for it to share.
    alone = bool(args.student) and not glob.has_magic(args.student)
    if not args.scheduler:
        sources = Path().glob(f"*/{glob.escape(args.assignment)}/*.ipynb") if args.assignment else []
        start_forkserver(alone, preload_for(sources))

    from rich.console import Console

    from .batch._convert import GradingError
    from .batch._options import OptionError, read
    from .batch._run import grade
    from .references._seed import SeedError
    from .reports._report import prepare_charts, summary_table, write_report

    try:
        options = read(nbgrader_options)
    except OptionError as error:
        print(f"jax-course grade: {error}", file=sys.stderr)
        return 2
    # nbgrader's own refusals, in its words and with its exit status.
    if len(options.extra) + bool(args.assignment) > 1:
        return _refuse("Only one argument (the assignment id) may be specified")
    if args.assignment and options.assignment:
        return _refuse("The assignment cannot both be specified in config and as an argument")
    if not (args.assignment or options.assignment):
        return _refuse("An assignment id must be specified, either as an argument or with --assignment")
    try:
        run = grade(
            options.root or _course_here(),
            args.assignment or options.assignment,
            workers=args.workers,
            force=args.force,
            notebook_timeout=args.timeout,
            memory_mb=args.memory,
            scheduler=args.scheduler,
            student=args.student,
            db_url=args.db,
            nbgrader_options=options.passed,
            progress=sys.stderr.isatty(),
            # A batch draws its charts after its many notebooks; one student, while the notebook runs.
            while_running=prepare_charts if alone else None,
        )
    except (GradingError, SeedError) as error:
        return _refuse(str(error))
    console = Console(quiet=options.quiet)
    console.print(summary_table(run))
    csv_path, html_path = write_report(run)
    console.print(f"Report: {html_path} and {csv_path}")
    if run.interrupted:
        console.print("Stopped. Grades finished so far are saved; run the same command again to grade the rest.")
        return 130
    # As nbgrader's, whose reruns fail again on what failed; ours keep it failed in the ledger.
    return 1 if any(o.status == "failed" for o in run.ledger.outcomes()) else 0


def _refuse(message: str) -> int:
    """Grading cannot start: said, and exit status 1, as `nbgrader autograde` does."""
    print(f"jax-course grade: {message}", file=sys.stderr)
    return 1


def _course_here(command: str = "grade") -> Path:
    """The course of the current folder, or else the one nbgrader's config files name (as a hub's do)."""
    try:
        return nbgrader_course_root(command)
    except SystemExit:
        from .batch._options import configured_root

        if (root := configured_root()) is None:
            raise
        return root


def _report(args: argparse.Namespace) -> int:
    from .reports._items import analyse, course_gradebook, missing_gradebook
    from .reports._report import write_items_page

    root = _course_here("report")
    if missing := missing_gradebook(course_gradebook(root, args.db)):
        print(
            f"jax-course report: no gradebook at {missing}: grade {args.assignment} first (`jax-course grade "
            f"{args.assignment}` or `nbgrader autograde {args.assignment}`), or name the course's gradebook with --db",
            file=sys.stderr,
        )
        return 2
    analysis = analyse(root, args.assignment, args.db)
    if not analysis.students:
        print(f"jax-course report: the gradebook holds no graded submission of {args.assignment}", file=sys.stderr)
        return 2
    folder = root / "grading" / args.assignment
    folder.mkdir(parents=True, exist_ok=True)
    page = write_items_page(analysis, folder)
    for item in analysis.items:
        if item.flagged:
            said = f"{item.test} ({item.problem}), discrimination {item.point_biserial:.2f}"
            print(f"check this test or this teaching: {said}")
    print(f"{len(analysis.students)} submissions: {page}, {folder / 'items.csv'} and {folder / 'causes.csv'}")
    return 0


def _badges(args: argparse.Namespace) -> int:
    from .authoring._colab import rewrite_all

    changed = rewrite_all(course_root(), check=args.check)
    for path in changed:
        print(f"{'out of date' if args.check else 'rewrote'}: {path}")
    if changed and not args.check:
        print("Now regenerate the exercises from solutions/: make exercises")
    return 1 if changed and args.check else 0


def _check(args: argparse.Namespace) -> int:
    from .selfcheck._selfcheck import check_notebook

    all_passed = True
    for notebook in args.notebooks:
        try:
            result = check_notebook(notebook)
        except (FileNotFoundError, ValueError, RuntimeError) as error:
            print(f"jax-course check: {error}", file=sys.stderr)
            all_passed = False
            continue
        print(result.report())
        all_passed &= all(r.passed for r in result.results)
    return 0 if all_passed else 1


def _watch(args: argparse.Namespace) -> int:
    from .selfcheck._selfcheck import check_notebook
    from .selfcheck._watch import watch

    try:
        return watch(args.notebook, check_notebook)
    except (FileNotFoundError, ValueError, RuntimeError) as error:
        print(f"jax-course watch: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("Stopped watching.")
        return 0


def _references(args: argparse.Namespace) -> int:
    from .references._references import record_references, record_tests

    root = course_root()
    for assignment in args.assignment or assignments(root):
        if args.tests_only:
            print(f"{assignment}: {record_tests(assignment, root, args.into)}")
            continue
        start = time.perf_counter()
        target = record_references(assignment, root, args.into)
        count = len(list(target.glob("*.npz")))
        print(f"{assignment}: {count} reference outputs in {target} ({time.perf_counter() - start:.1f} s)")
    return 0


def _verified(args: argparse.Namespace) -> int:
    from .authoring._share import graded_tests, share_table, update_integrity

    table = share_table(graded_tests(course_root() / "solutions"))
    print(table)
    if args.update:
        update_integrity(Path(__file__).parents[1] / "INTEGRITY.md", table)
    return 0


def _prove(args: argparse.Namespace) -> int:
    from .proving._command import run_prove

    return run_prove(
        nbgrader_course_root("prove"),
        args.assignment,
        problem=args.problem,
        once=args.once,
        workers=args.workers,
        write=not args.no_write,
    )


def _new(args: argparse.Namespace) -> int:
    from .proving._new import NewError, new_problem

    try:
        for path in new_problem(course_root(), args.assignment, args.problem, args.title, args.section):
            print(f"wrote {path}")
    except NewError as error:
        print(f"jax-course new: {error}", file=sys.stderr)
        return 2
    print(f"Now write the answer, its tests and its wrong answers, then run: jax-course prove {args.assignment}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args, unknown = parser.parse_known_args(argv)
    if args.command == "grade":
        return _grade(args, unknown)
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    commands = {
        "badges": _badges,
        "check": _check,
        "new": _new,
        "prove": _prove,
        "references": _references,
        "report": _report,
        "verified": _verified,
        "watch": _watch,
    }
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
