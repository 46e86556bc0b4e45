"""The seed a grading run draws hidden inputs from, and the reference outputs recorded with it.

Grading never uses the public seed silently. With `$JAXCOURSE_GRADER_SEED` set, that seed grades, and
the reference outputs are the environment's (`jax-course references` re-records them). Without it, the
course gets a seed of its own at its first grading, kept in `grader_seed.txt` beside the gradebook
(never committed), and the reference outputs are recorded from the solutions with it into
`grading/references/`, again whenever the seed or a solution notebook changes. The grading kernel gets
another seed, derived from that one with the course's own secret (the same file, made in either case), and its
own references (`kernel_seed`): only the verifier, which no student code runs in, draws from the seed itself
(`autograder/INTEGRITY.md`). Only an assignment
whose notebooks use the checks (they import `autograder`) has hidden inputs.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..._config import (
    DEFAULT_SEED,
    GRADER_SEED,
    REFERENCES,
    SECRET_BITS,
    environment_with,
    grader_seed,
    kernel_references,
    kernel_seed,
    references_dir,
    short_seed,
)
from ._compiled import compile_for_kernels, compiled_programs, read_only

SEED_FILE = "grader_seed.txt"
_RECORDED_WITH = "recorded_with.json"
_GRADED_WITH = "graded_with.json"


class SeedError(RuntimeError):
    """The course's seed cannot grade: a damaged seed file, or solutions that fail to record references."""


@dataclass(frozen=True)
class GradingSeed:
    """Where an assignment's hidden inputs come from when it is graded."""

    seed: int
    origin: str
    references: Path | None = None  # holds ASSIGNMENT/*.npz recorded with `seed`; None: the environment's
    compiled: Path | None = None  # the programs compiled for every kernel (`_compiled.py`), if any
    secret: int | None = None  # the course's own secret, which the kernel's seed is derived with

    @property
    def for_kernels(self) -> int:
        """The seed a grading kernel draws from (`kernel_seed`)."""
        return kernel_seed(self.seed, self.secret)

    def describe(self) -> str:
        """For the report and the log: which seed, and why that one."""
        return f"seed {self.seed} ({self.origin})"

    def kernel_environment(self) -> dict[str, str]:
        """What a grading kernel is given: the kernel's seed and references, never the verifier's."""
        env = {GRADER_SEED: str(self.for_kernels), REFERENCES: str(self._kernel_references())}
        return {**env, **read_only(self.compiled)} if self.compiled else env

    def verifier_environment(self) -> dict[str, str]:
        """What the verifier is given: the seed itself, and the references recorded with it."""
        env = {GRADER_SEED: str(self.seed)}
        if self.references is not None:
            env[REFERENCES] = str(self.references)
        return env

    def kept_from_kernels(self, root: Path, exchange: str = "") -> str:
        """The folders a grading kernel may not touch (`$JAXCOURSE_PROTECTED`): the course's, which holds
        the gradebook, every submission and this seed's file, the verifier's references wherever they are, and
        nbgrader's `exchange`, where every student's submission waits to be collected."""
        folders = [root, *([Path(exchange)] if exchange else [])]
        if self.for_kernels != self.seed:
            folders.append(self.references or references_dir())
        return os.pathsep.join(str(folder.resolve()) for folder in folders)

    def _kernel_references(self) -> Path:
        return kernel_references(self.references or references_dir(), self.seed)

    def for_each_notebook(self, assignment: str) -> dict:
        """What `jax-course grade` sends with each notebook it runs, maybe on another machine: the kernel's
        seed, and the reference outputs recorded with it (`ASSIGNMENT/NAME.npz` to their bytes)."""
        files = sorted((self._kernel_references() / assignment).glob("*.npz"))
        references = {f"{assignment}/{path.name}": path.read_bytes() for path in files}
        return {"seed": self.for_kernels, "references": references, "compiled": str(self.compiled or "")}


def course_seed(root: Path) -> tuple[int, bool]:
    """The course's own seed from `root/grader_seed.txt`, made there if missing; and whether it was made now."""
    path = root / SEED_FILE
    seed = secrets.randbits(SECRET_BITS)
    while short_seed(seed):
        seed = secrets.randbits(SECRET_BITS)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        text = path.read_text().strip()
        if not text.isdigit():
            raise SeedError(
                f"{path} should hold the course's grading seed, a whole number, but holds {text[:40]!r}. Restore "
                "it from a backup, or delete it to make a new seed (hidden inputs, and so grades, may then change)."
            ) from None
        return int(text), False
    with os.fdopen(descriptor, "w") as file:
        file.write(f"{seed}\n")
    return seed, True


@functools.cache
def _say_if_short(seed: int, where: str, log: logging.Logger) -> None:
    """Warn, once a process, that a grading seed is short enough for a submission's code to search for it."""
    if short_seed(seed):
        log.warning(
            "%s a grading seed of %d bits: a submission's code could guess it by trying every seed (the kernel's "
            "seed does not lead back to it, being derived with the course's secret, but the seed itself is short), "
            "and with it the verifier's hidden inputs. Use a secret of %d random bits "
            "(python -c 'import secrets; print(secrets.randbits(%d))'), then record its references again "
            "(`jax-course references`; a course's own seed file is recorded again by itself when replaced).",
            where, max(seed.bit_length(), 1), SECRET_BITS, SECRET_BITS,
        )  # fmt: skip


