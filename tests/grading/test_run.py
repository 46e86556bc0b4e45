"""`jax-course grade`: in parallel, resumable, on Dask and PostgreSQL."""

from __future__ import annotations

import csv
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from autograder.grading.batch._runner import WORKER_ENVIRONMENT

from support import VENV_BIN, jax_course_grade, make_course, run, solution_sources, submit
from variants import VARIANTS

pytestmark = pytest.mark.grading


ASSIGNMENT = "03_tracing"


def _grade(course: Path, *args: str, status: int | None = 1) -> subprocess.CompletedProcess:
    """Grade the batch, which holds one notebook that cannot be graded: exit status 1."""
    return jax_course_grade(course, ASSIGNMENT, *args, status=status)


def scores(db_url: str) -> dict[str, dict[str, float]]:
    """`{student: {test: score}}` in a gradebook; a student without a graded notebook is left out."""
    from nbgrader.api import Gradebook

    found = {}
    with Gradebook(db_url) as gb:
        for submission in gb.assignment_submissions(ASSIGNMENT):
            found[submission.student_id] = {g.name: float(g.score or 0) for n in submission.notebooks for g in n.grades}
    return found


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> Path:
    """A course with a small batch: right, untouched, wrong, raising, unreadable (hanging ones: test_hostile)."""
    course = make_course(tmp_path_factory.mktemp("batch"), ASSIGNMENT)
    reference = solution_sources(ASSIGNMENT)
    submit(course, ASSIGNMENT, "reference", reference)
    submit(course, ASSIGNMENT, "untouched", {})
    for name in list(VARIANTS[ASSIGNMENT])[:1]:
        submit(course, ASSIGNMENT, name, {**reference, **VARIANTS[ASSIGNMENT][name]["answers"]})
    first = next(iter(reference))
    submit(course, ASSIGNMENT, "raising", {**reference, first: "raise ValueError('oops')"})
    unreadable = course / "submitted" / "unreadable" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    unreadable.parent.mkdir(parents=True)
    unreadable.write_text('{"cells": [')
    return course


def _ledger_times(course: Path) -> dict[str, int]:
    return {p.stem: p.stat().st_mtime_ns for p in (course / "grading" / ASSIGNMENT / "done").glob("*.json")}


