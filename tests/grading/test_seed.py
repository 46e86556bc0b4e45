"""Grading never draws hidden inputs from the public seed silently (`autograder/grading/references/_seed.py`)."""

from __future__ import annotations

import csv
import hashlib
import hmac
import html
import json
import logging
import os
import shutil
import stat
import subprocess
from pathlib import Path

import nbformat
import numpy as np
import pytest

from autograder._config import (
    DEFAULT_SEED,
    GRADER_SEED,
    KERNEL_REFERENCES,
    PACKAGE_REFERENCES,
    kernel_seed,
    short_seed,
)
from autograder.grading.references._seed import SEED_FILE, GradingSeed, SeedError, course_seed, for_grading

from support import VENV_BIN, make_course, read_scores, solution_sources, submit, test_points
from variants import VARIANTS

ASSIGNMENT = "03_tracing"
LOG = logging.getLogger("test_seed")


def _notebook(folder: Path, source: str) -> Path:
    (folder / ASSIGNMENT).mkdir(parents=True)
    path = folder / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)]), path)
    return folder


@pytest.mark.unit
def test_a_course_seed_is_made_once_kept_private_and_never_the_public_one(tmp_path):
    seed, made = course_seed(tmp_path)
    assert made and seed != DEFAULT_SEED
    assert stat.S_IMODE((tmp_path / SEED_FILE).stat().st_mode) == 0o600
    assert course_seed(tmp_path) == (seed, False)


@pytest.mark.unit
def test_a_course_seed_is_a_secret_no_search_finds_and_the_kernels_seed_does_not_lead_back_to_it(tmp_path):
    seed, _ = course_seed(tmp_path)
    assert seed.bit_length() > 96 and not short_seed(seed)
    kernel = kernel_seed(seed, seed)
    # A keyed hash with the course's secret and the seed as its key: as wide as the secret, and no arithmetic
    # relation a kernel could undo.
    assert kernel != seed and kernel.bit_length() > 96 and kernel_seed(seed + 1, seed) != kernel
    assert kernel == int.from_bytes(
        hmac.new(f"{seed}:{seed}".encode(), b"jax-course: the seed of a grading kernel", hashlib.sha256).digest()[:16],
        "little",
    )
    assert kernel_seed(DEFAULT_SEED, seed) == DEFAULT_SEED and not short_seed(DEFAULT_SEED)


@pytest.mark.unit
def test_a_short_seed_an_instructor_chose_cannot_be_searched_from_the_kernel_s_seed(tmp_path, monkeypatch):
    """The kernel's seed is keyed with the course's secret too: trying every short seed finds nothing."""
    monkeypatch.setenv(GRADER_SEED, "42")
    secret, _ = course_seed(tmp_path)
    graded = GradingSeed(42, "set by the instructor", secret=secret)
    assert graded.for_kernels == kernel_seed(42, secret) != kernel_seed(42)
    assert graded.kernel_environment()[GRADER_SEED] == str(graded.for_kernels)
    assert graded.for_kernels not in {kernel_seed(guess) for guess in range(1000)}
    (tmp_path / "another").mkdir()
    assert kernel_seed(42, course_seed(tmp_path / "another")[0]) != graded.for_kernels  # each course its own


@pytest.mark.unit
def test_a_short_grading_seed_is_warned_about_once_with_how_to_replace_it(tmp_path, monkeypatch, caplog):
    monkeypatch.delenv(GRADER_SEED, raising=False)
    (tmp_path / SEED_FILE).write_text("1234567\n")
    quiet = _notebook(tmp_path / "source", "import autograder\nprint('compares nothing with a reference')")
    with caplog.at_level(logging.WARNING, logger=LOG.name):
        for _ in range(2):
            for_grading(tmp_path, quiet, ASSIGNMENT, LOG)
    said = [r.getMessage() for r in caplog.records if "could guess it by trying every seed" in r.getMessage()]
    assert len(said) == 1 and "grader_seed.txt holds a grading seed of 21 bits" in said[0]
    assert "secrets.randbits(128)" in said[0]


@pytest.mark.unit
def test_a_damaged_seed_file_is_named_and_kept(tmp_path):
    (tmp_path / SEED_FILE).write_text("forty-two\n")
    with pytest.raises(SeedError, match=r"grader_seed.txt should hold .* a whole number.*delete it to make a new"):
        course_seed(tmp_path)
    assert (tmp_path / SEED_FILE).read_text() == "forty-two\n"


