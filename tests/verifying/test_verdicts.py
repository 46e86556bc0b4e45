"""The verifier: programs handed over from a kernel, judged where no student code runs."""

from __future__ import annotations

import base64
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export
from jax._src.interpreters.mlir import make_ir_context
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P
from jaxlib.mlir import ir

from autograder._verified import Call, Problem, problems
from autograder.checks._compare import input_rounding
from autograder.checks._errors import CheckFailed
from autograder.checks._reference import check_reference, load_reference
from autograder.checks._seeds import grader_rng
from autograder.verifying import _hand_over, _inputs, _verdicts, verify

from support import solution_sources

pytestmark = pytest.mark.unit

SET = "01_arrays"
# The speed test times for seconds; it is graded in tests/course (the reference, and the hostile catalogue).
VALUES_ONLY = [grade_id for grade_id, problem in problems(SET).items() if not any(c.speedup for c in problem.calls)]
# A program for each of the pairwise test's calls, where a test hands over one it means to fail on the first.
PAIRWISE_CALLS = len(problems(SET)["test_pairwise"].calls)


def _answers(**replaced: str) -> dict:
    """Set 01's solution cells run in a namespace, some replaced: what a notebook's globals would hold."""
    namespace: dict = {"jax": jax, "jnp": jnp, "np": np}
    for source in {**solution_sources(SET), **replaced}.values():
        exec(source, namespace)  # the course's own reference answers, and variants written here
    return namespace


def _handed(namespace: dict, grade_ids=VALUES_ONLY) -> dict:
    """What the kernel's hand-over cells would display, by grade id."""
    handed = {}
    for grade_id in grade_ids:
        problem = problems(SET)[grade_id]
        handed[grade_id] = [
            {"program": _hand_over.exported(_hand_over.answer(problem, call, namespace), call)}
            for call in problem.calls
        ]
    return handed


def _only(verdicts: dict, grade_ids=VALUES_ONLY) -> dict:
    return {grade_id: verdicts[grade_id] for grade_id in grade_ids}


def test_the_inputs_are_those_the_hidden_test_draws():
    call = problems(SET)["test_standardize"].calls
    rng, same = grader_rng("01_arrays/standardize"), grader_rng("01_arrays/standardize")
    floats, ints = _inputs.draw(call[0], rng)[0], _inputs.draw(call[1], rng)[0]
    np.testing.assert_array_equal(floats, np.asarray(same.normal(3.0, 5.0, size=(7, 4)), np.float32))
    np.testing.assert_array_equal(ints, np.asarray(same.integers(-50, 50, size=(6, 3)), np.int32))


def test_the_reference_answers_pass():
    verdicts = _only(verify(SET, _handed(_answers())))
    assert all(v["passed"] for v in verdicts.values()), verdicts


def test_answers_that_return_their_input_fail_each_with_what_differs():
    junk = _answers(
        standardize="def standardize(x):\n    return x\n",
        safe_take="def safe_take(x, idx, fill_value):\n    return x\n",
        pairwise="def pairwise_sq_dists(x, y):\n    return x\n",
        softmax="def softmax(x):\n    return x\n",
    )
    verdicts = _only(verify(SET, _handed(junk)))
    assert not any(v["passed"] for v in verdicts.values()), verdicts
    for verdict in verdicts.values():
        said = verdict["message"]
        # softmax returning x has no maximum in its program, which the stable softmax's test asks for first
        assert "differs from the expected values" in said or "has shape" in said or "has no `maximum`" in said
        assert "Reread: course/01_arrays.ipynb#" in verdict["message"]


def test_a_naive_softmax_fails_on_large_inputs_only():
    naive = _answers(softmax="def softmax(x):\n    return jnp.exp(x) / jnp.exp(x).sum(axis=-1, keepdims=True)\n")
    verdicts = verify(SET, _handed(naive, ["test_softmax", "test_softmax_stable"]))
    assert verdicts["test_softmax"]["passed"]
    assert not verdicts["test_softmax_stable"]["passed"]
    assert "with large values" in verdicts["test_softmax_stable"]["message"]


def test_nothing_handed_over_fails_saying_so():
    verdict = verify(SET, {})["test_pairwise"]
    assert not verdict["passed"]
    assert "was not handed to the grader" in verdict["message"]


def test_an_answer_that_could_not_be_exported_is_named_with_its_error():
    error = "TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called"
    verdict = verify(SET, {"test_pairwise": [{"error": error}] * PAIRWISE_CALLS})["test_pairwise"]
    assert not verdict["passed"]
    assert "could not be exported" in verdict["message"] and "TracerArrayConversionError" in verdict["message"]
    assert "no NumPy on its inputs" in verdict["message"]


