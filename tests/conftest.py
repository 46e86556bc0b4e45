"""Test session set-up: a clean environment, one tier per test, the longest tests first.

Tiers (markers): `unit` (in-process, seconds: `make test-fast`), `notebook` (lectures run
top to bottom), `grading` (the real nbgrader and `jax-course`), `environment` (browser,
JupyterHub, Binder, Colab, JupyterLab), `site` (the built course site: `make test` builds it after the
others, from the lecture runs they stored). `make test` runs them all. Shared helpers are in support.py
(and browser.py for the browser tests).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from autograder._config import DEFAULT_SEED

from support import ROOT, VENV_BIN

TIERS = ("unit", "notebook", "grading", "environment", "site")


def pytest_configure(config):
    config._started = time.time()
    if not hasattr(config, "workerinput"):
        shutil.rmtree(_timeline(config), ignore_errors=True)  # the last run of these tiers only
    # Kernels run from this environment, whatever a user has installed: a
    # "python3" kernelspec in the user's data dir would otherwise win.
    config._jupyter_data = tempfile.mkdtemp(prefix="jupyter-data-")
    os.environ["JUPYTER_DATA_DIR"] = config._jupyter_data
    # nbgrader's gradebook runs `alembic` by name.
    os.environ["PATH"] = f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    # Grade as a course would by default, whatever the developer's shell says.
    os.environ["JAXCOURSE_TIMING"] = "enforce"
    for name in ("JAXCOURSE_RECORD_REFERENCES", "JAXCOURSE_REFERENCES"):
        os.environ.pop(name, None)
    # Graded with the public seed, said explicitly, so that the package's reference outputs serve; without
    # a seed, each course would make its own and record them again (tests/grading/test_seed.py does that).
    os.environ["JAXCOURSE_GRADER_SEED"] = str(DEFAULT_SEED)
    # Multi-device checks are unit-tested on 8 simulated CPU devices (only this process; the
    # notebooks' kernels choose their own). It must happen before JAX's first operation. pytest-xdist's
    # controller runs no test: it starts its workers sooner without JAX.
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        import jax

        jax.config.update("jax_num_cpu_devices", 8)
    # The graded notebooks compile the same programs again and again (the reference's, the checks' own, in
    # every variant and every fresh process): their kernels share a persistent compilation cache, one per
    # worker, so the two workers' kernels never write one entry at once (JAX locks no entry; a kernel reading
    # one half written would warn). This process's JAX, imported above if it runs tests, does not read it. No
    # verdict depends on it: a compilation found in the cache is still counted as one, and an answer that
    # compiles while it is timed fails whatever its speed. Lectures and the environment tier
    # run without it (`_compilation_cache`): their figures and what a student meets stay as they are.
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    os.environ["JAX_COMPILATION_CACHE_DIR"] = str(ROOT / "build" / "jax-compilation-cache" / worker)
    os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    # Lecture runs are stored for the site by both workers: the controller creates the store first.
    if not hasattr(config, "workerinput"):
        import lecture_runs

        lecture_runs.prepare()


@pytest.fixture(autouse=True)
def _compilation_cache(request, monkeypatch):
    """The shared compilation cache (`pytest_configure`) for the grading tier only."""
    if not request.node.get_closest_marker("grading"):
        monkeypatch.delenv("JAX_COMPILATION_CACHE_DIR", raising=False)
        monkeypatch.delenv("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", raising=False)


def _timeline(config) -> Path:
    """Where this run's timeline goes: a folder per marker expression (`make test` runs two)."""
    return ROOT / "test-artifacts" / "timeline" / (config.option.markexpr or "all").replace(" ", "-")


