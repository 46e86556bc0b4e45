"""In the student's kernel: each verified answer handed to the grader as exported programs, never a verdict."""

from __future__ import annotations

import base64
from typing import Any

import jax
from IPython.display import display
from jax import export

from .._verified import MIME, Call, problems

# What one hand-over may carry as an error: the first lines of what the export raised.
_ERROR_CHARS = 600


def _exported(function: Any, call: Call) -> str:
    """`function` on arrays of the call's shapes and dtypes (its Python values closed over), serialized."""
    then = call.then

    def answer(*arrays):
        return function(*arrays, *then)

    avals = [jax.ShapeDtypeStruct(arg.shape, arg.dtype) for arg in call.args]
    return base64.b64encode(export.export(jax.jit(answer))(*avals).serialize()).decode("ascii")


def hand_over(assignment: str, grade_id: str, namespace: dict) -> None:
    """Display, for the grader, the answer a verified test cell checked: one exported program per call."""
    problem = problems(assignment)[grade_id]
    function = namespace.get(problem.function)
    calls: list[dict[str, str]] = []
    for call in problem.calls:
        if not callable(function):
            calls.append({"error": f"no function named {problem.function} is defined"})
            continue
        try:
            calls.append({"program": _exported(function, call)})
        except Exception as error:  # what the student's code raised while traced: the verdict names it
            calls.append({"error": f"{type(error).__name__}: {error}"[:_ERROR_CHARS]})
    display({MIME: {"grade_id": grade_id, "calls": calls}}, raw=True)
