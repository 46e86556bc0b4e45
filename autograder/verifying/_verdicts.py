"""In the verifier's process, where no student code runs: each handed-over program is checked on inputs
drawn here, against the recorded references, and timed here against the course's own baseline."""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import export

# JAX's own list of the custom calls an exported program may name (linear algebra, sharding), private
# but the one JAX checks at export: a program written by hand could name a host callback, which runs Python.
from jax._src.export._export import _CUSTOM_CALL_TARGETS_GUARANTEED_STABLE

# Private too: the one sharding that replicates inputs on a device list, whatever mesh the program was made for.
from jax._src.sharding_impls import GSPMDSharding

from .._verified import Call, Problem, problems
from ..checks import baselines
from ..checks._compare import check_close
from ..checks._devices import check_sharding
from ..checks._errors import CheckFailed
from ..checks._randomness import check_within_sigmas
from ..checks._reference import check_reference
from ..checks._timing import check_speedup
from ._inputs import drawn, signature

# A good answer's program is a few kilobytes; a few megabytes means data built into it.
MAX_PROGRAM_BYTES = 4_000_000
_CUSTOM_CALL = re.compile(r"stablehlo\.custom_call\s+@([\w.$-]+)")
_OPERATION = re.compile(r"\bstablehlo\.([a-z_]+)")
_TENSOR = re.compile(r"tensor<((?:\d+x)*)[a-z]")
# Source locations: debug information only, which differs between two notebooks holding the same answer.
_LOCATION = re.compile(r'^#loc.*$|\s*loc\((?:#loc\d*|"[^"]*"|unknown)\)', re.MULTILINE)
# Programs compiled in this process, by what they compute: a verifier kept warm compiles a common answer once.
_COMPILED: dict[str, Program] = {}
_MAX_COMPILED = 256


def largest_array(module_text: str) -> int:
    """The number of elements of the largest array a program's StableHLO names (its inputs included)."""
    return max(
        (math.prod(int(dim) for dim in dims.split("x")[:-1]) for dims in _TENSOR.findall(module_text)), default=1
    )


def foreign_calls(module_text: str) -> list[str]:
    """The custom calls a program's StableHLO names that are not among those JAX guarantees stable."""
    return sorted(set(_CUSTOM_CALL.findall(module_text)) - _CUSTOM_CALL_TARGETS_GUARANTEED_STABLE)


class Program(NamedTuple):
    run: Callable
    devices: int  # how many devices it was made for


def _program(handed: dict, problem: Problem, call: Call) -> Program:
    """The handed-over program for `call`, refused unless it is small, safe to run and made for these inputs."""
    if "program" not in handed:
        reason = str(handed.get("error", "nothing was handed over"))[:600]
        if "host_callback" in reason:  # what jax.export says of jax.pure_callback and io_callback
            reason = "it calls back into Python with jax.pure_callback or io_callback, and the grader runs only XLA"
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
    module = exported.mlir_module()
    if unknown := foreign_calls(module):
        named = ", ".join(unknown[:3])
        raise CheckFailed(f"{call.what}: the program calls out of XLA ({named}), which the grader does not run.")
    _check_signature([(tuple(a.shape), str(a.dtype)) for a in exported.in_avals], call)
    _check_structure(module, problem, call)
    key = repr((_LOCATION.sub("", module), exported.nr_devices, exported.in_shardings_hlo, exported.platforms))
    if key not in _COMPILED:
        if len(_COMPILED) >= _MAX_COMPILED:
            _COMPILED.clear()
        _COMPILED[key] = Program(_callable(exported), exported.nr_devices)
    return _COMPILED[key]


def _check_signature(made_for: list[tuple[tuple[int, ...], str]], call: Call) -> None:
    """A program runs only on the inputs it was made for: the hand-over exports every answer at the call's shapes
    and dtypes whatever the kernel's settings (jax_enable_x64 included), so any other program did not come from it,
    and converting the hidden inputs to suit it would let the program choose what it is graded on."""
    wanted = signature(call)
    if made_for == wanted:
        return
    differs = next((i for i, (a, b) in enumerate(zip(made_for, wanted, strict=False)) if a != b), None)
    said = (
        f"{len(made_for)} inputs where this call gives {len(wanted)}"
        if differs is None
        else f"input {differs} as {made_for[differs][1]}{list(made_for[differs][0])} where this call gives "
        f"{wanted[differs][1]}{list(wanted[differs][0])}"
    )
    raise CheckFailed(
        f"{call.what}: the program handed over was made for other inputs than this call's ({said}), so the grader "
        "does not run it: the grader's own hand-over exports every answer at the call's shapes and dtypes."
    )


def _callable(exported: export.Exported) -> Callable:
    if exported.nr_devices > 1:  # made for several devices: its inputs are replicated on as many
        replicated = GSPMDSharding.get_replicated(jax.devices()[: exported.nr_devices])
        return jax.jit(exported.call, in_shardings=replicated)
    return jax.jit(exported.call)