def _busy_and_total() -> tuple[int, int] | None:
    """The machine's busy and total CPU ticks so far (Linux's /proc/stat), or None elsewhere."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(n) for n in stat.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Where the suite's minutes go: each test's start, end and how many cores the whole machine kept busy
    meanwhile, a JSON line per test in test-artifacts/timeline/TIERS/WORKER.jsonl (a test slowed by what ran beside
    it shows there)."""
    start, before = time.time(), _busy_and_total()
    yield
    after = _busy_and_total()
    cores = None
    if before and after and after[1] > before[1]:
        cores = round((os.cpu_count() or 1) * (after[0] - before[0]) / (after[1] - before[1]), 2)
    worker = getattr(item.config, "workerinput", {}).get("workerid", "main")
    folder = _timeline(item.config)
    folder.mkdir(parents=True, exist_ok=True)
    line = {"test": item.nodeid, "start": round(start, 1), "seconds": round(time.time() - start, 1), "busy": cores}
    with open(folder / f"{worker}.jsonl", "a") as out:
        out.write(json.dumps(line) + "\n")


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "_jupyter_data", ""), ignore_errors=True)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Show the hostile-submission table and the bypass table when this session wrote them."""
    started = getattr(config, "_started", None)
    if started is None:
        return
    report = ROOT / "test-artifacts" / "hostile-report.txt"
    if report.is_file() and report.stat().st_mtime >= started:
        terminalreporter.write_sep("=", "hostile submissions")
        terminalreporter.write(report.read_text())
    # The bypass table (grading/proving/_tables.py), for the sets course/test_autograde.py graded in this session.
    graded = [p for p in sorted((ROOT / "test-artifacts" / "bypass").glob("*.md")) if p.stat().st_mtime >= started]
    if graded:
        terminalreporter.write_sep("=", "bypasses: the shortcut a student would try, per problem")
        header = "| set | problem | skill graded | bypass tried | caught |\n|---|---|---|---|---|\n"
        terminalreporter.write(header + "".join(p.read_text() for p in graded))
    _summarize_timeline(terminalreporter, _timeline(config))


def _summarize_timeline(terminalreporter, folder: Path) -> None:
    """Each worker's share of the wall time spent in tests, the modules that took most of it, and the machine's
    load during the longest tests."""
    runs = {path.stem: [json.loads(line) for line in path.read_text().splitlines()] for path in folder.glob("*.jsonl")}
    every = [r for lines in runs.values() for r in lines]
    if not every:
        return
    start = min(r["start"] for r in every)
    end = max(r["start"] + r["seconds"] for r in every)
    terminalreporter.write_sep("=", "where the minutes went (test-artifacts/timeline)")
    for worker, lines in sorted(runs.items()):
        spent = sum(r["seconds"] for r in lines)
        terminalreporter.write_line(f"{worker}: {spent:.0f} s in {len(lines)} tests of {end - start:.0f} s")
    modules: dict[str, list[float]] = {}
    for r in every:
        modules.setdefault(r["test"].partition("::")[0], []).append(r["seconds"])
    for module, seconds in sorted(modules.items(), key=lambda kv: -sum(kv[1]))[:8]:
        terminalreporter.write_line(f"{sum(seconds):6.0f} s in {len(seconds):3d} tests of {module}")
    for r in sorted(every, key=lambda r: -r["seconds"])[:12]:
        at = r["start"] - start
        terminalreporter.write_line(f"{r['seconds']:6.0f} s from {at:5.0f} s, {r['busy']} cores busy: {r['test']}")


# About how many seconds the longest tests take in `make test` on 2 cores (its --durations list, from
# a run on a slow day: the ratios are what count); every other test takes seconds. Only the order
# depends on these figures, never a verdict.
_FRESH = "test_each_test_cell_alone_in_a_fresh_process_gives_the_notebooks_verdict"
_SECONDS = {
    "test_autograde[09_capstone]": 540,
    f"{_FRESH}[09_capstone]": 390,
    "test_no_hostile_submission_gets_undeserved_points_and_a_killed_batch_loses_nothing": 340,
    "test_autograde[14_ecosystem]": 255,
    "test_autograde[15_pallas]": 180,
    "test_autograde[16_scaling]": 140,
    "test_autograde[07_prng]": 255,
    "test_jax_course_grade_does_what_nbgrader_autograde_does": 220,
    f"{_FRESH}[07_prng]": 195,
    "test_the_binder_env_keeps_validate_turns_off_the_server_parts_and_validates_an_exercise": 185,
    "test_autograde[06_grad]": 160,
    "test_autograde[04_jit]": 155,
    "test_autograde[08_parallel]": 150,
    "test_autograde[11_custom_derivatives]": 140,
    "test_autograde[05_vmap]": 140,
    f"{_FRESH}[14_ecosystem]": 140,
    f"{_FRESH}[15_pallas]": 80,
    f"{_FRESH}[16_scaling]": 100,
    "test_autograde[12_control_flow]": 135,
    "test_autograde[01_arrays]": 120,
    "test_autograde[13_debugging]": 110,
    "test_release_submit_grade_and_return_feedback_on_a_jupyterhub": 110,
    "test_autograde[02_immutability]": 110,
    "test_autograde[10_pytrees]": 105,
    f"{_FRESH}[04_jit]": 100,
    "test_autograde[03_tracing]": 85,
    f"{_FRESH}[06_grad]": 80,
    "test_colab_setup_cell_installs_the_course_then_the_self_check_runs": 80,
    "test_parallel_grades_resume_and_run_on_dask_with_postgresql": 70,
    f"{_FRESH}[12_control_flow]": 60,
    f"{_FRESH}[05_vmap]": 60,
    f"{_FRESH}[11_custom_derivatives]": 55,
    f"{_FRESH}[08_parallel]": 50,
    "test_limits_stop_a_hanging_and_a_memory_hungry_notebook": 45,
    # The site tier (`make test` runs it after the site is built).
    "test_every_page_passes_axe_cores_wcag_21_a_and_aa_rules[lectures]": 65,
    "test_every_page_passes_axe_cores_wcag_21_a_and_aa_rules[other pages]": 50,
}


def _spread(items: list, workers: int) -> list:
    """The longest tests first, spread so that each worker starts on its share of them.

    pytest-xdist's worksteal scheduler (pyproject's addopts) hands worker i the i-th contiguous
    share of the list (len(pending) // workers remaining), then moves tests from the end of a
    busy worker's queue to an idle one. So each share is filled longest-first, each test going
    to the share with the least expected work that has room, and the shares are concatenated.
    A set's fresh-process test goes just before its autograde test, in the same share (`_together`).
    """
    sizes, left = [], len(items)
    for remaining in range(workers, 0, -1):
        sizes.append(left // remaining)
        left -= sizes[-1]
    shares, load = [[] for _ in sizes], [0.0] * len(sizes)

    def place(unit: list) -> None:
        share = min((i for i in range(len(sizes)) if len(shares[i]) + len(unit) <= sizes[i]), key=lambda i: load[i])
        shares[share].extend(unit)
        load[share] += sum(_SECONDS.get(item.name, 3) for item in unit)

    for unit in sorted(_together(items), key=lambda unit: -sum(_SECONDS.get(item.name, 3) for item in unit)):
        try:
            place(unit)
        except ValueError:  # no share has room for all of it
            for item in unit:
                place([item])
    return [item for share in shares for item in share]


def _together(items: list) -> list[list]:
    """The tests that run one after another on one worker: each alone, but a set's fresh-process test and its
    autograde test, in that order. Its fresh processes write the programs its wrong variants compile to the
    worker's compilation cache (`pytest_configure`), which the autograde test's kernels then load: they only read it.
    """
    units: dict[object, list] = {}
    for number, item in enumerate(items):
        name, _, assignment = item.name.partition("[")
        units.setdefault(assignment if name in (_FRESH, "test_autograde") else number, []).append(item)
    return [sorted(unit, key=lambda item: not item.name.startswith(_FRESH)) for unit in units.values()]


@pytest.hookimpl(trylast=True)  # after `-m` has deselected: the shares are of the tests that run
def pytest_collection_modifyitems(config, items):
    for item in items:
        tiers = [m.name for m in item.iter_markers() if m.name in TIERS]
        if len(tiers) != 1:
            raise pytest.UsageError(f"{item.nodeid} has tiers {tiers}: mark it with exactly one of {TIERS}")
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    items[:] = _spread(items, workers)
