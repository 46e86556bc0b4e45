"""A catalogue of hostile and broken submissions for 03_tracing, with the points each deserves.

Each case starts from honest work worth 4 of 7 points (the `pure` and `leak` answers) plus a
wrong `affine`, then adds the attack to the `affine` answer cell, so a successful attack would
show as points for `test_affine` (1) or `test_affine_jaxpr` (2). Broken-notebook cases edit the
notebook itself. `deserved` is the most a case may get; `ours_only` cases are not given to stock
nbgrader, which has no limit that would stop them (see autograder/INTEGRITY.md). Cases with an
`assignment` are submissions to that assignment (speed is not graded in 03_tracing). Cases with
`files` hand those in beside the notebook, cases with `links` hand in links (name: target, "." the
folder itself), and `report_names` are those jax-course grade's report must name; `stock_gets` and
`ours_gets` are what stock nbgrader and jax-course grade must give exactly.
"""

from __future__ import annotations

import json
import shutil

import nbformat

from autograder._verified import CELL_KEY, in_the_kernel

from support import solution_sources, test_points
from variants import VARIANTS

ASSIGNMENT = "03_tracing"
REFERENCE = solution_sources(ASSIGNMENT)
FULL = sum(test_points(ASSIGNMENT).values())
HONEST = {"pure": REFERENCE["pure"], "leak": REFERENCE["leak"]}
HONEST_POINTS = 4.0
WRONG_AFFINE = "def affine(W, x, b):\n    return W @ x\n"


def attack(code: str) -> dict[str, str]:
    return {**HONEST, "affine": WRONG_AFFINE + code}


def _hex(code: str) -> str:
    return code.encode().hex()


def _edit_cells(change):
    def edit(nb):
        change(nb.cells)
        return nb

    return edit


def _by_id(cells, grade_id):
    return next(c for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _delete(grade_id):
    return _edit_cells(lambda cells: cells.remove(_by_id(cells, grade_id)))


def _set_source_of_tests(cells):
    for cell in cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test_"):
            cell.source = "pass"


def _fake_setup(cells):
    _by_id(cells, "setup").source = (
        "import jax, jax.numpy as jnp, numpy as np, types\n"
        "ag = types.SimpleNamespace(**{n: (lambda *a, **k: None) for n in ('check_close', 'check_primitives', 'check_pure')})"
    )


def _points(value):
    def change(cells):
        _by_id(cells, "test_affine").metadata["nbgrader"]["points"] = value

    return _edit_cells(change)


def _rename(cells):
    _by_id(cells, "test_affine").metadata["nbgrader"]["grade_id"] = "bonus"


def _unlock(cells):
    for cell in cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade_id", "").startswith("test_"):
            meta.update(locked=False, solution=True)
            cell.source = "pass"


def _duplicate(cells):
    cells.insert(
        cells.index(_by_id(cells, "test_affine")),
        nbformat.from_dict(json.loads(json.dumps(_by_id(cells, "test_affine")))),
    )


def _forged_hand_over(cells):
    """The course's hand-over key, copied onto an honest answer, a passing test and a failing one: taken for the
    grader's own cells, they would be deleted from the graded notebook and the feedback."""
    for grade_id in ("pure", "test_pure", "test_affine"):
        _by_id(cells, grade_id).metadata.update({CELL_KEY: "test_affine", "jax_course_grader": "a guess"})


def _enormous(cells):
    for cell in cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * 2_000_000)]


_V3 = json.dumps(
    {
        "nbformat": 3,
        "nbformat_minor": 0,
        "metadata": {},
        "worksheets": [{"cells": [{"cell_type": "code", "input": "print('v3')", "language": "python", "outputs": []}]}],
    }
).encode()

# Imports the real package from behind the submission's folder, turns every check into a no-op and
# stands in for it, so that whatever imports `autograder` next (the grader's guard, the test cells)
# gets the disarmed one.
_SHADOW_AUTOGRADER = """
import importlib, os, sys
here = {os.getcwd(), "", "."}
sys.path[:] = [p for p in sys.path if p not in here]
del sys.modules[__name__]
real = importlib.import_module("autograder")
import autograder.checks
for module in (real, autograder.checks):
    for name in dir(module):
        if name.startswith("check_"):
            setattr(module, name, lambda *a, **k: None)
sys.modules[__name__] = real
"""