def _check_structure(module_text: str, problem: Problem, call: Call) -> None:
    """What the call's program must hold or must not (a loop, no loop, a size), read from its StableHLO."""
    operations = _OPERATION.findall(module_text)
    section = call.section or problem.section
    missing = [name for name in call.requires if name not in operations]
    present = [name for name in call.forbids if name in operations]
    if missing or present:
        said = f"has no `{missing[0]}`" if missing else f"has a `{present[0]}`"
        raise CheckFailed(
            f"{call.what}: the program {problem.function} compiles to {said} operation.",
            hint=problem.hint, section=section,
        )  # fmt: skip
    if call.max_ops is not None and len(operations) > call.max_ops:
        raise CheckFailed(
            f"{call.what}: the program {problem.function} compiles to has {len(operations)} operations where a "
            f"good answer needs at most {call.max_ops}: a Python loop unrolled under jax.jit repeats its body.",
            hint=problem.hint, section=section,
        )  # fmt: skip
    if call.max_elements is not None and (largest := largest_array(module_text)) > call.max_elements:
        raise CheckFailed(
            f"{call.what}: the program {problem.function} compiles to builds an array of {largest} elements, where "
            f"a good answer needs none larger than {call.max_elements}.",
            hint=problem.hint, section=section,
        )  # fmt: skip


def _check_sharding(actual: Any, problem: Problem, call: Call, devices: int) -> None:
    """The first output laid out as the call's `sharding` says, on the devices the program was made for."""
    scope: dict[str, Any] = {"devices": jax.devices()[:devices]}
    exec(problem.define, scope)  # the course's own code (autograder/verified/), never the student's
    first = actual[0] if isinstance(actual, tuple) else actual
    check_sharding(
        first, eval(str(call.sharding), scope), works=lambda _: None, what=call.what,
        section=call.section or problem.section,
    )  # fmt: skip


def _scale(call: Call, inputs: tuple) -> Any:
    """What the output's tolerance grows with (check_close's `inputs=`): the inputs, or the call's own measure."""
    if isinstance(call.inputs_scale, str):  # the course's own code (autograder/verified/), never the student's
        return eval(call.inputs_scale, {"np": np})(*(np.asarray(x) for x in inputs))
    return inputs if call.inputs_scale else None


def _check(problem: Problem, call: Call, handed: Program, inputs: tuple) -> None:
    section = call.section or problem.section
    program = handed.run
    actual = program(*inputs)
    if call.reference is not None:
        check_reference(
            actual, call.reference, what=call.what, inputs=_scale(call, inputs), section=section,
            exact_dtype=problem.exact_dtype,
        )  # fmt: skip
    if call.within is not None:
        value, standard_error = call.within
        check_within_sigmas(actual, value, standard_error, what=call.what, hint=problem.hint, section=section)
    if call.sharding is not None:
        _check_sharding(actual, problem, call, handed.devices)
    if call.baseline is not None:
        baseline = getattr(baselines, call.baseline)
        expected = baseline(*inputs, *call.then)

        def works(value: Any) -> None:
            check_close(value, expected, what=call.what, section=section)

        works(actual)
        if call.speedup is not None:
            # Timed on device arrays, as a notebook's timed inputs are (thresholds.toml was measured so): a
            # baseline looping over NumPy rows would slice them on the host, several times faster.
            on_device = jax.tree.map(lambda a: jnp.asarray(a) if isinstance(a, np.ndarray) else a, inputs)
            check_speedup(
                program, baseline, on_device, call.speedup,
                works=works, what=problem.function, against=call.against, hint=problem.hint, section=section,
            )  # fmt: skip


def _verify(problem: Problem, handed: list | None) -> None:
    if not isinstance(handed, list) or len(handed) != len(problem.calls):
        raise CheckFailed(
            f"{problem.function} was not handed to the grader after this test: the notebook stopped before it "
            "got there, or code in it kept the answer from being handed over.",
            section=problem.section,
        )
    for (call, inputs), given in zip(drawn(problem), handed, strict=True):
        _check(problem, call, _program(given if isinstance(given, dict) else {}, problem, call), inputs)


def verify(
    assignment: str,
    handed: dict[str, Any],
    only: list[str] | None = None,
    each: Callable[[str, dict[str, Any]], Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """`{grade_id: {"passed": bool, "message": str}}` for every verified test cell of `assignment` (or those in
    `only`), in order; `each(grade_id, verdict)` is told each one as soon as it is decided."""
    verdicts = {}
    for grade_id, problem in problems(assignment).items():
        if only and grade_id not in only:
            continue
        try:
            _verify(problem, handed.get(grade_id))
            verdicts[grade_id] = {"passed": True, "message": ""}
        except CheckFailed as failure:
            verdicts[grade_id] = {"passed": False, "message": str(failure)}
        except Exception as error:  # a program that deserializes but fails to run, for one
            why = f"{type(error).__name__}: {error}"
            message = f"{problem.function}: the grader could not run the program handed over ({why})"
            verdicts[grade_id] = {"passed": False, "message": message[:800]}
        if each is not None:
            each(grade_id, verdicts[grade_id])
    return verdicts