def test_an_answer_that_calls_back_into_python_is_named_as_such():
    """jax.export refuses a host callback with words about serialization; the student reads what it means."""
    problem = problems(SET)["test_pairwise"]

    def loop(x, y):
        distances = jax.ShapeDtypeStruct((x.shape[0], y.shape[0]), x.dtype)
        return jax.pure_callback(lambda x, y: np.sum((x[:, None] - y[None]) ** 2, -1), distances, x, y)

    with pytest.raises(NotImplementedError, match="host_callback") as refused:
        _hand_over.exported(loop, problem.calls[0])
    verdict = verify(SET, {"test_pairwise": [{"error": f"NotImplementedError: {refused.value}"}] * len(problem.calls)})
    message = verdict["test_pairwise"]["message"]
    assert "calls back into Python with jax.pure_callback" in message and "serialization" not in message


def test_a_program_made_for_other_inputs_is_refused():
    call = problems(SET)["test_pairwise"].calls[0]
    other = type(call)(what=call.what, args=(call.args[0], call.args[0]))  # (9, 5) twice
    program = _hand_over.exported(lambda x, y: jnp.sum((x[:, None] - y[None]) ** 2, -1), other)
    verdict = verify(SET, {"test_pairwise": [{"program": program}] * PAIRWISE_CALLS})["test_pairwise"]
    assert "made for other inputs" in verdict["message"]
    assert "input 1 as float32[9, 5] where this call gives float32[4, 5]" in verdict["message"]


def test_jax_enable_x64_in_the_kernel_costs_only_the_problem_whose_point_is_the_dtype():
    """With x64 on, the hand-over still exports at the calls' float32 and int32 inputs; results in float64 with
    the right values keep their points, but standardize, which must return float32, loses its, naming x64."""
    uncast = "def standardize(x):\n    x = jnp.asarray(x, dtype=float)\n"  # float: float64 with x64 on
    uncast += "    return (x - x.mean(axis=0)) / x.std(axis=0)\n"
    wide = "def softmax(x):\n    e = jnp.exp(x.astype(jnp.float64) - x.max(axis=-1, keepdims=True))\n"
    wide += "    return e / e.sum(axis=-1, keepdims=True)\n"
    with jax.enable_x64(True):
        handed = _handed(_answers(standardize=uncast, softmax=wide))
        reference = _handed(_answers())
    verdicts = _only(verify(SET, handed))
    assert {grade_id for grade_id, v in verdicts.items() if not v["passed"]} == {"test_standardize"}, verdicts
    said = verdicts["test_standardize"]["message"]
    assert "has dtype float64, expected float32" in said and "jax_enable_x64 is on" in said
    assert "Try: leave jax_enable_x64 off" in said and "Reread: course/01_arrays.ipynb#Dtypes" in said
    assert all(v["passed"] for v in _only(verify(SET, reference)).values())


def test_a_float64_result_gets_the_float32_tolerance_and_no_looser():
    off = "def softmax(x):\n    e = jnp.exp(x.astype(jnp.float64) - x.max(axis=-1, keepdims=True))\n"
    off += "    return e / e.sum(axis=-1, keepdims=True) * (1 + 1e-4)\n"
    with jax.enable_x64(True):
        handed = _handed(_answers(softmax=off), ["test_softmax"])
    verdict = verify(SET, handed)["test_softmax"]
    assert not verdict["passed"] and "relative for float32" in verdict["message"]


def test_a_program_carrying_its_data_as_constants_is_refused():
    table = jnp.asarray(np.random.default_rng(0).normal(size=(1200, 1000)), jnp.float32)  # 4.8 MB
    call = problems(SET)["test_pairwise"].calls[0]
    program = _hand_over.exported(lambda x, y: x[:, :1] * 0 + table[: x.shape[0], : y.shape[0]], call)
    verdict = verify(SET, {"test_pairwise": [{"program": program}] * PAIRWISE_CALLS})["test_pairwise"]
    assert "MB" in verdict["message"] and "constants" in verdict["message"]


@pytest.mark.parametrize("program", ["not base64 at all!", base64.b64encode(b"\x00" * 64).decode()])
def test_bytes_that_are_no_program_fail_without_stopping_the_verifier(program):
    verdicts = verify(SET, {"test_pairwise": [{"program": program}], **_handed(_answers(), ["test_softmax"])})
    assert not verdicts["test_pairwise"]["passed"] and verdicts["test_pairwise"]["message"]
    assert verdicts["test_softmax"]["passed"]


