"""The programs an assignment's notebooks compile, compiled once by the grader for every kernel that grades it.

Every graded notebook of a set compiles much the same programs: the given code's, the checks' baselines, answers
like the reference's. Before grading, the grader runs the solution notebook itself (once per solution, kernel seed
and JAX version) with JAX's compilation cache on; each kernel then loads from that cache every program it compiles
that the solution compiled. A kernel reads an entry only by its name, a hash of the program it compiles, and never
lists the folder nor writes to it (`_sandbox.py`): it finds nothing it could not compile itself, and leaves nothing
that another process runs. No verdict depends on it: a compilation found in the cache still counts as one, and an
answer that compiles while it is timed fails whatever its speed.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ..._config import PROTECTED, environment_with

CACHE = "JAX_COMPILATION_CACHE_DIR"
# Every program written, and the notebook run as nbgrader runs one it grades (its checks may tell).
_MIN_TIME = "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"
_AS_GRADED = {_MIN_TIME: "0", "NBGRADER_EXECUTION": "autograde"}
_DONE = "compiled-for"


def compiled_programs(root: Path) -> Path:
    """Where the programs are kept: in the cache the instructor keeps (`$JAX_COMPILATION_CACHE_DIR`), if any, else
    in the course's `grading/compiled/`."""
    return Path(os.environ.get(CACHE) or root / "grading" / "compiled").resolve()


def read_only(folder: Path) -> dict[str, str]:
    """A grading kernel's environment for loading from `folder` and writing nothing there (a kernel the system
    cannot wall could still write; `INTEGRITY.md`)."""
    return {CACHE: str(folder), _MIN_TIME: "inf"}


def compile_for_kernels(
    assignment: str, notebooks: list[Path], kernel_env: Mapping[str, str], folder: Path, log: logging.Logger
) -> None:
    """Run `notebooks` (the assignment's solution) as a grading kernel would, with `kernel_env`, compiling into
    `folder`, unless that was done for these notebooks, this seed and this JAX. A cell's error is passed over; a
    notebook that cannot be run (its kernel dies, a cell runs out of time) is said and left: every kernel then
    compiles what it did not."""
    digest = hashlib.sha256(importlib.metadata.version("jax").encode())
    for name, value in sorted(kernel_env.items()):
        digest.update(f"{name}={value}\0".encode())
    for path in notebooks:
        digest.update(path.read_bytes())
    done = folder / _DONE / f"{assignment}-{digest.hexdigest()[:32]}"
    if done.exists():
        return
    log.info("Compiling %s's programs once, from its solution, for every kernel that grades it", assignment)
    for notebook in notebooks:
        try:  # the grader's own kernel, unwalled: nothing of `PROTECTED`
            _run(notebook, {**kernel_env, CACHE: str(folder), PROTECTED: "", **_AS_GRADED})
        except Exception as error:  # noqa: BLE001 (grading goes on: each kernel compiles for itself)
            log.warning("%s failed while its programs were compiled (%s): kernels compile them", notebook, error)
    done.parent.mkdir(parents=True, exist_ok=True)
    done.touch()


def _run(notebook: Path, env: dict[str, str]) -> None:
    import nbclient
    import nbformat

    from ..kernels._manager import WarmKernelManager

    nb = nbformat.read(notebook, as_version=4)
    # In a copy of its folder (its helper modules, its data): what the solution writes is not left in the source.
    with tempfile.TemporaryDirectory() as scratch, environment_with(env):
        folder = shutil.copytree(notebook.parent, Path(scratch) / notebook.parent.name)
        client = nbclient.NotebookClient(
            nb,
            timeout=600,
            allow_errors=True,
            kernel_name="python3",
            kernel_manager_class=WarmKernelManager,
            resources={"metadata": {"path": str(folder)}},
        )
        client.execute()