# A code cell's line that imports the course's package (`import autograder as ag`, `from autograder import ...`).
_IMPORTS_CHECKS = re.compile(r"^\s*(import|from)\s+autograder\b", re.MULTILINE)


def _uses_checks(notebooks: list[Path]) -> bool:
    """Whether a code cell of these notebooks imports the course's checks: not prose that mentions a grader."""
    for path in notebooks:
        try:
            cells = json.loads(path.read_text(errors="replace")).get("cells", [])
        except (OSError, ValueError, AttributeError):
            continue
        for cell in cells if isinstance(cells, list) else []:
            source = cell.get("source", "") if isinstance(cell, dict) and cell.get("cell_type") == "code" else ""
            if _IMPORTS_CHECKS.search("".join(source) if isinstance(source, list) else str(source)):
                return True
    return False


def for_grading(
    root: Path, source: Path, assignment: str, log: logging.Logger, settings: Mapping[str, str] | None = None
) -> GradingSeed | None:
    """The seed that grades `assignment` (its source notebooks in `source/assignment/`), with its reference
    outputs recorded and its programs compiled for the kernels (whose environment adds `settings`) if they are
    missing or stale; None when the assignment has no hidden inputs."""
    seed = grading_seed(root, source, assignment, log)
    if seed is None:
        return None
    compiled = compiled_programs(root)
    notebooks = sorted((source / assignment).glob("*.ipynb"))
    compile_for_kernels(assignment, notebooks, {**seed.kernel_environment(), **(settings or {})}, compiled, log)
    return dataclasses.replace(seed, compiled=compiled)


def grading_seed(root: Path, source: Path, assignment: str, log: logging.Logger) -> GradingSeed | None:
    """`for_grading`'s seed, its reference outputs recorded, without compiling for kernels: what the verifier
    needs (the kernels' programs were compiled for the environment they run in, which the verifier's is not)."""
    notebooks = sorted((source / assignment).glob("*.ipynb"))
    if not _uses_checks(notebooks):
        return None
    return _seed_with_references(root, source, assignment, notebooks, log)


def _seed_with_references(root: Path, source: Path, assignment: str, notebooks: list[Path], log) -> GradingSeed:
    if os.environ.get(GRADER_SEED, "").strip():
        _say_if_short(grader_seed(), f"{GRADER_SEED} holds", log)
        if grader_seed() == DEFAULT_SEED:  # the public seed hides nothing: no secret to keep
            return GradingSeed(grader_seed(), f"set by {GRADER_SEED}")
        secret, made = course_seed(root)  # the course's own, which the kernels' seed is derived with
        if made:
            log.warning(
                "Made this course's secret in %s: the grading kernels' seed is derived from %s with it. Keep that "
                "file with the gradebook and never commit it.",
                root / SEED_FILE,
                GRADER_SEED,
            )
        return GradingSeed(grader_seed(), f"set by {GRADER_SEED}", secret=secret)
    seed, made = course_seed(root)
    _say_if_short(seed, f"{root / SEED_FILE} holds", log)
    if made:
        log.warning(
            "Made this course's grading seed, %s, in %s: hidden inputs are drawn from it, not from the public "
            "seed students check with. Keep that file with the gradebook and never commit it.",
            seed,
            root / SEED_FILE,
        )
    references = root / "grading" / "references"
    # The kernel's seed too: references recorded for a kernel seed derived another way are recorded again.
    stamp = {
        "seed": seed,
        "kernel_seed": kernel_seed(seed, seed),
        "solutions": {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in notebooks},
    }
    recorded = references / assignment / _RECORDED_WITH
    try:
        # Recorded before kernels had references of their own: recorded again.
        kernels = (kernel_references(references, seed) / assignment).is_dir()
        current = json.loads(recorded.read_text()) == stamp and kernels
    except (OSError, ValueError):
        current = False
    if not current:
        from ._references import record_references  # runs a notebook: nbclient, imported only here

        log.warning("Recording %s's reference outputs with the course's seed (once per seed and solution)", assignment)
        try:
            with environment_with({GRADER_SEED: str(seed)}):
                record_references(assignment, root, references, source=source, required=False)
        except Exception as error:
            # A cell's error (nbclient's CellExecutionError) names what the solution raised.
            name, value = getattr(error, "ename", type(error).__name__), getattr(error, "evalue", str(error))
            raise SeedError(
                f"{assignment}'s solution notebook failed while its reference outputs were recorded with the "
                f"course's seed ({name}: {value}). Run it to see why "
                f"(`jupyter nbconvert --execute --to notebook --stdout {notebooks[0]}`), or grade with "
                f"{GRADER_SEED} set to a seed whose references you recorded (`jax-course references`)."
            ) from None
        recorded.write_text(json.dumps(stamp, indent=1) + "\n")
    return GradingSeed(seed, f"this course's own seed, in {SEED_FILE}", references, secret=seed)


def remember(root: Path, assignment: str, seed: GradingSeed) -> None:
    """Note which seed graded `assignment`, for the grade export (`grading/ASSIGNMENT/graded_with.json`)."""
    path = root / "grading" / assignment / _GRADED_WITH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"seed": seed.seed, "origin": seed.origin}) + "\n")


def graded_with(root: Path, assignment: str) -> str | None:
    """Which seed last graded `assignment` (as `GradingSeed.describe` says it), if one did."""
    try:
        noted = json.loads((root / "grading" / assignment / _GRADED_WITH).read_text())
        return GradingSeed(int(noted["seed"]), str(noted["origin"])).describe()
    except (OSError, ValueError, KeyError, TypeError):
        return None