def _module(function, *shapes) -> ir.Module:
    """`function` exported at these shapes (float32) and parsed, as the verifier reads a handed-over program."""
    avals = [jax.ShapeDtypeStruct(shape, jnp.float32) for shape in shapes]
    return _verdicts.parsed(export.export(jax.jit(function))(*avals))


def _written(text: str) -> ir.Module:
    """A program written by hand, as a crafted hand-over could hold: what no jax.export makes."""
    return ir.Module.parse(text, context=make_ir_context())


def _structure(module: ir.Module, **rules) -> None:
    """The verifier's structural rules (`requires`, `forbids`, `max_ops`, `max_elements`) on `module`."""
    call = Call(what="f on a hidden input", args=(), **rules)
    problem = Problem(grade_id="test_f", function="f", draws_from="x/f", section="12#Loops", calls=(call,))
    _verdicts._check_structure(module, problem, call)


def test_a_program_that_calls_out_of_xla_is_refused_by_its_operations_targets():
    """The targets are the operations' own: a location or a backend_config naming one is no call."""
    module = _written(
        "func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %0 = stablehlo.custom_call @xla_python_cpu_callback(%x) {api_version = 2 : i32} : (tensor<2xf32>) -> "
        'tensor<2xf32> loc("stablehlo.custom_call @Qr")\n'
        '  %1 = stablehlo.custom_call @Qr(%0) {backend_config = "stablehlo.custom_call @evil"} : (tensor<2xf32>) -> '
        "tensor<2xf32>\n"
        "  return %1 : tensor<2xf32>\n"
        "}\n"
    )
    assert _verdicts.foreign_calls(module) == ["xla_python_cpu_callback"]


def test_an_array_larger_than_allowed_is_named_with_its_size():
    n = 300
    outer = _module(lambda x: jnp.outer(x, x).sum(0), (n,))
    scaled = _module(lambda x: 2 * x + jnp.sum(x), (n,))
    assert (_verdicts.largest_array(outer), _verdicts.largest_array(scaled)) == (n * n, n)
    _structure(scaled, max_elements=10 * n)
    with pytest.raises(
        CheckFailed, match="builds an array of 90000 elements, where a good answer needs none larger than 3000"
    ):
        _structure(outer, max_elements=10 * n)


def test_array_sizes_are_read_from_the_operations_types_not_from_labels():
    n = 300

    def labelled(x):
        with jax.named_scope("tensor<1000000xf32>"):  # what a reading of the text took for an array
            return 2 * x

    assert _verdicts.largest_array(_module(labelled, (n,))) == n
    inside = _module(lambda x: jax.jit(lambda v: jnp.outer(v, v).sum(0))(x), (n,))  # in a called function
    assert _verdicts.largest_array(inside) == n * n
    unknown = _written("func.func public @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n  return %a : tensor<?xf32>\n}\n")
    with pytest.raises(CheckFailed, match="builds an array whose size is known only as it runs, where"):
        _structure(unknown, max_elements=10 * n)


# A loop over x's rows under jax.jit whose body is a jitted function of its own: one call per row, and the
# function printed once, so the module's text shows a few dozen operations for 60 rows.
ROW_BY_ROW_CALLS = """def pairwise_sq_dists(x, y):
    @jax.jit
    def row(done, x):  # x's first row's distances onto the end of `done`; x turned by a row
        d = jnp.sum((x[0] - y) ** 2, axis=-1)
        return jnp.concatenate([done[1:], d[None]]), jnp.roll(x, -1, axis=0)

    done = jnp.zeros((x.shape[0], y.shape[0]), x.dtype)
    for _ in range(x.shape[0]):
        done, x = row(done, x)
    return done
"""


def test_a_loop_of_calls_counts_the_called_function_at_every_call():
    handed = _handed(_answers(pairwise=ROW_BY_ROW_CALLS), ["test_pairwise"])
    call = problems(SET)["test_pairwise"].calls[1]
    assert call.max_ops == 60 and call.args[0].shape == (60, 5)
    exported = export.deserialize(bytearray(base64.b64decode(handed["test_pairwise"][1]["program"])))
    module = _verdicts.parsed(exported)
    printed = str(module.operation.get_asm(enable_debug_info=False))  # the row function once
    assert len(re.findall(r"\bstablehlo\.[a-z_]+", printed)) < call.max_ops  # what reading the text counted
    ran = _verdicts.operations(module).total()
    assert ran > 10 * call.max_ops, ran
    verdict = verify(SET, handed, only=["test_pairwise"])["test_pairwise"]
    assert not verdict["passed"]
    assert f"runs {ran} operations where a good answer needs at most 60" in verdict["message"]
    assert "a jitted function it calls counts at every call" in verdict["message"]