CASES: dict[str, dict] = {
    # --- tampering with the checks (each way on its own: tests/grading/test_tampering.py, tests/checks/test_guard.py) ---
    "fake timers": dict(
        answers=attack(
            "import time, timeit\ntime.perf_counter = lambda: 0.0\ntime.time = lambda: 0.0\n"
            "time.perf_counter_ns = lambda: 0\ntimeit.default_timer = lambda: 0.0"
        ),
        deserved=HONEST_POINTS,
    ),
    "replace autograder checks (setattr under another name)": dict(
        answers=attack(
            "patch = setattr\npatch(ag, 'check_close', lambda *a, **k: None)\npatch(ag, 'check_primitives', lambda *a, **k: None)"
        ),
        deserved=HONEST_POINTS,
    ),
    "replace numpy.testing, allclose, block_until_ready": dict(
        answers=attack(
            "from numpy import testing\ntesting.assert_allclose = lambda *a, **k: None\nnp.allclose = lambda *a, **k: True\n"
            "jnp.allclose = lambda *a, **k: True\njax.block_until_ready = lambda x: x"
        ),
        deserved=HONEST_POINTS,
    ),
    "replace builtins, __import__, sys.modules": dict(
        answers=attack(
            "real = __import__\n__builtins__.__import__ = lambda name, *a, **k: real(name, *a, **k)\n"
            "import sys\nsys.modules['autograder'] = None\nimport builtins\nbuiltins.AssertionError = type('Quiet', (Exception,), {})"
        ),
        deserved=HONEST_POINTS,
    ),
    "patch hidden in exec of hex": dict(
        answers=attack(f"exec(bytes.fromhex('{_hex('ag.check_close = lambda *a, **k: None')}').decode())"),
        deserved=HONEST_POINTS,
    ),
    "prints a fake pass": dict(
        answers=attack("print('test_affine ... PASSED (1/1)')\nprint('Success! Your notebook passes all the tests.')"),
        deserved=HONEST_POINTS,
    ),
    # --- gaming the answers ---
    "hard-codes the visible output": dict(
        answers={**REFERENCE, **VARIANTS[ASSIGNMENT]["affine_hardcoded"]["answers"]},
        deserved=FULL - sum(test_points(ASSIGNMENT)[t] for t in VARIANTS[ASSIGNMENT]["affine_hardcoded"]["loses"]),
    ),
    "equal to anything": dict(
        answers={
            **HONEST,
            "affine": (
                "class Anything:\n    def __eq__(self, other):\n        return True\n    def __ne__(self, other):\n        return False\n\n"
                "def affine(W, x, b):\n    return Anything()\n"
            ),
        },
        deserved=HONEST_POINTS,
    ),
    "array subclass that always matches": dict(
        answers={
            **HONEST,
            "affine": (
                "class Always(np.ndarray):\n    def __eq__(self, other):\n        return np.ones(np.shape(other), bool)\n\n"
                "def affine(W, x, b):\n    return np.zeros(W.shape[0]).view(Always)\n"
            ),
        },
        deserved=HONEST_POINTS,
    ),
    "NaN-laden array": dict(
        answers={**HONEST, "affine": "def affine(W, x, b):\n    return jnp.full(W.shape[0], jnp.nan)\n"},
        deserved=HONEST_POINTS,
    ),
    # --- ending or stalling the grade ---
    "sys.exit(), then os._exit()": dict(
        answers=attack("import os, sys\nsys.exit(0)\nos._exit(0)"), deserved=HONEST_POINTS
    ),
    "kills its kernel's parent, then itself": dict(
        answers=attack("import os\nos.kill(os.getppid(), 9)\nos.kill(os.getpid(), 9)"), deserved=HONEST_POINTS
    ),
    "pure-Python endless loop": dict(answers=attack("while True:\n    pass"), deserved=HONEST_POINTS),
    "endless jitted while_loop": dict(
        answers=attack(
            # float32 stops growing at 2**24, so the condition never turns false
            "jax.lax.while_loop(lambda c: c >= 0.0, lambda c: c + 1.0, 0.0).block_until_ready()"
        ),
        deserved=HONEST_POINTS,
        ours_only=True,
    ),
    "allocates 50 GB": dict(answers=attack("heap = [np.ones(2**27) for _ in range(400)]"), deserved=HONEST_POINTS),
    "forks a process and starts a thread that outlive the cell": dict(
        answers=attack(
            "import os, threading, time\nthreading.Thread(target=time.sleep, args=(600,)).start()\n"
            "if os.fork() == 0:\n    time.sleep(600)"
        ),
        deserved=HONEST_POINTS,
    ),
    "prints 40 MB": dict(answers=attack("for _ in range(400):\n    print('x' * 100_000)"), deserved=HONEST_POINTS),
    "writes a 1 GB file": dict(
        answers=attack("with open('big.bin', 'wb') as f:\n    for _ in range(64):\n        f.write(b'0' * 2**24)"),
        deserved=HONEST_POINTS,
    ),
    # Each file within the 256 MB a file may hold, but more than the 1 GB a kernel may write in all (`_keeper.py`):
    # a full disk would stop stock nbgrader's gradebook for every student after this one.
    "writes 2 GB in files of 240 MB": dict(
        answers=attack(
            "for n in range(8):\n    with open(f'big-{n}.bin', 'wb') as f:\n        for _ in range(15):\n"
            "            f.write(b'0' * 2**24)"
        ),
        deserved=HONEST_POINTS,
        report_names=["its files passed"],
    ),
    # --- files handed in beside the notebook (nbgrader's exchange takes a folder) ---
    "an autograder.py beside the notebook that disarms the checks": dict(
        answers=attack(""),
        files={"autograder.py": _SHADOW_AUTOGRADER},
        deserved=HONEST_POINTS,
        report_names=["autograder.py"],
    ),
    "an autograder/ package beside the notebook": dict(
        answers=attack(""),
        files={"autograder/__init__.py": _SHADOW_AUTOGRADER},
        deserved=HONEST_POINTS,
        report_names=["autograder"],
    ),
    "a numpy.py and a jax/ beside the notebook": dict(
        answers=attack(""),
        files={
            "numpy.py": "raise SystemExit('a numpy handed in by the student')\n",
            "jax/__init__.py": "raise SystemExit('a jax handed in by the student')\n",
            "IPython/__init__.py": "raise SystemExit('an IPython handed in by the student')\n",
        },
        deserved=HONEST_POINTS,
        report_names=["numpy.py", "jax", "IPython"],
    ),
    "a sitecustomize.py and a .pth beside the notebook": dict(
        answers=attack(""),
        files={"sitecustomize.py": _SHADOW_AUTOGRADER, "zz.pth": "import autograder\n"},
        deserved=HONEST_POINTS,
        report_names=["sitecustomize.py", "zz.pth"],
    ),
    # Not an attack: the student's own module imports, as it would in their notebook, and gets its points.
    "its own helper.py beside the notebook": dict(
        answers={**REFERENCE, "affine": "from helper import affine\n"},
        files={"helper.py": "def affine(W, x, b):\n    return W @ x + b\n"},
        deserved=FULL,
        stock_gets=FULL,
        ours_gets=FULL,
    ),
    # --- links handed in (an LMS download unpacked with `unzip`, a link put straight into the exchange) ---
    # nbgrader would copy what a link points to where the kernel and the feedback read it (the solutions, the
    # gradebook), or grade the solution as the student's notebook. Each submission is refused before anything is
    # copied, in both pipelines, and the report says why: no points, even for the honest work beside the link.
    "a data.csv beside the notebook that links to the solution, and a link to the gradebook": dict(
        answers=attack(""),
        links={"data.csv": "../../../solutions/03_tracing/03_tracing.ipynb", "grades.db": "../../../gradebook.db"},
        deserved=0.0,
        stock_gets=0.0,
        ours_gets=0.0,
        report_names=["refused", "data.csv -> ../../../solutions/03_tracing/03_tracing.ipynb", "grades.db"],
    ),
    "its notebook is a link to the solution": dict(
        answers=attack(""),
        links={"03_tracing.ipynb": "../../../solutions/03_tracing/03_tracing.ipynb"},
        deserved=0.0,
        stock_gets=0.0,
        ours_gets=0.0,
        report_names=["refused", "03_tracing.ipynb ->"],
    ),
    "its submitted folder is a link to the solutions": dict(
        answers=attack(""),
        links={".": "../../solutions/03_tracing"},
        deserved=0.0,
        stock_gets=0.0,
        ours_gets=0.0,
        report_names=["refused", "/03_tracing -> ../../solutions/03_tracing"],
    ),
    # --- broken notebooks ---
    "deletes a test cell": dict(answers=REFERENCE, edit=_delete("test_affine"), deserved=FULL - 1),
    "empties the test cells": dict(answers={}, edit=_edit_cells(_set_source_of_tests), deserved=0.0),
    "edits the locked setup cell": dict(answers={}, edit=_edit_cells(_fake_setup), deserved=0.0),
    "raises a test's points": dict(answers=REFERENCE, edit=_points(100), deserved=FULL),
    "renames a test's grade_id": dict(answers=REFERENCE, edit=_edit_cells(_rename), deserved=FULL - 1),
    "unlocks the tests as answers": dict(answers={}, edit=_edit_cells(_unlock), deserved=0.0),
    "duplicates a graded cell": dict(answers=REFERENCE, edit=_edit_cells(_duplicate), deserved=FULL),
    "tens of MB of outputs": dict(answers=REFERENCE, edit=_edit_cells(_enormous), deserved=FULL),
    "copies the grader's hand-over mark onto its own cells": dict(
        answers=attack(""),
        edit=_edit_cells(_forged_hand_over),
        deserved=HONEST_POINTS,
        stock_gets=HONEST_POINTS,
        ours_gets=HONEST_POINTS,
    ),
    # Not an attack: honest work that makes a library warn (nbgrader gives 0 to a test cell that writes
    # to stderr), as scikit-learn's ConvergenceWarning or Flax's deprecations do.
    "a correct answer that makes JAX warn": dict(
        answers={
            **REFERENCE,
            "pure": REFERENCE["pure"].replace(
                "    calls = calls + 1", "    x = x.astype(jnp.float64)\n    calls = calls + 1"
            ),
        },
        deserved=FULL,
        stock_gets=FULL,
        ours_gets=FULL,
    ),
    "invalid JSON": dict(raw=b'{"cells": [', deserved=0.0),
    "empty file": dict(raw=b"", deserved=0.0),
    "nbformat v3": dict(raw=_V3, deserved=0.0),
    "not a notebook": dict(raw=b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40, deserved=0.0),
}


