"""In the student's kernel: each verified answer handed to the grader as exported programs, never a verdict."""

from __future__ import annotations

import base64
import contextlib
from typing import Any

import jax
from IPython import get_ipython
from IPython.display import display
from jax import export

from .._verified import MIME, Call, Problem, problems, recorded_here
from ..checks._reference import check_reference, recording
from ._inputs import avals, drawn

# What one hand-over may carry as an error: the first lines of what the export raised.
_ERROR_CHARS = 600


def answer(problem: Problem, call: Call, namespace: dict) -> Any:
    """What the grader runs for `call`: the call's harness among the notebook's names, or the problem's
    function with the call's Python values after its arrays."""
    if call.harness is not None:
        scope = dict(namespace)
        exec(problem.define, scope)  # the course's own code (autograder/verified/), beside the student's
        return eval(call.harness, scope)
    function = namespace.get(problem.function)
    if not callable(function):
        raise NameError(f"no function named {problem.function} is defined")
    then = call.then
    return lambda *arrays: function(*arrays, *then)


@contextlib.contextmanager
def _without_debug_output():
    """`jax.debug.print` and `jax.debug.callback` as no-ops: a host callback cannot be serialized, and a
    print left in a correct answer must not cost its points (the values are what the grader compares)."""
    saved = jax.debug.print, jax.debug.callback
    jax.debug.print = jax.debug.callback = lambda *args, **kwargs: None
    try:
        yield
    finally:
        jax.debug.print, jax.debug.callback = saved


def exported(computation: Any, call: Call) -> str:
    """`computation` on inputs of the call's shapes and dtypes, exported and serialized (base64)."""
    with _without_debug_output():
        program = export.export(jax.jit(computation))(*avals(call))
    return base64.b64encode(program.serialize()).decode("ascii")


def _record(problem: Problem, namespace: dict) -> None:
    """While the solutions are recorded: the outputs no hidden test records, on the verifier's inputs."""
    for call, inputs in drawn(problem):
        if recorded_here(call, problem.draws_from):
            check_reference(jax.jit(answer(problem, call, namespace))(*inputs), str(call.reference))


def _test_failed() -> bool:
    """Whether the cell run just before this one, the test cell, raised: its error already scores it zero."""
    shell = get_ipython()
    return shell is not None and not shell.last_execution_succeeded


def hand_over(assignment: str, grade_id: str, namespace: dict) -> None:
    """Display, for the grader, the answer a verified test cell checked: one exported program per call, unless
    the test failed (the grader does not verify it then: `failed_in_the_kernel`)."""
    problem = problems(assignment)[grade_id]
    if recording():
        _record(problem, namespace)
        return
    if _test_failed():
        return
    calls: list[dict[str, str]] = []
    # Tracing runs the answer's Python once: a global it rebinds (a call counter) is put back, so the
    # cells after this one see the notebook as the student left it.
    saved = dict(namespace)
    try:
        for call in problem.calls:
            try:
                calls.append({"program": exported(answer(problem, call, namespace), call)})
            except NameError as missing:
                calls.append({"error": str(missing)})
            except Exception as error:  # what the student's code raised while traced: the verdict names it
                calls.append({"error": f"{type(error).__name__}: {error}"[:_ERROR_CHARS]})
    finally:
        namespace.clear()
        namespace.update(saved)
    display({MIME: {"grade_id": grade_id, "calls": calls}}, raw=True)