@pytest.mark.unit
def test_only_an_assignment_that_uses_the_checks_has_hidden_inputs(tmp_path, monkeypatch):
    monkeypatch.delenv(GRADER_SEED, raising=False)
    source = _notebook(tmp_path / "source", "print('no checks here')")
    assert for_grading(tmp_path, source, ASSIGNMENT, LOG) is None
    # Prose and comments that mention a grader are not the course's checks.
    path = source / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells += [
        nbformat.v4.new_markdown_cell("The autograder runs hidden tests: `import autograder` is not needed here."),
        nbformat.v4.new_code_cell("# checked by the autograder\nassert answer == 42  # autograder.checks style"),
    ]
    nbformat.write(nb, path)
    assert for_grading(tmp_path, source, ASSIGNMENT, LOG) is None
    assert not (tmp_path / SEED_FILE).exists()


@pytest.mark.unit
def test_a_seed_set_in_the_environment_grades_and_the_course_keeps_its_secret_for_the_kernels(tmp_path, monkeypatch):
    monkeypatch.setenv(GRADER_SEED, "1234")
    source = _notebook(tmp_path / "source", "import autograder as ag")
    seed = for_grading(tmp_path, source, ASSIGNMENT, LOG)
    assert seed is not None and seed.seed == 1234 and seed.references is None
    assert seed.describe() == f"seed 1234 (set by {GRADER_SEED})"
    # The course's file holds the secret the kernels' seed is derived with, not the seed that grades.
    secret, made = course_seed(tmp_path)
    assert not made and seed.secret == secret != 1234 and seed.for_kernels == kernel_seed(1234, secret)


# Prepended to an answer cell: what code in a grading kernel can find of the grader's secrets, into found.json
# in the kernel's folder (autograded/STUDENT/ASSIGNMENT/, three levels below the course).
SNOOP = """
import json as _json, os as _os
def _reads(path):
    try:
        open(path, "rb").read(1)
        return "read"
    except OSError as error:
        return type(error).__name__
_found = {path: _reads("../../../" + path) for path in SECRETS}
try:
    open("../../../gradebook.db", "ab").close()
    _found["writes the gradebook"] = "yes"
except OSError as error:
    _found["writes the gradebook"] = type(error).__name__
_environments = []
for _pid in range(max(1, _os.getpid() - 5000), _os.getpid() + 500):  # the grader's, the verifier's, ...
    try:
        _environments += open(f"/proc/{_pid}/environ", "rb").read().decode().split(chr(0))
    except (OSError, ValueError):
        pass
_found["seeds in environments"] = sorted({v for v in _environments if v.startswith("JAXCOURSE_GRADER_SEED=")})
_found["seed"] = _os.environ.get("JAXCOURSE_GRADER_SEED")
_json.dump(_found, open("found.json", "w"))
"""
SECRETS = ["grader_seed.txt", "gradebook.db", f"grading/references/{ASSIGNMENT}/recorded_with.json", "solutions"]


def _snooped(course: Path, student: str, seed: int) -> None:
    """What the snooping cell found while `student` was graded: none of the verifier's secrets."""
    found = json.loads((course / "autograded" / student / ASSIGNMENT / "found.json").read_text())
    assert {path: found[path] for path in SECRETS} == dict.fromkeys(SECRETS, "PermissionError"), found
    assert found["writes the gradebook"] == "PermissionError"
    assert (
        found["seed"] == str(kernel_seed(seed, seed))
        and f"JAXCOURSE_GRADER_SEED={seed}" not in found["seeds in environments"]
    )


def _without_seed() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name != GRADER_SEED}