# Speed is only checked in other assignments: these cases are graded as 04_jit submissions.
TIMED_ASSIGNMENT = "04_jit"
_TIMED_REFERENCE = solution_sources(TIMED_ASSIGNMENT)
_TIMED_POINTS = test_points(TIMED_ASSIGNMENT)
_SLOW_LOGISTIC = VARIANTS[TIMED_ASSIGNMENT]["logistic_eager"]["answers"]["logistic"]
CASES.update(
    {
        # Correct but slow, with a dict of earlier results: repeated calls on one input would look fast.
        "remembers results to look fast (04_jit)": dict(
            assignment=TIMED_ASSIGNMENT,
            answers={**_TIMED_REFERENCE, **VARIANTS[TIMED_ASSIGNMENT]["logistic_cached"]["answers"]},
            deserved=sum(_TIMED_POINTS.values()) - _TIMED_POINTS["test_logistic_speed"],
        ),
        # A slow answer with a slowed baseline: the ratio would look good if the check timed a name
        # the notebook can rebind. Each must lose the speed point, as the slow answer alone does.
        **{
            f"slows the baseline: {how} (04_jit)": dict(
                assignment=TIMED_ASSIGNMENT,
                answers={**_TIMED_REFERENCE, "logistic": _SLOW_LOGISTIC + code},
                deserved=sum(_TIMED_POINTS.values()) - _TIMED_POINTS["test_logistic_speed"],
            )
            for how, code in {
                "rebinds its name to a slower loop": (
                    "\n_original = logistic_map_eager\n\n"
                    "def logistic_map_eager(x, r, steps):\n"
                    "    for _ in range(20):\n"
                    "        x = _original(x, r, steps) * 0 + x\n"
                    "    return _original(x, r, steps)\n"
                ),
                "turns on jax_debug_nans": '\njax.config.update("jax_debug_nans", True)\n',
                "replaces ag.baselines": (
                    "\nslow = ag.baselines.logistic_map_eager\n"
                    "ag.baselines.logistic_map_eager = lambda x, r, steps: [slow(x, r, steps) for _ in range(20)][0]\n"
                ),
            }.items()
        },
    }
)