def test_calls_are_counted_through_calls_and_composites():
    x = (8, 5)

    def twice(v):
        return jax.jit(lambda v: jax.jit(jnp.sin)(jax.jit(jnp.sin)(v)))(v)

    decomposed = jax.lax.composite(lambda v: jnp.sin(v), name="course.sine")
    assert _verdicts.operations(_module(twice, x))["sine"] == 2
    assert _verdicts.operations(_module(lambda v: decomposed(decomposed(decomposed(v))), x))["sine"] == 3
    looped = _verdicts.operations(_module(lambda v: jax.lax.fori_loop(0, 50, lambda i, v: jax.jit(jnp.sin)(v), v), x))
    assert looped["while"] == 1 and looped["sine"] == 1  # a loop's body runs many times but is written once


def _function(name: str, *lines: str, visibility: str = "private") -> str:
    """A function of a 2-vector `%a`, written by hand: its lines, then it returns `%0`."""
    body = "".join(f"  {line}\n" for line in (*lines, "return %0 : tensor<2xf32>"))
    return f"func.func {visibility} @{name}(%a: tensor<2xf32>) -> tensor<2xf32> {{\n{body}}}\n"


def _calls(callee: str, value: str = "%a", into: str = "%0") -> str:
    return f"{into} = call @{callee}({value}) : (tensor<2xf32>) -> tensor<2xf32>"


def test_a_call_nested_deep_is_counted_without_reading_it_again_and_recursion_is_refused():
    depth = 40  # each function calls the next twice, on the result of the first: 2**40 additions
    nested = [_function("main", _calls("f0"), visibility="public")]
    nested += [_function(f"f{k}", _calls(f"f{k + 1}", into="%1"), _calls(f"f{k + 1}", "%1")) for k in range(depth)]
    nested.append(_function(f"f{depth}", "%0 = stablehlo.add %a, %a : tensor<2xf32>"))
    assert _verdicts.operations(_written("".join(nested))) == {"add": 2**depth}
    recursive = _written(_function("main", _calls("again"), visibility="public") + _function("again", _calls("again")))
    with pytest.raises(_verdicts.UnreadableProgram, match="`again` calls itself"):
        _verdicts.operations(recursive)


def _scoped(x):  # unrolled in Python, inside a scope named like the operation
    with jax.named_scope("stablehlo.while"):
        for _ in range(3):
            x = jnp.tanh(x)
    return x


def _named(x):  # unrolled in Python, each step a function named like the operation
    def step(x):
        return jnp.tanh(x)

    step.__name__ = step.__qualname__ = "stablehlo.while"
    for _ in range(3):
        x = jax.jit(step)(x)
    return x


@pytest.mark.parametrize("unrolled", [_scoped, _named], ids=["named-scope", "function-name"])
def test_a_label_is_no_operation(unrolled):
    """`requires = ["while"]` (sets 10, 11, 12, 15) asks for a loop that stays one: a name in the program's debug
    locations or its functions' names is none, and a loop the rules forbid is not found in a label either."""
    shapes = [jax.ShapeDtypeStruct((4,), jnp.float32)]
    assert "stablehlo.while" in export.export(jax.jit(unrolled))(*shapes).mlir_module()  # the label is there
    module = _module(unrolled, (4,))
    with pytest.raises(CheckFailed, match="compiles to has no `while` operation"):
        _structure(module, requires=("while",))
    _structure(module, forbids=("while",))


@pytest.mark.parametrize(
    "loop",
    [
        lambda x: jax.lax.fori_loop(0, 3, lambda i, x: jnp.tanh(x), x),
        lambda x: jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.tanh(c[1])), (0, x))[1],
        lambda x: jax.lax.scan(lambda x, _: (jnp.tanh(x), None), x, length=3)[0],
    ],
    ids=["fori_loop", "while_loop", "scan"],
)
def test_a_loop_that_stays_one_is_a_while(loop):
    module = _module(loop, (4,))
    _structure(module, requires=("while",), max_ops=30)
    with pytest.raises(CheckFailed, match="has a `while` operation"):
        _structure(module, forbids=("while",))


def test_a_program_without_its_entry_function_is_refused_saying_so():
    module = _written("func.func public @other(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n")
    with pytest.raises(_verdicts.UnreadableProgram, match="no `main` function"):
        _structure(module, max_ops=10)


