"""The lectures as the tests ran them, kept for the site in a jupyter-cache.

`tests/course/test_notebooks.py` runs every lecture and stores the executed notebook here;
myst-nb (`nb_execution_mode = "cache"`) finds it by its code cells and runs nothing again.
A lecture edited since is not found, and the site build runs it once.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn

CACHE = Path(__file__).resolve().parents[1] / "build" / "jupyter_cache"


def prepare(cache: Path = CACHE) -> None:
    """Create the cache's database once, before test workers store runs in it side by side."""
    get_cache(str(cache)).db  # noqa: B018  (the property creates it)


def store(path: Path, executed: nbformat.NotebookNode, seconds: float, cache: Path = CACHE) -> None:
    """Keep the executed notebook of the lecture at `path`.

    It is found again by its code cells and their metadata, so the run must leave the metadata as
    committed (nbclient's `record_timing=False`).
    """
    get_cache(str(cache)).cache_notebook_bundle(
        CacheBundleIn(executed, str(path), data={"execution_seconds": seconds}), check_validity=False, overwrite=True
    )


def executed(path: Path, cache: Path = CACHE) -> nbformat.NotebookNode | None:
    """The stored run of the lecture at `path` as it is now, or None when its code changed since."""
    notebook = nbformat.read(path, as_version=4)
    try:
        _, merged = get_cache(str(cache)).merge_match_into_notebook(notebook)
    except KeyError:
        return None
    return merged


def not_stored(paths: list[Path], cache: Path = CACHE) -> list[Path]:
    """The lectures whose current code has no stored run."""
    return [path for path in paths if executed(path, cache) is None]
