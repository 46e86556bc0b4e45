"""In the verifier's process, where no student code runs: each handed-over program is checked on inputs
drawn here, against the recorded references, and timed here against the course's own baseline."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
from jax import export

# JAX's own list of the custom calls an exported program may name (linear algebra, sharding), private
# but the one JAX checks at export: a program written by hand could name a host callback, which runs Python.
from jax._src.export._export import _CUSTOM_CALL_TARGETS_GUARANTEED_STABLE

from .._verified import Call, Problem, problems
from ..checks import baselines
from ..checks._compare import check_close
from ..checks._errors import CheckFailed
from ..checks._reference import check_reference
from ..checks._seeds import grader_rng
from ..checks._timing import check_speedup

# A good answer's program is a few kilobytes; a few megabytes means data built into it.
MAX_PROGRAM_BYTES = 4_000_000
_CUSTOM_CALL = re.compile(r"stablehlo\.custom_call\s+@([\w.$-]+)")


def draw(call: Call, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """The call's inputs, drawn from `rng` as the hidden test draws them."""
    arrays = []
    for arg in call.args:
        if arg.draw == "integers":
            low, high = (int(p) for p in arg.params)
            value = rng.integers(low, high, size=arg.shape)
        else:
            value = getattr(rng, arg.draw)(*arg.params, size=arg.shape)
        arrays.append(np.asarray(value, dtype=arg.dtype))
    return tuple(arrays)


def foreign_calls(module_text: str) -> list[str]:
    """The custom calls a program's StableHLO names that are not among those JAX guarantees stable."""
    return sorted(set(_CUSTOM_CALL.findall(module_text)) - _CUSTOM_CALL_TARGETS_GUARANTEED_STABLE)


def _program(handed: dict, problem: Problem, call: Call) -> Callable:
    """The handed-over program for `call`, refused unless it is small, safe to run and made for these inputs."""
    if "program" not in handed:
        reason = str(handed.get("error", "nothing was handed over"))[:600]
        raise CheckFailed(
            f"{call.what}: {problem.function} could not be exported for the grader to run it ({reason}).",
            hint=f"{problem.function} must run under jax.jit on arrays of the shapes the tests use: "
            "JAX operations only, no NumPy on its inputs and no Python decision on their values.",
            section=call.section or problem.section,
        )
    try:
        data = base64.b64decode(str(handed["program"]), validate=True)
    except (binascii.Error, ValueError):
        raise CheckFailed(f"{call.what}: what was handed to the grader is not an exported program.") from None
    if len(data) > MAX_PROGRAM_BYTES:
        raise CheckFailed(
            f"{call.what}: the program exported from {problem.function} is {len(data) / 1e6:.1f} MB, "
            f"more than the {MAX_PROGRAM_BYTES / 1e6:.0f} MB allowed: it holds data as constants.",
            hint="compute from the function's arguments rather than from large arrays defined outside it.",
            section=call.section or problem.section,
        )
    exported = export.deserialize(bytearray(data))
    if unknown := foreign_calls(exported.mlir_module()):
        named = ", ".join(unknown[:3])
        raise CheckFailed(f"{call.what}: the program calls out of XLA ({named}), which the grader does not run.")
    expected = [(arg.shape, np.dtype(arg.dtype)) for arg in call.args]
    if [(tuple(a.shape), np.dtype(a.dtype)) for a in exported.in_avals] != expected:
        raise CheckFailed(f"{call.what}: the program handed over was made for other inputs than this call's.")
    return jax.jit(exported.call)


def _check(problem: Problem, call: Call, program: Callable, inputs: tuple) -> None:
    section = call.section or problem.section
    actual = program(*inputs)
    if call.reference is not None:
        scale = inputs if call.inputs_scale else None
        check_reference(actual, call.reference, what=call.what, inputs=scale, section=section)
    if call.baseline is not None:
        baseline = getattr(baselines, call.baseline)
        expected = baseline(*inputs, *call.then)

        def works(value: Any) -> None:
            check_close(value, expected, what=call.what, section=section)

        works(actual)
        if call.speedup is not None:
            check_speedup(
                program, baseline, inputs, call.speedup,
                works=works, what=problem.function, against=call.against, hint=problem.hint, section=section,
            )  # fmt: skip


def _verify(problem: Problem, handed: list | None) -> None:
    if not isinstance(handed, list) or len(handed) != len(problem.calls):
        raise CheckFailed(
            f"{problem.function} was not handed to the grader after this test: the notebook stopped before it "
            "got there, or the answer could not be found.",
            section=problem.section,
        )
    rng = grader_rng(problem.draws_from)
    for call, given in zip(problem.calls, handed, strict=True):
        inputs = draw(call, rng)  # every call's draw, in order, as the hidden test makes them
        _check(problem, call, _program(given if isinstance(given, dict) else {}, problem, call), inputs)


def verify(assignment: str, handed: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """`{grade_id: {"passed": bool, "message": str}}` for every verified test cell of `assignment`."""
    verdicts = {}
    for grade_id, problem in problems(assignment).items():
        try:
            _verify(problem, handed.get(grade_id))
            verdicts[grade_id] = {"passed": True, "message": ""}
        except CheckFailed as failure:
            verdicts[grade_id] = {"passed": False, "message": str(failure)}
        except Exception as error:  # a program that deserializes but fails to run, for one
            why = f"{type(error).__name__}: {error}"
            message = f"{problem.function}: the grader could not run the program handed over ({why})"
            verdicts[grade_id] = {"passed": False, "message": message[:800]}
    return verdicts