def _copy(batch: Path, into: Path) -> Path:
    shutil.copytree(batch, into)
    return into


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class dask_cluster:
    """A `dask scheduler` and `workers` one-thread `dask worker` processes on loopback, stopped by pid."""

    def __init__(self, workers: int, grading: bool = True):
        self.workers, self.grading, self.processes = workers, grading, []

    def __enter__(self) -> str:
        port = _free_port()
        address = f"tcp://127.0.0.1:{port}"
        dask = str(VENV_BIN / "dask")
        self.processes.append(
            subprocess.Popen(
                [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        )
        for _ in range(self.workers):
            self.processes.append(
                subprocess.Popen(
                    [dask, "worker", address, "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"],
                    env={**os.environ, **WORKER_ENVIRONMENT} if self.grading else None,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            )
        from distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(self.workers, timeout=120)
        return address

    def __exit__(self, *_):
        for process in reversed(self.processes):
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


class postgres:
    """A throw-away PostgreSQL server on loopback; where none is installed, a visible skip (a failure on CI)."""

    def __init__(self):
        found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
        self.bin = found[-1].parent if found else None

    def _as_owner(self, *command: str) -> list[str]:
        # PostgreSQL refuses to run as root: as root, run it as the `postgres` user (runuser is in
        # /usr/sbin, which a minimal PATH leaves out).
        runuser = shutil.which("runuser") or "/usr/sbin/runuser"
        return [runuser, "-u", "postgres", "--", *command] if os.geteuid() == 0 else list(command)

    def __enter__(self) -> str:
        if self.bin is None:
            if os.environ.get("CI") == "true":
                pytest.fail("PostgreSQL is not installed: `make test` installs Debian's postgresql on CI")
            pytest.skip("PostgreSQL is not installed (`make test` installs Debian's postgresql when run as root)")
        # Not under pytest's tmp_path: as root, the `postgres` user could not enter it.
        self.folder = Path(tempfile.mkdtemp(prefix="jax-course-pg-"))
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
        data, port = self.folder / "data", _free_port()
        run(
            *self._as_owner(str(self.bin / "initdb"), "-D", str(data), "--auth=trust", "-U", "postgres"),
            cwd=self.folder,
        )
        run(
            *self._as_owner(
                str(self.bin / "pg_ctl"),
                "-D",
                str(data),
                "-w",
                "-l",
                str(self.folder / "log"),
                "-o",
                f"-p {port} -k {self.folder} -c listen_addresses=127.0.0.1",
                "start",
            ),
            cwd=self.folder,
        )
        self.data = data
        run(
            *self._as_owner(
                str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "gradebook"
            ),
            cwd=self.folder,
        )
        return f"postgresql://postgres@127.0.0.1:{port}/gradebook"

    def __exit__(self, *_):
        if self.bin is not None and hasattr(self, "data"):
            subprocess.run(
                self._as_owner(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"),
                capture_output=True,
                timeout=60,
            )
            shutil.rmtree(self.folder, ignore_errors=True)


def test_parallel_grades_resume_and_run_on_dask_with_postgresql(batch, tmp_path, subtests, monkeypatch):
    # Equality with stock nbgrader, and a batch killed mid-way, are tested on the hostile
    # catalogue (test_hostile.py), which runs both graders on the same 36 submissions.
    students = sorted(p.name for p in (batch / "submitted").iterdir())
    ours = _copy(batch, tmp_path / "ours")
    compiled = tmp_path / "compiled"  # this test's own: what the grader compiles for its kernels is seen here
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(compiled))
    done = _grade(ours, "--workers", "2")
    expected = scores(f"sqlite:///{ours / 'gradebook.db'}")

    with subtests.test("the solution runs once, for the kernels' environment, not again for the verifier's"):
        assert [p.name.split("-")[0] for p in (compiled / "compiled-for").iterdir()] == [ASSIGNMENT]

    with subtests.test("two workers: gradebook, report, summary"):
        assert expected["reference"] and all(expected["reference"].values()), expected
        assert set(expected["untouched"].values()) == {0.0}
        report = {row["student"]: row for row in csv.DictReader(open(ours / "grading" / ASSIGNMENT / "report.csv"))}
        assert report["unreadable"]["reason"].startswith("not a notebook: the file is not JSON"), report["unreadable"]
        assert report["reference"]["status"] == "graded" and sorted(report) == students
        html = (ours / "grading" / ASSIGNMENT / "report.html").read_text()
        assert "data:image/png;base64," in html and "unreadable" in html
        assert "graded now" in done.stdout and "mean score" in done.stdout, done.stdout
        # What SQLAlchemy says of nbgrader's use of the gradebook, which the instructor can do nothing about.
        assert "SAWarning" not in done.stderr, done.stderr

    with subtests.test("a rerun grades nothing; a resubmission is regraded, nothing else"):
        before = _ledger_times(ours)
        _grade(ours)
        assert _ledger_times(ours) == before and len(before) == len(students)
        submit(ours, ASSIGNMENT, "untouched", solution_sources(ASSIGNMENT))
        _grade(ours)
        after = _ledger_times(ours)
        assert [s for s in students if after[s] != before[s]] == ["untouched"]
        assert scores(f"sqlite:///{ours / 'gradebook.db'}")["untouched"] == expected["reference"]

    with subtests.test("a Dask cluster whose workers cannot start processes is refused with the fix"):
        with dask_cluster(workers=1, grading=False) as address:
            refused = _grade(_copy(batch, tmp_path / "daemonic"), "--scheduler", address, status=None)
        assert refused.returncode == 1 and "DASK_DISTRIBUTED__WORKER__DAEMON=False" in refused.stderr, refused.stderr

    with subtests.test("on a Dask cluster"):
        on_dask = _copy(batch, tmp_path / "dask")
        with dask_cluster(workers=2) as address:
            _grade(on_dask, "--scheduler", address)
        assert scores(f"sqlite:///{on_dask / 'gradebook.db'}") == expected

    with subtests.test("into a PostgreSQL gradebook"), postgres() as db_url:
        on_postgres = _copy(batch, tmp_path / "postgres")
        missing = _grade(on_postgres, "--db", db_url, status=None)
        assert missing.returncode == 1 and "has no assignment 03_tracing" in missing.stderr, missing.stderr
        nbgrader = str(VENV_BIN / "nbgrader")
        release = [nbgrader, "generate_assignment", ASSIGNMENT, "--force", f"--CourseDirectory.db_url={db_url}"]
        run(*release, cwd=on_postgres)
        _grade(on_postgres, "--db", db_url)
        assert scores(db_url) == expected