def _grade(course: Path, *command: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=course, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


@pytest.mark.grading
def test_grading_with_no_seed_set_uses_a_new_course_seed_and_says_so(tmp_path):
    """Both graders, with no seed set: one course seed, made and said once, references recorded with it; the
    reference answers keep full marks, a hard-coded answer still fails, and the report and export name it."""
    course = make_course(tmp_path, ASSIGNMENT)
    reference = solution_sources(ASSIGNMENT)
    submit(course, ASSIGNMENT, "reference", reference)
    hardcoded = {**reference, **VARIANTS[ASSIGNMENT]["affine_hardcoded"]["answers"]}
    first = next(iter(VARIANTS[ASSIGNMENT]["affine_hardcoded"]["answers"]))
    hardcoded[first] = SNOOP.replace("SECRETS", repr(SECRETS)) + hardcoded[first]
    submit(course, ASSIGNMENT, "hardcoded", hardcoded)

    ours = _grade(course, str(VENV_BIN / "jax-course"), "grade", ASSIGNMENT, env=_without_seed())
    seed = int((course / SEED_FILE).read_text())
    assert seed != DEFAULT_SEED
    assert f"Made this course's grading seed, {seed}" in ours.stderr
    assert "hidden inputs from" in ours.stdout and str(seed) in ours.stdout
    with open(course / "grading" / ASSIGNMENT / "report.csv") as f:
        assert {row["student"]: row["seed"] for row in csv.DictReader(f)} == {
            "reference": str(seed),
            "hardcoded": str(seed),
        }
    assert f"Hidden inputs drawn from seed {seed} (this course's own seed" in html.unescape(
        (course / "grading" / ASSIGNMENT / "report.html").read_text()
    )

    # The references were recorded with the course seed, from other hidden inputs than the package's.
    recorded = sorted((course / "grading" / "references" / ASSIGNMENT).glob("*.npz"))
    assert [p.name for p in recorded] == sorted(p.name for p in (PACKAGE_REFERENCES / ASSIGNMENT).glob("*.npz"))
    differ = 0
    for path in recorded:
        with np.load(path) as ours_, np.load(PACKAGE_REFERENCES / ASSIGNMENT / path.name) as public:
            assert json.loads(str(ours_["__meta__"]))["seed"] == seed
            differ += any(not np.array_equal(ours_[k], public[k]) for k in ours_.files if k != "__meta__")
    assert differ, "the course seed changed no hidden input"
    # The kernel's own, from the seed derived for it: the verifier's seed and references never reach it.
    for path in (course / "grading" / "references" / KERNEL_REFERENCES / ASSIGNMENT).glob("*.npz"):
        with np.load(path) as kernels:
            assert json.loads(str(kernels["__meta__"]))["seed"] == kernel_seed(seed, seed) != seed
    _snooped(course, "hardcoded", seed)

    scores = read_scores(course, ASSIGNMENT)
    points = test_points(ASSIGNMENT)
    assert scores["reference"] == points
    loses = VARIANTS[ASSIGNMENT]["affine_hardcoded"]["loses"]
    assert scores["hardcoded"] == {test: 0.0 if test in loses else points[test] for test in points}

    # Stock nbgrader, through the course's config: the same seed, its references not recorded again.
    stock = _grade(course, str(VENV_BIN / "nbgrader"), "autograde", ASSIGNMENT, "--force", env=_without_seed())
    assert "Made this course's grading seed" not in stock.stderr and "Recording" not in stock.stderr
    assert f"Hidden inputs of {ASSIGNMENT}: seed {seed}" in stock.stderr
    assert read_scores(course, ASSIGNMENT) == scores
    _snooped(course, "hardcoded", seed)
    exported = _grade(
        course,
        str(VENV_BIN / "nbgrader"),
        "export",
        "--exporter=autograder.grading.plugins.CanvasGrades",
        env=_without_seed(),
    )
    assert f"{ASSIGNMENT} was graded with hidden inputs drawn from seed {seed}" in exported.stderr

    # A seed set by the instructor wins, and what the ledger graded with the other one is graded again.
    public = {**_without_seed(), GRADER_SEED: str(DEFAULT_SEED)}
    _grade(course, str(VENV_BIN / "jax-course"), "grade", ASSIGNMENT, env=public)
    with open(course / "grading" / ASSIGNMENT / "report.csv") as f:
        assert {row["seed"] for row in csv.DictReader(f)} == {str(DEFAULT_SEED)}
    assert read_scores(course, ASSIGNMENT) == scores


@pytest.mark.grading
def test_solutions_that_fail_to_record_stop_grading_with_the_reason_and_none_needed_is_fine(tmp_path, monkeypatch):
    monkeypatch.delenv(GRADER_SEED, raising=False)
    quiet = _notebook(tmp_path / "quiet", "import autograder\nprint('compares nothing with a reference')")
    seed = for_grading(tmp_path, quiet, ASSIGNMENT, LOG)
    assert seed is not None and seed.compiled is not None
    assert seed.for_each_notebook(ASSIGNMENT) == {
        "seed": kernel_seed(seed.seed, seed.seed),
        "references": {},
        "compiled": str(seed.compiled),
    }
    assert seed.for_kernels != seed.seed
    # References recorded before kernels had their own are recorded again.
    kernels = tmp_path / "grading" / "references" / KERNEL_REFERENCES / ASSIGNMENT
    assert kernels.is_dir()
    shutil.rmtree(kernels)
    assert for_grading(tmp_path, quiet, ASSIGNMENT, LOG) == seed and kernels.is_dir()

    broken = _notebook(tmp_path / "broken", "import autograder\nraise ValueError('a broken solution')")
    with pytest.raises(SeedError, match=r"03_tracing's solution notebook failed .*ValueError: a broken solution.*"):
        for_grading(tmp_path, broken, ASSIGNMENT, LOG)
