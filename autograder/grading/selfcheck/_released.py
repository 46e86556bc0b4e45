"""A set's generated assignment (nbgrader's gradebook and release), made once per version of its solutions.

The self-check in a clone grades in a throw-away course, where `generate_assignment` would cost half a second
of every check. What it makes depends only on nbgrader, the course's config and the set's solutions: kept in
the user's cache under their hash, it is copied into the next throw-away course instead.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path


def _version(root: Path, assignment: str) -> str:
    digest = hashlib.sha256(importlib.metadata.version("nbgrader").encode())
    digest.update((root / "nbgrader_config.py").read_bytes())
    solutions = root / "solutions" / assignment
    for path in sorted(p for p in solutions.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(solutions)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:32]


def generated(
    course: Path, root: Path, assignment: str, release: Path, cache: Path, generate: Callable[[], None]
) -> None:
    """Put the assignment generated from `root`'s solutions in the throw-away `course` (its gradebook, and its
    `release` folder): copied from `cache` if these solutions were generated before, else by `generate()`."""
    kept = cache / "generated" / f"{assignment}-{_version(root, assignment)}"
    if (kept / "gradebook.db").is_file() and (kept / "release").is_dir():
        shutil.copy(kept / "gradebook.db", course / "gradebook.db")
        shutil.copytree(kept / "release", release)
        return
    generate()
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(dir=kept.parent, prefix=".partial-"))
    except OSError:
        return  # no cache to write to: the next check generates it again
    try:
        shutil.copy(course / "gradebook.db", partial / "gradebook.db")
        shutil.copytree(release, partial / "release")
        partial.rename(kept)  # whole or not at all: a check running beside this one never sees half of it
    except OSError:  # a check beside this one kept the same first, or the disk is full
        shutil.rmtree(partial, ignore_errors=True)
