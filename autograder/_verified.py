"""Which answers the grader verifies outside the student's kernel, read from `verified/ASSIGNMENT.toml`.

Both sides read it: the instructor side to add a hand-over cell after each verified test cell, the
verifier to know what to run. It needs neither JAX nor nbgrader. Each table is a test cell's grade id:

    [test_softmax]
    function = "softmax"                     # the student's function, by name
    draws_from = "01_arrays/softmax"         # the hidden test's generator: the verifier draws what it draws
    section = "01#Numerically stable softmax"
    exact_dtype = true                       # the dtype is the problem's point: a 64-bit result that
    #   jax_enable_x64 makes fails (elsewhere it is compared by value, at the 32-bit width's tolerance)
    kernel_rule = "that softmax does not call jax.nn.softmax: ..."  # a rule the test cell enforces that no
    #   exported program shows, and why: the verifier decides the values, the rule is kept in the kernel alone
    #   (INTEGRITY.md's table says so), where code hidden in a module the answer imports can disarm it. A rule
    #   the program shows belongs in the calls instead (requires, forbids, max_ops, max_elements, sharding).

    [[test_softmax.call]]                    # one exported program per call, at these shapes and dtypes
    what = "softmax on a hidden input"
    args = [{normal = [0.0, 3.0], shape = [5, 7]}]  # drawn in order: normal, integers, uniform, or
    #   {key = true}: a typed PRNG key; [5, 7]: standard normal float32 of that shape;
    #   {w = [3, 4], b = {uniform = [0, 1], shape = [4]}}: a dict of such, drawn by sorted key
    then = []                                # Python values passed after the arrays (a fill value, a size)
    reference = "01_arrays/softmax"          # the reference output a hidden test records; without it, the
    #   solution's own output on these inputs is recorded as `DRAWS_FROM.verifiedN` (N: the call's number)
    # or: baseline = "name in autograder.checks.baselines", compared with and timed against
    #     speedup = "threshold id", against = "the row-by-row loop"
    # within = [3.14159, 0.026]: a random estimate, within 6 standard errors (the second number) of the first
    # inputs_scale = true: the tolerance grows with the inputs' size (check_close's `inputs=`); or a lambda of
    #   the call's arrays (NumPy arrays, `np` in scope) giving the size the output's rounding follows instead
    # requires = ["while"], forbids = ["while"]: StableHLO operations the program must run, or must not
    #   (`while` for stablehlo.while; another dialect's in full, as "sdy.manual_computation")
    # max_ops = 200: at most this many operations run (an unrolled loop has thousands): a called function's
    #   count at each of its call sites, a loop's body once
    # max_elements = 30000: no array in the program larger than this (an n x n matrix where n-vectors do)
    #   All four are read from the program's parsed operations and their types, never from its text, where
    #   debug locations (jax.named_scope) and names are the answer's to choose (autograder/verifying/_verdicts.py).
    # sharding = "NamedSharding(grid(devices), P('x', 'y'))": the layout the first output must have, a
    #   Python expression of `devices` (as many as the program was made for) and the names `define` binds
    # harness = "lambda x: (grads_xy(f, x, x), grads_xy(unseen, x, x))": what is exported instead of
    #   FUNCTION(*args, *then), evaluated among the notebook's names and the problem's `define`
    #   (Python source, such as a function the student has not seen). It returns arrays, or a tree of them.

    devices = 8                              # (top level) simulated CPU devices the verifier starts with, as the
                                             # notebook's setup cell gives its kernel on a CPU-only machine
    [in_the_kernel]                          # every other graded test cell, and why it cannot leave the kernel
    test_timing = "a timer the student wrote: it must run where it is timed"
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

# The hand-over cell's output: exported programs, base64, by call.
MIME = "application/vnd.jax-course.hand-over+json"
# Marks a cell the grader added (with a secret of the grading process beside it, which tells it from a copy); it is
# taken out again before nbgrader scores the notebook.
CELL_KEY = "jax_course_hand_over"
# What one notebook may hand over in all: a good answer's programs are kilobytes.
MAX_HANDED_BYTES = 16_000_000
_FOLDER = Path(__file__).parent / "verified"


@dataclass(frozen=True)
class Arg:
    draw: str  # normal, integers, uniform, key or tree
    params: tuple[float, ...] = ()
    shape: tuple[int, ...] = ()
    dtype: str = "float32"
    tree: tuple[tuple[str, Arg], ...] = ()  # a dict's entries, sorted by key, when `draw` is "tree"


@dataclass(frozen=True)
class Call:
    what: str
    args: tuple[Arg, ...]
    then: tuple = ()
    reference: str | None = None
    baseline: str | None = None
    speedup: str | None = None
    against: str = "the baseline"
    inputs_scale: bool | str = False
    section: str | None = None
    requires: tuple[str, ...] = ()
    forbids: tuple[str, ...] = ()
    max_ops: int | None = None
    max_elements: int | None = None
    harness: str | None = None
    within: tuple[float, float] | None = None
    sharding: str | None = None


@dataclass(frozen=True)
class Problem:
    grade_id: str
    function: str
    draws_from: str
    section: str
    calls: tuple[Call, ...]
    hint: str | None = None
    define: str = ""
    kernel_rule: str | None = None  # a rule of the test cell that only the kernel enforces, and why
    exact_dtype: bool = False  # the dtype is the problem's point, so jax_enable_x64's 64-bit result fails


_DRAWS = ("normal", "integers", "uniform", "key")


def _arg(table: dict | list) -> Arg:
    if isinstance(table, list):
        return Arg("normal", (0.0, 1.0), tuple(table))
    draws = [name for name in _DRAWS if name in table]
    if not draws:
        return Arg("tree", tree=tuple((name, _arg(table[name])) for name in sorted(table)))
    if len(draws) > 1:
        raise ValueError(f"an argument draws from one of {', '.join(_DRAWS)}, or is a dict of such: {table}")
    if draws[0] == "key":
        return Arg("key", dtype="key")
    default = "int32" if draws[0] == "integers" else "float32"
    return Arg(draws[0], tuple(table[draws[0]]), tuple(table.get("shape", ())), table.get("dtype", default))


def _call(table: dict, draws_from: str, number: int) -> Call:
    fields = {k: v for k, v in table.items() if k not in ("args", "then", "requires", "forbids", "within")}
    own = "baseline" not in table and "within" not in table
    fields.setdefault("reference", f"{draws_from}.verified{number}" if own else None)
    return Call(
        args=tuple(_arg(a) for a in table["args"]),
        then=tuple(table.get("then", ())),
        requires=tuple(table.get("requires", ())),
        forbids=tuple(table.get("forbids", ())),
        within=tuple(table["within"]) if "within" in table else None,
        **fields,
    )


def recorded_here(call: Call, draws_from: str) -> bool:
    """Whether the verifier's own recording makes this call's reference (no hidden test records it)."""
    return call.reference is not None and call.reference.startswith(f"{draws_from}.verified")


@cache
def _read(assignment: str) -> dict:
    path = _FOLDER / f"{assignment}.toml"
    return tomllib.loads(path.read_text()) if "/" not in assignment and path.is_file() else {}


def devices(assignment: str) -> int | None:
    """How many simulated CPU devices the verifier needs for `assignment`'s programs, if more than one."""
    return _read(assignment).get("devices")


def in_the_kernel(assignment: str) -> dict[str, str]:
    """The graded test cells of `assignment` decided in the kernel alone, each with the reason."""
    return dict(_read(assignment).get("in_the_kernel", {}))


@cache
def problems(assignment: str) -> dict[str, Problem]:
    """The verified test cells of `assignment`, by grade id (none when it has no file)."""
    found = {}
    for grade_id, table in _read(assignment).items():
        if not isinstance(table, dict) or grade_id == "in_the_kernel":
            continue  # `devices`, and the tests kept in the kernel
        calls = tuple(_call(call, table["draws_from"], n) for n, call in enumerate(table["call"]))
        fields = {k: v for k, v in table.items() if k != "call"}
        found[grade_id] = Problem(grade_id=grade_id, calls=calls, **fields)
    return found


def hand_over_source(assignment: str, grade_id: str) -> str:
    """The cell the grader adds after a verified test cell: it exports the answer, nothing else."""
    return (
        "import autograder.verifying as _jax_course_verifying\n"
        f"_jax_course_verifying.hand_over({assignment!r}, {grade_id!r}, globals())"
    )