# Code the reading of cells cannot see (autograder/INTEGRITY.md): every answer of set 01 returns its input,
# except the timer, and a module that the kernel imports disarms the checks there. The verifier, a process
# of its own, decides set 01's verified tests, so each such case gets only the timer's point.
VERIFIED_ASSIGNMENT = "01_arrays"
_VERIFIED_REFERENCE = solution_sources(VERIFIED_ASSIGNMENT)
_VERIFIED_POINTS = test_points(VERIFIED_ASSIGNMENT)
_DISARM = """import sys

import autograder
import autograder.verifying

for name, module in list(sys.modules.items()):
    if name == "autograder" or name.startswith("autograder."):
        for attr in set(vars(module)) | set(getattr(module, "__all__", ())):
            if attr.startswith("check") or attr == "hand_over":
                setattr(module, attr, lambda *a, **k: None)
"""
_RETURNS_ITS_INPUT = {
    "standardize": "def standardize(x):\n    return x\n",
    "safe_take": "def safe_take(x, idx, fill_value):\n    return x\n",
    "pairwise": "def pairwise_sq_dists(x, y):\n    return x\n",
    "softmax": "def softmax(x):\n    return x\n",
}


def _unseen(code: str) -> dict[str, str]:
    """Set 01 answered with its inputs, `code` appended to the first answer."""
    first = _RETURNS_ITS_INPUT["standardize"] + code
    return {**_VERIFIED_REFERENCE, **_RETURNS_ITS_INPUT, "standardize": first}


