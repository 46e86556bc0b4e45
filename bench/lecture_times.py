"""How long each lecture takes to run top to bottom in a fresh kernel, as a reader's Jupyter or Colab runs it.

A lecture a reader waits more than a minute for is one to make lighter: each line names its seconds, and the
ones past 60 s are marked. The lecture tests print the same figure for each run (tests/course/test_notebooks.py)
but hold no lecture to it, since a busy machine's seconds are not a lecture's. A benchmark, not a test: it always
exits 0.

    .venv/bin/python bench/lecture_times.py [course/14_ecosystem.ipynb ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
GOAL_SECONDS = 60

from support import LECTURES, unexpected_errors  # noqa: E402


def run(path: Path) -> tuple[float, int]:
    """Seconds the lecture took, and how many of its cells raised that are not tagged to raise (a figure from a
    lecture that broke half-way says little)."""
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    seconds = time.perf_counter() - start
    return seconds, len({cell for cell, _ in unexpected_errors(nb)})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("lectures", nargs="*", type=Path)
    args = parser.parse_args()
    lectures = args.lectures or LECTURES
    for path in lectures:
        seconds, raised = run(path)
        past = f"  past the {GOAL_SECONDS} s goal" if seconds > GOAL_SECONDS else ""
        cells = "a cell" if raised == 1 else f"{raised} cells"
        broke = f"  ({cells} raised: see tests/course/test_notebooks.py)" if raised else ""
        print(f"{path.name:32} {seconds:6.1f} s{past}{broke}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
