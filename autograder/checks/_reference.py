"""Reference outputs stored as data files, recorded from the solutions and compared with `check_close`'s rules."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from .._config import grader_seed, record_references_into, references_dir
from ._compare import _as_numpy, _compare_leaves, _describe, _kind, _leaves, input_magnitude, structure_hint
from ._errors import CheckFailed

# Read once, when the grader's first locked cell imports the package: a student
# cell that sets the variable later cannot switch grading into recording.
_RECORD_DIR = record_references_into()
# What this recording run has stored: two tests storing under one id would leave only the last.
_RECORDED: set[str] = set()


def recording() -> bool:
    """True while `jax-course references` runs the solutions to record their outputs."""
    return _RECORD_DIR is not None


def _file(root: Path, problem: str) -> Path:
    assignment, _, name = problem.partition("/")
    if not assignment or not name or "/" in name or ".." in problem:
        raise ValueError(f"problem ids look like 'assignment/name', got {problem!r}")
    return root / assignment / f"{name}.npz"


def _stored_form(value: Any) -> tuple[dict, list[np.ndarray]]:
    """What a reference file holds of `value`: its metadata, and its leaves as NumPy arrays."""
    paths, leaves, treedef = _leaves(value)
    meta = {"paths": paths, "kinds": [_kind(x) for x in leaves], "seed": grader_seed(), "treedef": str(treedef)}
    return meta, [_as_numpy(leaf) for leaf in leaves]


def save_reference(problem: str, value: Any, root: Path) -> Path:
    """Store `value` (any pytree of arrays) as the reference output of `problem`.

    The same value gives the same bytes (np.savez stamps no time: every member is dated 1980), so a file
    recorded again unchanged is no change to commit."""
    meta, leaves = _stored_form(value)
    arrays = {f"leaf{i}": leaf for i, leaf in enumerate(leaves)}
    path = _file(root, problem)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays["__meta__"] = np.array(json.dumps(meta))
    np.savez(path, **arrays)  # pyright: ignore[reportArgumentType]  (keys are leaf names, not options)
    return path


def record_reference(problem: str, value: Any, into: Path, *, inputs: Any = None) -> Path:
    """Record `value` as `problem`'s reference in `into`, unless the reference stored before (where references are
    read from: `jax-course references` points it at the folder it replaces) is one its check would take `value`
    for: then that file, byte for byte.

    Recorded again on another machine or JAX release, a value may round differently in its last bits; rewritten,
    every such file would be a change to review and commit, of values the check cannot tell apart. `inputs` as for
    `check_reference`, whose tolerance they widen.
    """
    meta, leaves = _stored_form(value)
    stored = references_dir()
    before, path = _file(stored, problem), _file(into, problem)
    if before.is_file() and _same_within_tolerance(problem, stored, meta, leaves, input_magnitude(inputs)):
        if before.resolve() != path.resolve():
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(before, path)
        return path
    return save_reference(problem, value, into)


def _same_within_tolerance(problem: str, root: Path, meta: dict, leaves: list[np.ndarray], magnitude: float) -> bool:
    """Whether `problem`'s reference in `root` is `leaves` within check_reference's tolerance, with the same seed,
    structure, shapes and dtypes (a dtype that changed is a change, though the check would forgive a wider one)."""
    try:
        stored, kinds, stored_meta = load_reference(problem, root)
    except Exception:  # an unreadable file (half written, another format): recorded again
        return False
    if stored_meta != meta or any(
        a.dtype != b.dtype or a.shape != b.shape for a, b in zip(leaves, stored, strict=True)
    ):
        return False
    try:
        _compare_leaves(problem, meta["paths"], leaves, stored, kinds, None, None, None, magnitude, reveal=False)
    except CheckFailed:
        return False
    return True


def load_reference(problem: str, root: Path | None = None) -> tuple[list[np.ndarray], list[str], dict]:
    """The stored reference of `problem`: its leaves, their kinds, and the metadata."""
    path = _file(root or references_dir(), problem)
    if not path.exists():
        raise FileNotFoundError(
            f"No reference output for {problem!r} at {path}. An instructor regenerates them with "
            "`jax-course references` (see docs/guide/instructors.md)."
        )
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["__meta__"]))
        leaves = [data[f"leaf{i}"] for i in range(len(meta["paths"]))]
    return leaves, meta["kinds"], meta


def check_reference(
    actual: Any,
    problem: str,
    *,
    what: str = "your result",
    inputs: Any = None,
    hint: str | None = None,
    section: str | None = None,
    exact_dtype: bool = False,
) -> None:
    """Check `actual` against the stored reference output of `problem` (`"01_arrays/softmax"`).

    When the solutions are being recorded, store `actual` instead. `inputs` as for `check_close`;
    `exact_dtype` where the dtype is the problem's point: then a 64-bit result of jax_enable_x64 fails too;
    `hint`, what to try when the values (or the shape, or the containers) differ. The message never shows an
    expected value: on hidden inputs that is the answer itself, which an answer cell calling this check could read
    off and return.
    """
    compare_with_reference(
        actual, problem, what=what, inputs=inputs, hint=hint, section=section, exact_dtype=exact_dtype
    )


def compare_with_reference(
    actual: Any,
    problem: str,
    *,
    what: str,
    inputs: Any = None,
    hint: str | None = None,
    section: str | None = None,
    exact_dtype: bool = False,
    values_only: bool = False,
) -> None:
    """`check_reference`; with `values_only`, `hint` is a reminder for wrong values alone (a property check's, for an
    answer that does not work: `_works.confirm`), and a wrong shape or structure says what to try of its own."""
    if _RECORD_DIR is not None:
        if problem in _RECORDED:
            raise RuntimeError(f"two tests record the reference {problem!r}: give each its own id")
        _RECORDED.add(problem)
        record_reference(problem, actual, Path(_RECORD_DIR), inputs=inputs)
        return
    leaves, kinds, meta = load_reference(problem)
    if meta["seed"] != grader_seed():
        raise RuntimeError(
            f"The reference for {problem!r} was recorded with grader seed {meta['seed']}, but this run "
            f"uses {grader_seed()}. Instructor: re-record with `jax-course references` under the same "
            "JAXCOURSE_GRADER_SEED you grade with."
        )
    try:
        act_paths, act_leaves, _ = _leaves(actual)
    except Exception as error:
        raise CheckFailed(f"{what} could not be read as arrays ({error}).", section=section) from None
    if act_paths != meta["paths"]:
        raise CheckFailed(
            f"{what} has the wrong structure: expected {meta['treedef'].replace('PyTreeDef', '')}, "
            f"got {_describe(actual)}.",
            hint=structure_hint(None if values_only else hint),
            section=section,
        )
    magnitude = input_magnitude(inputs)
    _compare_leaves(
        what, act_paths, act_leaves, leaves, kinds, None, None, section, magnitude, hint, reveal=False,
        exact_dtype=exact_dtype, values_only=values_only,
    )  # fmt: skip
