"""Every setting the course reads from the environment, in one place.

Both sides use it, so it imports neither JAX nor nbgrader.

| variable | meaning |
|---|---|
| `JAXCOURSE_GRADER_SEED` | seed of the hidden tests' inputs (a whole number; a secret one has 128 random bits) |
| `JAXCOURSE_TIMING` | `enforce` or `advisory`: whether timing checks decide points |
| `JAXCOURSE_RECORD_REFERENCES` | a folder: checks record reference outputs there instead of comparing |
| `JAXCOURSE_REFERENCES` | a folder to read reference outputs from instead of the package's |
| `JAXCOURSE_PIP_SOURCE` | where a notebook's setup cell installs the course from: a `git+https://` or `file://` URL |
| `JAXCOURSE_CHROMIUM` | the browser the browser tests drive |
| `JAXCOURSE_PROTECTED` | folders a grading kernel may not read or write (`_sandbox.py`), `os.pathsep`-separated |
| `JAXCOURSE_LANDLOCK` | the newest Landlock ABI walls may use (`0`: none): tests stand for an older Linux with it |
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

GRADER_SEED = "JAXCOURSE_GRADER_SEED"
TIMING = "JAXCOURSE_TIMING"
RECORD_REFERENCES = "JAXCOURSE_RECORD_REFERENCES"
REFERENCES = "JAXCOURSE_REFERENCES"
PIP_SOURCE = "JAXCOURSE_PIP_SOURCE"
CHROMIUM = "JAXCOURSE_CHROMIUM"
PROTECTED = "JAXCOURSE_PROTECTED"
LANDLOCK = "JAXCOURSE_LANDLOCK"
VARIABLES = (GRADER_SEED, TIMING, RECORD_REFERENCES, REFERENCES, PIP_SOURCE, CHROMIUM, PROTECTED, LANDLOCK)

# An instructor who wants inputs students cannot reproduce sets JAXCOURSE_GRADER_SEED on the
# grading machine and re-records the references there (`jax-course references`).
DEFAULT_SEED = 20261122
# How many random bits a course's own grading seed has (`grader_seed.txt`): no search can find it.
SECRET_BITS = 128
PACKAGE_REFERENCES = Path(__file__).parent / "checks" / "references"
# Beside a folder of references recorded with a secret seed: those recorded with its kernel seed.
KERNEL_REFERENCES = "_kernel"
# What a grading kernel is started with (nbgrader_config.py's Execute, the self-check's kernel): the
# submission's folder is not on sys.path (IPython puts it before site-packages, where a file handed in
# beside the notebook, an autograder.py or a numpy/, would stand in for the real one), then the guard
# records the tools the checks trust and appends the folder last, so the student's own modules import.
GUARD_ARGUMENTS = [
    "--InteractiveShellApp.ignore_cwd=True",
    "--IPKernelApp.exec_lines=import autograder.checks; autograder.checks.guard()",
]
# Set on Binder and Colab, whose shared machines make timings meaningless.
_SHARED_MACHINE = ("BINDER_REQUEST", "BINDER_REPO_URL", "BINDER_LAUNCH_HOST", "COLAB_RELEASE_TAG", "COLAB_GPU")


def _get(name: str) -> str:
    return os.environ.get(name, "").strip()


def grader_seed() -> int:
    """The seed hidden tests draw from: `$JAXCOURSE_GRADER_SEED` or the course default."""
    value = _get(GRADER_SEED)
    if not value:
        return DEFAULT_SEED
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{GRADER_SEED} must be a whole number, got {value!r}") from None


def kernel_seed(seed: int, secret: int | None = None) -> int:
    """The seed a grading kernel draws its hidden inputs from when `seed` grades a course whose own secret is
    `secret` (its `grader_seed.txt`).

    The verifier alone draws from `seed` itself: code in the kernel can read what the kernel is given,
    and with the verifier's inputs it could hand over a program that looks them up. So the kernel's seed is
    a keyed hash (HMAC-SHA256) keyed with the course's secret and `seed`: from it, only a search over every
    possible key leads back, which a secret of 128 bits (`SECRET_BITS`) puts out of reach whatever seed the
    instructor chose. The public seed hides nothing, so it serves both.
    """
    if seed == DEFAULT_SEED:
        return seed
    key = f"{seed}" if secret is None else f"{secret}:{seed}"
    digest = hmac.new(key.encode(), b"jax-course: the seed of a grading kernel", hashlib.sha256).digest()
    return int.from_bytes(digest[:16], "little")


def short_seed(seed: int) -> bool:
    """Whether `seed` is a secret a search could find (fewer than 96 bits: a random seed of `SECRET_BITS`
    is that short once in four billion); the public seed is no secret at all, and is not called short."""
    return seed != DEFAULT_SEED and abs(seed) < 2**96


def kernel_references(folder: Path, seed: int) -> Path:
    """Where the references a grading kernel compares with are, beside those in `folder` recorded with `seed`."""
    return folder if seed == DEFAULT_SEED else folder / KERNEL_REFERENCES


def timing_mode() -> str:
    """`"enforce"` or `"advisory"`: whether timing checks decide points here.

    `$JAXCOURSE_TIMING` wins when set. Otherwise timings are advisory on shared
    machines whose speed means nothing (Binder, Colab) and enforced elsewhere.
    """
    value = _get(TIMING).lower()
    if value in ("enforce", "advisory"):
        return value
    if value:
        raise ValueError(f"{TIMING} must be 'enforce' or 'advisory', got {value!r}")
    return "advisory" if any(name in os.environ for name in _SHARED_MACHINE) else "enforce"


def timing_set() -> bool:
    """Whether `$JAXCOURSE_TIMING` chooses the timing mode (rather than the machine)."""
    return bool(_get(TIMING))


def user_cache(env: Mapping[str, str]) -> Path:
    """This user's cache folder for the course (XDG's rule)."""
    return Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "jax-course"


def self_check_programs(env: Mapping[str, str]) -> Path:
    """Where a user's self-checks keep the programs they compile (JAX's persistent compilation cache), which the
    user's own kernels fill too as an exercise notebook runs (`checks/_programs.py`)."""
    return user_cache(env) / "compilation"


def record_references_into() -> Path | None:
    """The folder reference outputs are being recorded into, or None when grading."""
    value = _get(RECORD_REFERENCES)
    return Path(value) if value else None


def references_dir() -> Path:
    """Where reference outputs are read from: `$JAXCOURSE_REFERENCES` or the package's own."""
    value = _get(REFERENCES)
    return Path(value) if value else PACKAGE_REFERENCES


def landlock_at_most() -> int | None:
    """The newest Landlock ABI the walls may use (`$JAXCOURSE_LANDLOCK`), or None to use the system's own."""
    value = _get(LANDLOCK)
    if not value:
        return None
    try:
        return max(int(value), 0)
    except ValueError:
        raise ValueError(f"{LANDLOCK} must be a whole number (0: no Landlock), got {value!r}") from None


def chromium() -> Path:
    """The Chromium the browser tests drive: `$JAXCOURSE_CHROMIUM` or Debian's."""
    return Path(_get(CHROMIUM) or "/usr/bin/chromium")


@contextmanager
def environment_with(values: Mapping[str, str]) -> Iterator[None]:
    """`values` in this process's environment, which what it starts inherits; then the environment as it was."""
    saved = dict(os.environ)
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