CASES.update(
    {
        f"{how} (01_arrays)": dict(
            assignment=VERIFIED_ASSIGNMENT, answers=_unseen(code), files=files, deserved=_VERIFIED_POINTS["test_timing"]
        )
        for how, code, files in [
            (
                "writes a module that disarms the checks, then imports it",
                f"open('disarm.py', 'w').write({_DISARM!r})\nimport disarm\n",
                {},
            ),
            (
                "writes that module, then runs it with %run",
                f"open('disarm.py', 'w').write({_DISARM!r})\n%run disarm.py\n",
                {},
            ),
            ("imports that module, handed in beside the notebook as its own", "import tools\n", {"tools.py": _DISARM}),
            (
                "patches the checks through sys.modules from a written module",
                "open('patch.py', 'w').write('import sys\\nfor m in list(sys.modules.values()):\\n    "
                '[setattr(m, a, lambda *a, **k: None) for a in list(getattr(m, "__dict__", {})) if a.startswith("check_")]\\n\')\n'
                "import patch\n",
                {},
            ),
        ]
    }
)
# The same takeover in 04_jit, whose answers return junk: it can win only the tests decided in the kernel alone
# (`[in_the_kernel]` in autograder/verified/04_jit.toml: compile counts, a loop's kind, how the kernel times it).
CASES["writes a module that disarms the checks, then imports it (04_jit)"] = dict(
    assignment=TIMED_ASSIGNMENT,
    answers={
        **_TIMED_REFERENCE,
        "logistic": "def logistic_map(x, r, steps):\n    return x\n"
        f"open('disarm.py', 'w').write({_DISARM!r})\nimport disarm\n",
        "gcd": "def gcd(a, b):\n    return a\n",
        "recurrence": "def recurrence(a0, a1, c1, c2, n):\n    return jnp.zeros(n)\n",
    },
    deserved=sum(_TIMED_POINTS[t] for t in in_the_kernel(TIMED_ASSIGNMENT)),
)
# And in 03_tracing, the catalogue's own set: the wrong affine still loses both its tests, decided by the verifier.
CASES["writes a module that disarms the checks, then imports it (03_tracing)"] = dict(
    answers=attack(f"\nopen('disarm.py', 'w').write({_DISARM!r})\nimport disarm\n"), deserved=HONEST_POINTS
)
# Code the reading cannot see that signals the processes beside its kernel: the one that forked it and the
# grader (its pid is in the kernel's environment). Walled in (ABI 6), it reaches neither, and the batch goes on.
_SIGNALS = """import os, signal

for pid in {os.getppid(), int(os.environ.get("JPY_PARENT_PID") or 0)} - {0, 1}:
    for kill in (lambda: os.killpg(os.getpgid(pid), signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
        except OSError:
            pass
"""
CASES["writes a module that kills the processes grading it, then imports it (01_arrays)"] = dict(
    assignment=VERIFIED_ASSIGNMENT,
    answers=_unseen(f"open('grader_killer.py', 'w').write({_SIGNALS!r})\nimport grader_killer\n"),
    deserved=_VERIFIED_POINTS["test_timing"],
)
# Code the reading cannot see that leaves, where the grader writes the graded notebook afterwards (the kernel's
# own folder), links to the course's files (the solutions, which the next grading would run as references, and the
# gradebook), a hard link and a pipe; and start-up files in its HOME, which later nbgrader commands and kernels
# would run. Walled in, none of it is made, or it dies with the kernel's throw-away HOME.
_LINKS = """import os

course = os.path.abspath(os.path.join(os.getcwd(), "..", "..", ".."))
solution = os.path.join(course, "solutions", "01_arrays", "01_arrays.ipynb")
for name, target in [("01_arrays.ipynb", solution), ("gradebook.db", os.path.join(course, "gradebook.db"))]:
    for plant in (os.remove, lambda name: os.symlink(target, name), os.mkfifo, lambda name: os.link(target, name)):
        try:
            plant(name)
        except OSError:
            pass
"""
# A process that leaves its kernel (a double fork, a session of its own) and, once the kernel has ended, changes what
# the grader wrote in the kernel's folder: the graded notebook, and a file that says it was there. Its keeper (stock
# nbgrader) or its driver (jax-course grade) ends it with the kernel.
OUTLIVED = "outlived-its-kernel"
OUTLIVE = f"""import os, time

kernel = os.getpid()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            try:
                os.kill(kernel, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        time.sleep(1)
        for name in os.listdir("."):
            if name.endswith(".ipynb"):
                open(name, "w").write("{{}}")
        open({OUTLIVED!r}, "w").write("changed after grading")
    os._exit(0)
os.wait()
"""
STARTUP_FILES = [".jupyter/nbgrader_config.py", ".ipython/profile_default/startup/00-course.py"]
_STARTUP = f"""import os

for name in {STARTUP_FILES!r}:
    path = os.path.join(os.path.expanduser("~"), name)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as file:
            file.write("import autograder.checks\\nautograder.checks.check_close = lambda *a, **k: None\\n")
    except OSError:
        pass
"""
CASES.update(
    {
        f"a module that {how}, imported (01_arrays)": dict(
            assignment=VERIFIED_ASSIGNMENT,
            answers=_unseen(f"open('planted.py', 'w').write({code!r})\nimport planted\n"),
            deserved=_VERIFIED_POINTS["test_timing"],
        )
        for how, code in [
            ("plants links and a pipe where the grader writes", _LINKS),
            ("writes start-up files in its HOME", _STARTUP),
            ("leaves a process running that outlives its kernel", OUTLIVE),
        ]
    }
)
# What a test cell shows is not its score (autograder/grading/plugins/_scores.py): nbgrader reads a test cell's first
# `execute_result` as partial credit, and one that is not a number as full marks, before the error a wrong answer
# causes. Set 01 answered with its inputs, each function showing a value in the test cells that call it.
_SHOWN = {
    "a string": "    import sys\n    sys.displayhook('all tests passed')\n",
    "a number above the test's points": "    import sys\n    sys.displayhook(100.0)\n",
    "a value with no text": (
        "    hook = get_ipython().displayhook\n    hook.start_displayhook()\n    hook.write_output_prompt()\n"
        "    hook.write_format_data({'text/html': '<b>passed</b>'}, {})\n    hook.finish_displayhook()\n"
    ),
}
CASES.update(
    {
        f"its answers show {what} in the test cells (01_arrays)": dict(
            assignment=VERIFIED_ASSIGNMENT,
            answers={
                **_VERIFIED_REFERENCE,
                **{grade_id: junk.replace("):\n", "):\n" + code, 1) for grade_id, junk in _RETURNS_ITS_INPUT.items()},
            },
            deserved=_VERIFIED_POINTS["test_timing"],
        )
        for what, code in _SHOWN.items()
    }
)
# An answer right where the kernel runs it, whose program handed to the grader holds gigabytes for as long as it runs:
# what verifying takes is the submission's (`verification/_verifier.py`), so the verifier is stopped past the
# submission's memory, and both tests of that program fail, and no other.
_HOARDS_IN_THE_VERIFIER = """def pairwise_sq_dists(x, y):
    if isinstance(x, jax.core.Tracer):  # traced, as the grader's hand-over exports it
        held = jax.lax.fori_loop(0, 10**9, lambda i, held: held + 1.0, jnp.zeros((2**30,)) + x[0, 0])
        return jnp.zeros((x.shape[0], y.shape[0])) + held[0]
    return jnp.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=-1)
"""
CASES["hands the grader a program that holds 4 GB (01_arrays)"] = dict(
    assignment=VERIFIED_ASSIGNMENT,
    answers={**_VERIFIED_REFERENCE, "pairwise": _HOARDS_IN_THE_VERIFIER},
    deserved=sum(_VERIFIED_POINTS.values())
    - _VERIFIED_POINTS["test_pairwise"]
    - _VERIFIED_POINTS["test_pairwise_speed"],
)
# Code the reading cannot see that listens to every other kernel's channels (their paths are in /proc/self/net/unix:
# IOPub needs no key) and reads what other kernels and the grader keep in the temporary folder, then shows in its own
# notebook whatever it got. A kernel's sockets answer only its grader, and a kernel reads only its own there.
SPIED = "spied on another submission:"
_SPY = """import glob, os, tempfile, time
import zmq

context, heard = zmq.Context(), []
paths = [line.split()[-1] for line in open("/proc/self/net/unix").read().splitlines()[1:] if "kernel-ipc" in line]
subscribers = []
for path in paths:
    subscriber = context.socket(zmq.SUB)
    subscriber.setsockopt(zmq.SUBSCRIBE, b"")
    subscriber.connect("ipc://" + path)
    subscribers.append(subscriber)
deadline = time.monotonic() + 5
while time.monotonic() < deadline:
    for subscriber in subscribers:
        try:
            heard.append(subscriber.recv(zmq.NOBLOCK)[:200])
        except zmq.Again:
            pass
    time.sleep(0.01)
peeked = []
from ipykernel.connect import get_connection_file

own = (tempfile.gettempdir(), os.path.dirname(get_connection_file()))  # its throw-away folder, its sockets' folder
base = os.path.dirname(own[0])  # the grader's temporary folder
for path in glob.glob(os.path.join(base, "jax-course-grade-*", "**"), recursive=True):
    if path.startswith(own):
        continue
    try:
        peeked.append(open(path).read(200))
    except OSError:
        pass
for what in heard + peeked:
    print("spied on " + "another submission:", what)  # the words apart: the answer's own source never matches
"""
CASES["a module that spies on the other kernels and the grader's folders, imported (01_arrays)"] = dict(
    assignment=VERIFIED_ASSIGNMENT,
    answers=_unseen(f"open('spy.py', 'w').write({_SPY!r})\nimport spy\n"),
    deserved=_VERIFIED_POINTS["test_timing"],
)
# Not an attack: what an honest answer may do inside its walls (plot, print, warn, write a file in its folder or a
# temporary one) costs no point.
_HONEST_EXTRAS = """
import matplotlib.pyplot as plt, tempfile, warnings
plt.plot([0, 1], [1, 0])
plt.title("my own figure")
plt.savefig("mine.png")
plt.show()
print("my progress")
warnings.warn("my own warning")
with open("notes.txt", "w") as notes:
    notes.write("mine")
with tempfile.NamedTemporaryFile() as scratch:
    scratch.write(b"x")
"""
CASES["its right answers plot, print, warn and write files (01_arrays)"] = dict(
    assignment=VERIFIED_ASSIGNMENT,
    answers={**_VERIFIED_REFERENCE, "standardize": _VERIFIED_REFERENCE["standardize"] + "\n" + _HONEST_EXTRAS},
    deserved=sum(_VERIFIED_POINTS.values()),
    stock_gets=sum(_VERIFIED_POINTS.values()),
    ours_gets=sum(_VERIFIED_POINTS.values()),
)
# Not an attack: the reference answers with a module of the student's own, written and imported, keep every point.
CASES["its own module, written and imported, with right answers (01_arrays)"] = dict(
    assignment=VERIFIED_ASSIGNMENT,
    answers={
        **_VERIFIED_REFERENCE,
        "standardize": _VERIFIED_REFERENCE["standardize"] + "\nopen('mine.py', 'w').write('K = 2\\n')\nimport mine\n",
    },
    deserved=sum(_VERIFIED_POINTS.values()),
    stock_gets=sum(_VERIFIED_POINTS.values()),
    ours_gets=sum(_VERIFIED_POINTS.values()),
)


