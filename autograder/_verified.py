"""Which answers the grader verifies outside the student's kernel, read from `verified/ASSIGNMENT.toml`.

Both sides read it: the instructor side to add a hand-over cell after each verified test cell, the
verifier to know what to run. It needs neither JAX nor nbgrader. Each table is a test cell's grade id:

    [test_softmax]
    function = "softmax"                     # the student's function, by name
    draws_from = "01_arrays/softmax"         # the hidden test's generator: the verifier draws what it draws
    section = "01#Numerically stable softmax"

    [[test_softmax.call]]                    # one exported program per call, at these shapes and dtypes
    what = "softmax on a hidden input"
    args = [{normal = [0.0, 3.0], shape = [5, 7]}]  # draws, in order: normal, integers or uniform
    then = []                                # Python values passed after the arrays (a fill value)
    reference = "01_arrays/softmax"          # the recorded reference output it must match
    # or: baseline = "name in autograder.checks.baselines", compared with and timed against
    #     speedup = "threshold id", against = "the row-by-row loop"
    # inputs_scale = true: the tolerance grows with the inputs' size (check_close's `inputs=`)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

# The hand-over cell's output: exported programs, base64, by call.
MIME = "application/vnd.jax-course.hand-over+json"
# Marks a cell the grader added; it is taken out again before nbgrader scores the notebook.
CELL_KEY = "jax_course_hand_over"
_FOLDER = Path(__file__).parent / "verified"


@dataclass(frozen=True)
class Arg:
    draw: str  # normal, integers or uniform
    params: tuple[float, ...]
    shape: tuple[int, ...]
    dtype: str


@dataclass(frozen=True)
class Call:
    what: str
    args: tuple[Arg, ...]
    then: tuple = ()
    reference: str | None = None
    baseline: str | None = None
    speedup: str | None = None
    against: str = "the baseline"
    inputs_scale: bool = False
    section: str | None = None


@dataclass(frozen=True)
class Problem:
    grade_id: str
    function: str
    draws_from: str
    section: str
    calls: tuple[Call, ...]
    hint: str | None = None


def _arg(table: dict) -> Arg:
    draws = [name for name in ("normal", "integers", "uniform") if name in table]
    if len(draws) != 1:
        raise ValueError(f"an argument draws from exactly one of normal, integers, uniform: {table}")
    default = "int32" if draws[0] == "integers" else "float32"
    return Arg(draws[0], tuple(table[draws[0]]), tuple(table["shape"]), table.get("dtype", default))


def _call(table: dict) -> Call:
    fields = {k: v for k, v in table.items() if k not in ("args", "then")}
    return Call(args=tuple(_arg(a) for a in table["args"]), then=tuple(table.get("then", ())), **fields)


@cache
def problems(assignment: str) -> dict[str, Problem]:
    """The verified test cells of `assignment`, by grade id (none when it has no file)."""
    path = _FOLDER / f"{assignment}.toml"
    if "/" in assignment or not path.is_file():
        return {}
    found = {}
    for grade_id, table in tomllib.loads(path.read_text()).items():
        calls = tuple(_call(call) for call in table["call"])
        fields = {k: v for k, v in table.items() if k != "call"}
        found[grade_id] = Problem(grade_id=grade_id, calls=calls, **fields)
    return found


def hand_over_source(assignment: str, grade_id: str) -> str:
    """The cell the grader adds after a verified test cell: it exports the answer, nothing else."""
    return (
        "import autograder.verifying as _jax_course_verifying\n"
        f"_jax_course_verifying.hand_over({assignment!r}, {grade_id!r}, globals())"
    )
