"""How long a self-learner waits for `jax-course check` on slow, looping answers, per exercise set.

For each set, a copy named notebook.ipynb far from the repository (as on Colab) gets, in every
answer cell, the first wrong variant of tests/variants.py whose name says it is slow (a
loop, eager, NumPy, not parallel, a full Hessian ...), the reference elsewhere; 05_vmap also
gets a jitted double Python loop over all pairs. It prints each check's wall-clock seconds and
how many tests passed. A benchmark, not a test: it always exits 0. Issue 21 asks for at most
60 s each on a 2-core machine.

    .venv/bin/python bench/selfcheck_time.py [05_vmap 07_prng ...]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from autograder.grading import check_notebook  # noqa: E402

from support import ASSIGNMENTS, answered, solution_sources  # noqa: E402
from variants import VARIANTS  # noqa: E402

SLOW = (
    "loop",
    "unrolled",
    "every_call",
    "not_jitted",
    "eager",
    "python",
    "numpy",
    "not_parallel",
    "basis_vectors",
    "full_hessian",
)
EXTRA = {"05_vmap": {"pairwise": "def all_pairs(f, X, Y):\n    return jnp.array([[f(x, y) for y in Y] for x in X])\n"}}


def slow_answers(assignment: str) -> dict[str, str]:
    """Per answer cell, the first looping variant's answer (the reference where there is none)."""
    answers = dict(solution_sources(assignment))
    taken: set[str] = set()
    for name, variant in VARIANTS[assignment].items():
        cells = set(variant["answers"])
        if any(word in name for word in SLOW) and not cells & taken:
            answers.update(variant["answers"])
            taken |= cells
    answers.update(EXTRA.get(assignment, {}))
    return answers


def main(assignments: list[str]) -> None:
    for assignment in assignments:
        folder = Path(tempfile.mkdtemp(prefix="selfcheck-bench-"))
        path = answered(assignment, slow_answers(assignment), folder / "notebook.ipynb")
        start = time.perf_counter()
        result = check_notebook(path)
        seconds = time.perf_counter() - start
        passed = sum(r.passed for r in result.results)
        print(f"{assignment:16} {seconds:6.1f} s   {passed}/{len(result.results)} tests passed", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ASSIGNMENTS)
