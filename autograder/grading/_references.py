"""Recording the reference outputs that hidden tests compare against, from the solutions."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from .._config import RECORD_REFERENCES


def record_references(assignment: str, root: Path, into: Path, timeout: int = 600) -> Path:
    """Run the reference solution of `assignment` and store what its checks compare.

    Every `check_reference` call in the solution notebook saves its value instead
    of comparing it. The folder `into/assignment` is replaced only when the whole
    notebook ran without error.
    """
    import nbclient
    import nbformat

    notebook = root / "solutions" / assignment / f"{assignment}.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    with tempfile.TemporaryDirectory() as scratch:
        previous = os.environ.get(RECORD_REFERENCES)
        os.environ[RECORD_REFERENCES] = scratch
        try:
            nbclient.NotebookClient(
                nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(notebook.parent)}}
            ).execute()
        finally:
            if previous is None:
                os.environ.pop(RECORD_REFERENCES, None)
            else:
                os.environ[RECORD_REFERENCES] = previous
        recorded = Path(scratch) / assignment
        if not recorded.is_dir():
            raise SystemExit(f"jax-course: {notebook} recorded no reference outputs")
        target = into / assignment
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(recorded, target)
    return target