def test_the_same_answer_from_two_notebooks_is_compiled_once_and_judged_the_same():
    source = solution_sources(SET)["softmax"]
    handed = []
    for blank_lines, cell in ((1, "<cell-3>"), (7, "<cell-9>")):
        namespace: dict = {"jnp": jnp}
        exec(compile("\n" * blank_lines + source, cell, "exec"), namespace)
        handed.append(_handed(namespace, ["test_softmax"]))
    assert handed[0] != handed[1]  # the programs differ in their source locations
    _verdicts._COMPILED.clear()
    first, second = (verify(SET, h, only=["test_softmax"]) for h in handed)
    assert first == second and first["test_softmax"]["passed"]
    assert len(_verdicts._COMPILED) == len(problems(SET)["test_softmax"].calls)
    junk = _handed({"softmax": lambda x: x}, ["test_softmax"])
    assert not verify(SET, junk, only=["test_softmax"])["test_softmax"]["passed"]
    assert len(_verdicts._COMPILED) == 2 * len(problems(SET)["test_softmax"].calls)


def test_a_timed_call_runs_on_device_arrays_as_the_notebooks_timed_inputs_do(monkeypatch):
    """Drawn as NumPy, a row-by-row baseline would slice on the host: about 20x where a notebook measures 200x."""
    timed = []
    monkeypatch.setattr(_verdicts, "check_speedup", lambda program, baseline, args, *a, **k: timed.append(args))
    problem = problems("01_arrays")["test_pairwise_speed"]
    ((call, inputs),) = _inputs.drawn(problem)
    assert all(isinstance(a, np.ndarray) for a in inputs)
    program = jax.jit(lambda x, y: jnp.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=-1))
    _verdicts._check(problem, call, _verdicts.Program(program, devices=1), inputs)
    assert len(timed) == 1 and all(isinstance(a, jax.Array) for a in timed[0])


@pytest.mark.parametrize(
    ("answer", "passes"),
    [
        ("jax.jit(jnp.matmul, out_shardings=NamedSharding(mesh, P('x', 'y')))(A, B)", True),
        ("jax.device_put(A @ B, NamedSharding(mesh, P('x', 'y')))", True),
        ("A @ B", False),  # made for one device, were it not for the marker beside it
        ("jax.jit(jnp.matmul, out_shardings=NamedSharding(mesh, P('y', 'x')))(A, B)", False),
    ],
)
def test_a_result_is_laid_out_over_the_devices_as_asked(answer, passes):
    namespace: dict = {"jax": jax, "jnp": jnp, "NamedSharding": NamedSharding, "P": P}
    exec(f"def sharded_matmul(A, B, mesh):\n    return {answer}\n", namespace)  # the answers a student might write
    problem = problems("08_parallel")["test_matmul_sharding"]
    handed = [{"program": _hand_over.exported(_hand_over.answer(problem, c, namespace), c)} for c in problem.calls]
    verdict = verify("08_parallel", {"test_matmul_sharding": handed}, only=["test_matmul_sharding"])
    assert verdict["test_matmul_sharding"]["passed"] is passes, verdict
    if not passes:
        assert "not as requested (P('x', 'y'))" in verdict["test_matmul_sharding"]["message"]


def test_a_call_may_grow_its_tolerance_with_its_own_measure_of_the_inputs():
    """Set 15's attention carries its scores' rounding (scores of hundreds) into its output, as its test cell's
    `carried` allows: by the inputs' own size, a reference recorded on one CPU failed the reference on another."""
    problem = problems("15_pallas")["test_local_attention"]
    call, inputs = next(_inputs.drawn(problem))
    (expected,), _, _ = load_reference(str(call.reference))
    scores = np.abs(inputs[0] @ inputs[1].T).max() / np.sqrt(inputs[0].shape[1])
    assert _verdicts._scale(call, inputs) == pytest.approx(scores * np.abs(inputs[2]).max())
    off = jnp.asarray(expected + 0.5 * input_rounding(_verdicts._scale(call, inputs), np.float32), jnp.float32)
    check_reference(off, str(call.reference), inputs=_verdicts._scale(call, inputs))
    with pytest.raises(CheckFailed, match="differs"):
        check_reference(off, str(call.reference), inputs=inputs)  # the inputs' size alone: too tight
    with pytest.raises(CheckFailed, match="differs"):
        check_reference(jnp.asarray(expected + 1e-3), str(call.reference), inputs=_verdicts._scale(call, inputs))
    plain = Call(what="x", args=(), inputs_scale=True)
    assert _verdicts._scale(plain, inputs) is inputs and _verdicts._scale(Call(what="x", args=()), inputs) is None
