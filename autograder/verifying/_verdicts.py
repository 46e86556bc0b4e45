"""In the verifier's process, where no student code runs: each handed-over program is checked on inputs
drawn here, against the recorded references, and timed here against the course's own baseline."""

from __future__ import annotations

import base64
import binascii
import math
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import export

# JAX's own list of the custom calls an exported program may name (linear algebra, sharding), private
# but the one JAX checks at export: a program written by hand could name a host callback, which runs Python.
from jax._src.export._export import _CUSTOM_CALL_TARGETS_GUARANTEED_STABLE

# Private too: the MLIR context JAX itself reads programs under, with StableHLO's and Shardy's dialects registered.
from jax._src.interpreters.mlir import make_ir_context

# Private too: the one sharding that replicates inputs on a device list, whatever mesh the program was made for.
from jax._src.sharding_impls import GSPMDSharding
from jaxlib.mlir import ir

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
# What `jax.export` names the function a program runs, as `Exported.call` runs it.
ENTRY = "main"
# The function dialect's own operations, which compute nothing: a call counts as what the function it calls runs.
_PLUMBING = frozenset({"func.func", "func.call", "func.return"})
# Programs compiled in this process, by what they compute: a verifier kept warm compiles a common answer once.
_COMPILED: dict[str, Program] = {}
_MAX_COMPILED = 256


class UnreadableProgram(ValueError):
    """A program whose operations cannot be told: no entry function, or a function that calls itself."""


def parsed(exported: export.Exported) -> ir.Module:
    """The program's StableHLO as operations. Every verdict reads these, never the module's text: the answer
    chooses words in that text (a debug location holds `jax.named_scope`'s name verbatim, an attribute any
    string), and a function is printed once however many times it is called."""
    with make_ir_context():
        return exported.mlir_module(serialized=False)


def _inner(op: ir.Operation) -> Iterator[ir.Operation]:
    """The operations directly in `op`'s regions: a function's body, a loop's condition and body, a reduction's."""
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner.operation


def _within(op: ir.Operation) -> Iterator[ir.Operation]:
    for inner in _inner(op):
        yield inner
        yield from _within(inner)


def _functions(module: ir.Module) -> dict[str, ir.Operation]:
    named = (op.operation for op in module.body.operations if op.operation.name == "func.func")
    return {ir.StringAttr(op.attributes["sym_name"]).value: op for op in named}


def _callees(op: ir.Operation, functions: dict[str, ir.Operation]) -> Iterator[str]:
    """The functions `op` runs, named in its attributes: a call's callee, a composite's decomposition, a custom
    call's called computations (whatever the attribute, so that no way of calling one escapes the count)."""
    for index in range(len(op.attributes)):
        attribute = op.attributes[index].attr
        for ref in attribute if isinstance(attribute, ir.ArrayAttr) else (attribute,):
            if isinstance(ref, ir.FlatSymbolRefAttr) and ref.value in functions:
                yield ref.value


def _entry(functions: dict[str, ir.Operation]) -> ir.Operation:
    if ENTRY not in functions:
        raise UnreadableProgram(f"it has no `{ENTRY}` function to run")
    return functions[ENTRY]


def _name(op: ir.Operation) -> str:
    """`while` for `stablehlo.while`, as `requires` and `forbids` name StableHLO's operations; others in full."""
    return op.name.removeprefix("stablehlo.")


def operations(module: ir.Module) -> Counter[str]:
    """How many of each operation the program runs, by name: its entry function's, with each call counting the
    called function's at every call site, through calls within calls. A loop's body, a branch, a reduction's
    combiner count once, as written: a loop that stays a loop stays small however many steps it takes."""
    functions = _functions(module)
    counted: dict[str, Counter[str]] = {}

    def run(name: str, calling: tuple[str, ...]) -> Counter[str]:
        if name in calling:  # XLA has no recursion: no count would be what runs
            raise UnreadableProgram(f"its function `{name}` calls itself")
        if name not in counted:  # each function read once: calls nested n deep cost n readings, not 2**n
            counted[name] = held(functions[name], (*calling, name))
        return counted[name]

    def held(op: ir.Operation, calling: tuple[str, ...]) -> Counter[str]:
        found: Counter[str] = Counter()
        for inner in _inner(op):
            if inner.name not in _PLUMBING:
                found[_name(inner)] += 1
            for callee in _callees(inner, functions):
                found.update(run(callee, calling))
            found.update(held(inner, calling))
        return found

    _entry(functions)
    return run(ENTRY, ())