def assignment_of(case: str) -> str:
    return CASES[case].get("assignment", ASSIGNMENT)


def student_id(case: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in case.lower()).strip("_")


def write_submission(course, case: str) -> None:
    """Write `case` as its student's submission in `course`."""
    spec, assignment = CASES[case], assignment_of(case)
    path = course / "submitted" / student_id(case) / assignment / f"{assignment}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    if "raw" in spec:
        path.write_bytes(spec["raw"])
        return
    nb = nbformat.read(course / "exercises" / assignment / f"{assignment}.ipynb", as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in spec["answers"]:
            cell.source = spec["answers"][grade_id]
    if "edit" in spec:
        nb = spec["edit"](nb)
    nbformat.write(nb, path)
    for name, text in spec.get("files", {}).items():
        (path.parent / name).parent.mkdir(parents=True, exist_ok=True)
        (path.parent / name).write_text(text)
    for name, target in spec.get("links", {}).items():  # in place of what was written there ("." the folder)
        link = path.parent / name
        if link.is_dir():
            shutil.rmtree(link)
        link.unlink(missing_ok=True)
        link.symlink_to(target)


# --- Rules that only the kernel enforced (issue 52) -----------------------------------------------------------------
# A module the answer writes and imports disarms the kernel's checks, and an answer gives the right values by the
# route its test rules out. Where the exported program shows the rule (an unrolled loop's operation count, an
# operation the test forbids), the verifier fails it too, so each case loses that test's points, and only those,
# in both pipelines. Rules no program shows are named in INTEGRITY.md's table as kept only in the kernel
# (`kernel_rule` in autograder/verified/); no case here claims them. Unlike `_DISARM`, this module leaves the
# hand-over alone: the answers reach the verifier, which decides.
_DISARM_CHECKS = """import sys

import autograder

for name, module in list(sys.modules.items()):
    if name == "autograder" or name.startswith("autograder."):
        for attr in set(vars(module)) | set(getattr(module, "__all__", ())):
            if attr.startswith("check"):
                setattr(module, attr, lambda *a, **k: None)
"""
_IMPORT_DISARM_CHECKS = f"\nopen('disarm_checks.py', 'w').write({_DISARM_CHECKS!r})\nimport disarm_checks\n"


def _forbidden_route(assignment: str, first: str, answers: dict[str, str], lost: set[str]) -> dict:
    """A submission to `assignment`: the reference, `answers` instead, the checks disarmed from the answer cell
    `first`; it must get exactly the points of every test but those `lost`."""
    reference, points = solution_sources(assignment), test_points(assignment)
    answers = {**reference, **answers}
    answers[first] += _IMPORT_DISARM_CHECKS
    deserved = sum(points.values()) - sum(points[test] for test in lost)
    case = dict(answers=answers, deserved=deserved, stock_gets=deserved, ours_gets=deserved)
    return case if assignment == ASSIGNMENT else {**case, "assignment": assignment}


# The catalogue's own set: affine as a loop over W's rows has slices and a stack the test forbids.
_ROW_LOOP_AFFINE = VARIANTS[ASSIGNMENT]["affine_row_loop"]["answers"]["affine"]
# A Python loop for the recurrence, fast on Python numbers (the eager .at[].set loop takes seconds at the timed
# length): traced for n = 100, it repeats its step in about 400 operations, where the test allows 200.
_LIST_LOOP_RECURRENCE = """def recurrence(a0, a1, c1, c2, n):
    values = [a0, a1]
    for _ in range(n - 2):
        values.append(c1 * values[-1] + c2 * values[-2])
    return jnp.array(values, dtype=jnp.float32)
"""
_SORTED_SOFTMAX = """def softmax(x):
    e = jnp.exp(x - jnp.sort(x, axis=-1)[..., -1:])
    return e / jnp.sum(e, axis=-1, keepdims=True)
"""
# The verifier reads the program, not its text (issue 70): a row loop whose rows each call one jitted step is one
# `func.call` a row to a function printed once, and counts what each call runs; a label in a debug location
# (`jax.named_scope`) names no operation the program runs.
_ROW_LOOP_OF_CALLS = """@jax.jit
def row_sq_dists(x_i, y):
    return jnp.sum((x_i[None, :] - y) ** 2, axis=-1)


def pairwise_sq_dists(x, y):
    return jnp.stack([row_sq_dists(x[i], y) for i in range(x.shape[0])])
"""
_LABELLED_SORTED_SOFTMAX = """def softmax(x):
    with jax.named_scope("stablehlo.maximum"):
        e = jnp.exp(x - jnp.sort(x, axis=-1)[..., -1:])
    return e / jnp.sum(e, axis=-1, keepdims=True)
"""
CASES.update(
    {
        "the checks disarmed, pairwise_sq_dists as a loop of jitted row steps (01_arrays)": _forbidden_route(
            VERIFIED_ASSIGNMENT,
            "standardize",
            {"pairwise": _ROW_LOOP_OF_CALLS},
            {"test_pairwise", "test_pairwise_speed"},
        ),
        "the checks disarmed, a sorted softmax labelled stablehlo.maximum (01_arrays)": _forbidden_route(
            VERIFIED_ASSIGNMENT, "standardize", {"softmax": _LABELLED_SORTED_SOFTMAX}, {"test_softmax_stable"}
        ),
        "the checks disarmed, pairwise_sq_dists as a loop over rows (01_arrays)": _forbidden_route(
            VERIFIED_ASSIGNMENT,
            "standardize",
            {"pairwise": VARIANTS[VERIFIED_ASSIGNMENT]["pairwise_row_loop"]["answers"]["pairwise"]},
            {"test_pairwise", "test_pairwise_speed"},
        ),
        "the checks disarmed, a stable softmax whose maximum comes from a sort (01_arrays)": _forbidden_route(
            VERIFIED_ASSIGNMENT, "standardize", {"softmax": _SORTED_SOFTMAX}, {"test_softmax_stable"}
        ),
        "the checks disarmed, recurrence as a Python loop (04_jit)": _forbidden_route(
            TIMED_ASSIGNMENT, "logistic", {"recurrence": _LIST_LOOP_RECURRENCE}, {"test_recurrence_structure"}
        ),
        "the checks disarmed, affine as a loop over rows (03_tracing)": _forbidden_route(
            ASSIGNMENT, "affine", {"affine": _ROW_LOOP_AFFINE}, {"test_affine_jaxpr"}
        ),
    }
)
