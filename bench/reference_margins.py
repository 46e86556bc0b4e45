"""How close each set's reference answers come to failing their value checks on this machine's CPU.

The committed references (`autograder/checks/references/`) were recorded on one CPU; a student's CPU rounds
differently (another vector width, an ARM laptop), and a tolerance that only just holds here fails the
reference there. For each set, in a process of its own, the solution notebook's cells run (test cells too,
hidden tests included), then the verifier judges each verified answer that is not timed; every comparison
`check_close` and `check_reference` make is recorded as its largest |got - expected| over what its tolerance
allows there. It prints each set's largest ratios: 1 fails, and anything above a few tenths is worth a look.

    .venv/bin/python bench/reference_margins.py [01_arrays 15_pallas ...]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHOWN = 4


def _record_margins(worst: dict[str, float], where: list[str]) -> None:
    """Wrap the value comparison so that each one's margin is kept in `worst`, by cell and what it compares."""
    from autograder.checks import _compare

    compare = _compare._check_values

    def recorded(name, got, want, rtol, atol, section, carried=0.0, hint=None, reveal=True):
        if _compare._is_float(want.dtype) and want.size:
            allowed, _, _ = _compare.allowed_differences(want, rtol, atol, carried)
            g, w = got.astype(np.float64), want.astype(np.float64)
            finite = np.isfinite(w) & np.isfinite(g)
            if finite.any():
                key = f"{where[0]}: {name}"
                worst[key] = max(worst.get(key, 0.0), float(np.max(np.abs(g - w)[finite] / allowed[finite])))
        return compare(name, got, want, rtol, atol, section, carried, hint, reveal)

    _compare._check_values = recorded


def one_set(assignment: str) -> None:
    """In this process: run `assignment`'s solution and verify its answers, then print its largest ratios."""
    import nbformat

    from autograder._verified import problems
    from autograder.verifying import _hand_over, verify

    worst: dict[str, float] = {}
    where = ["?"]
    _record_margins(worst, where)
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    namespace: dict = {"__name__": "__main__"}
    # In a copy of its folder (its data, its helpers): what the solution writes is not left in the repository.
    scratch = Path(tempfile.mkdtemp(prefix="margins-"))
    os.chdir(shutil.copytree(ROOT / "solutions" / assignment, scratch / assignment))
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        where[0] = cell.metadata.get("nbgrader", {}).get("grade_id") or "a cell"
        source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        try:
            exec(compile(source, where[0], "exec"), namespace)  # the course's own solution
        except Exception as error:  # noqa: BLE001 (a figure to print, not a verdict)
            print(f"  {where[0]} raised {type(error).__name__}: {str(error)[:200]}")
    for grade_id, problem in problems(assignment).items():
        if any(call.speedup for call in problem.calls):
            continue  # its values are compared in the test cell above; the verifier would time it for seconds
        where[0] = f"verifier {grade_id}"
        calls = problem.calls
        handed = [{"program": _hand_over.exported(_hand_over.answer(problem, c, namespace), c)} for c in calls]
        verdict = verify(assignment, {grade_id: handed}, only=[grade_id])[grade_id]
        if not verdict["passed"]:
            print(f"  the verifier fails the reference: {verdict['message'][:300]}")
    for key, ratio in sorted(worst.items(), key=lambda item: -item[1])[:SHOWN]:
        print(f"  {ratio:6.3f}  {key[:140]}")
    shutil.rmtree(scratch, ignore_errors=True)


def main(assignments: list[str]) -> None:
    every = sorted(p.name for p in (ROOT / "solutions").iterdir() if (p / f"{p.name}.ipynb").exists())
    for assignment in assignments or every:
        print(f"{assignment}: largest |got - expected| / allowed", flush=True)
        # A process per set, as a kernel per notebook: one set's settings (x64, devices) never reach the next.
        subprocess.run([sys.executable, __file__, "--one", assignment], cwd=ROOT, check=False)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        sys.path.insert(0, str(ROOT))
        one_set(sys.argv[2])
    else:
        main(sys.argv[1:])