def _running(functions: dict[str, ir.Operation]) -> list[ir.Operation]:
    """The entry function and every function it calls, through calls within calls, each once."""
    reached, waiting = {ENTRY: _entry(functions)}, [ENTRY]
    while waiting:
        for op in _within(functions[waiting.pop()]):
            for callee in _callees(op, functions):
                if callee not in reached:
                    reached[callee] = functions[callee]
                    waiting.append(callee)
    return list(reached.values())


def _elements(type_: ir.Type) -> float:
    """How many elements an array of this type holds (its largest, for a tuple; none, for a token): unbounded when
    its shape is known only as it runs, which no limit can allow."""
    if isinstance(type_, ir.TupleType):
        return max((_elements(type_.get_type(i)) for i in range(type_.num_types)), default=0)
    if isinstance(type_, ir.ShapedType):
        return math.prod(type_.shape) if type_.has_static_shape else math.inf
    return 0


def largest_array(module: ir.Module) -> float:
    """The number of elements of the largest array the program's running functions take or make (its inputs
    included), from their operations' types; `math.inf` if an array's size is known only when it runs."""
    functions = _functions(module)
    signature = ir.FunctionType(ir.TypeAttr(_entry(functions).attributes["function_type"]).value)
    types = [*signature.inputs, *signature.results]
    for function in _running(functions):
        for op in _within(function):
            types.extend(value.type for value in (*op.operands, *op.results))
    return max((_elements(t) for t in types), default=1)


def foreign_calls(module: ir.Module) -> list[str]:
    """The custom calls a program's StableHLO holds (in any function) that are not among those JAX guarantees
    stable, read from the operations' own targets."""
    targets = {
        ir.StringAttr(op.attributes["call_target_name"]).value
        for op in _within(module.operation)
        if op.name == "stablehlo.custom_call"
    }
    return sorted(targets - _CUSTOM_CALL_TARGETS_GUARANTEED_STABLE)


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
    module = parsed(exported)
    if unknown := foreign_calls(module):
        named = ", ".join(unknown[:3])
        raise CheckFailed(f"{call.what}: the program calls out of XLA ({named}), which the grader does not run.")
    _check_signature([(tuple(a.shape), str(a.dtype)) for a in exported.in_avals], call)
    try:
        _check_structure(module, problem, call)
    except UnreadableProgram as unreadable:
        raise CheckFailed(f"{call.what}: the program handed over is none the grader runs: {unreadable}.") from None
    # Printed without its source locations, debug information only, which differs between two notebooks
    # holding the same answer.
    asm = module.operation.get_asm(enable_debug_info=False)
    key = repr((asm, exported.nr_devices, exported.in_shardings_hlo, exported.platforms))
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


def _check_structure(module: ir.Module, problem: Problem, call: Call) -> None:
    """What the call's program must run or must not (a loop, no loop, a size), read from its operations."""
    section = call.section or problem.section
    if call.requires or call.forbids or call.max_ops is not None:
        ran = operations(module)
        missing = [name for name in call.requires if name not in ran]
        present = [name for name in call.forbids if name in ran]
        if missing or present:
            said = f"has no `{missing[0]}`" if missing else f"has a `{present[0]}`"
            raise CheckFailed(
                f"{call.what}: the program {problem.function} compiles to {said} operation.",
                hint=problem.hint, section=section,
            )  # fmt: skip
        if call.max_ops is not None and (total := ran.total()) > call.max_ops:
            raise CheckFailed(
                f"{call.what}: the program {problem.function} compiles to runs {total} operations where a good "
                f"answer needs at most {call.max_ops}: a Python loop unrolled under jax.jit repeats its body, and "
                "a jitted function it calls counts at every call.",
                hint=problem.hint, section=section,
            )  # fmt: skip
    if call.max_elements is not None and (largest := largest_array(module)) > call.max_elements:
        size = (
            "an array whose size is known only as it runs"
            if math.isinf(largest)
            else f"an array of {largest:.0f} elements"
        )
        raise CheckFailed(
            f"{call.what}: the program {problem.function} compiles to builds {size}, where a good answer needs "
            f"none larger than {call.max_elements}.",
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
