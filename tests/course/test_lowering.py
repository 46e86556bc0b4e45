"""Lecture 15's kernels, lowered for the chips they are written for, from this CPU.

The lecture runs every kernel in Pallas's interpreter, which accepts blocks a chip would refuse.
Lowering checks them: `jax.jit(f).trace(...).lower(lowering_platforms=("tpu",))` runs Pallas's TPU
lowering (to a Mosaic module) on a machine without a TPU. For a GPU, Pallas's Triton lowering asks
which GPU it is for: `jax.sharding.use_abstract_mesh` names one (an H100) that is not there.

What this does not prove: lowering is not compiling. Mosaic's and Triton's own compilers run inside
XLA on the chip, so their checks, and whether the blocks fit in VMEM or shared memory, are not met
here. Nor is Mosaic GPU: in JAX 0.12 `pl.pallas_call` lowers for a GPU only through Triton (Mosaic GPU
kernels are written with `plgpu.kernel`, and the lecture writes none).
"""

from __future__ import annotations

import ast
import functools

import jax
import jax.numpy as jnp
import nbformat
import pytest
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, use_abstract_mesh

from support import ROOT

pytestmark = pytest.mark.unit

LECTURE = ROOT / "course" / "15_pallas.ipynb"
# The lecture chooses interpret mode from the backend it runs on; here the backend is a lowering target.
CONSTANTS = {"INTERPRET": False, "SEQUENTIAL_INTERPRET": False}


def _array(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.float32)


SQUARE, TALL, HEAD = _array(256, 256), _array(256, 128), _array(256, 64)
# Every function of the lecture that calls pallas_call, with inputs of the shapes the lecture gives it.
KERNELS = {
    "add": ((SQUARE, SQUARE), {}),
    "who_wrote": ((), {}),
    "add_short_grid": ((SQUARE, SQUARE), {}),
    "softmax_rows": ((SQUARE,), {}),
    "matmul": ((SQUARE, SQUARE), {}),
    "sum_blocks": ((TALL,), {"semantics": ("arbitrary",), "interpret": False}),
    "accumulate": ((TALL, TALL), {}),
    "flash_attention": ((HEAD, HEAD, HEAD), {}),
    "matmul_loop": ((SQUARE, SQUARE), {}),
    "flash_attention_loop": ((HEAD, HEAD, HEAD), {}),
}
# Those that carry a sum from program to program: TPU kernels, whose grid runs in order.
SEQUENTIAL = {"matmul", "sum_blocks", "flash_attention"}
# Triton's lowering asks which GPU it lowers for (its compute capability); none is here, so name one.
H100 = AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu")
ON_AN_H100 = AbstractMesh((1,), ("x",), abstract_device=H100)


def _code_cells():
    for cell in nbformat.read(LECTURE, as_version=4).cells:
        if cell.cell_type == "code" and "remove-cell" not in cell.metadata.get("tags", []):
            yield ast.parse(cell.source)


def _calls_pallas_call(node: ast.AST) -> bool:
    return any(
        isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "pallas_call"
        for call in ast.walk(node)
    )


@pytest.fixture(scope="module")
def lecture() -> dict:
    """The lecture's imports and functions, without its computations, with the constants of a compiled run."""
    kept, assigned = [], set()
    for tree in _code_cells():
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef)):
                kept.append(node)
            elif isinstance(node, ast.Assign):
                assigned |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    assert set(CONSTANTS) <= assigned, "the lecture no longer sets the constants this test replaces"
    namespace = dict(CONSTANTS)
    exec(compile(ast.Module(kept, type_ignores=[]), str(LECTURE), "exec"), namespace)  # noqa: S102
    # The lecture gives Mosaic its compiler parameters only when it runs on a TPU: as here, lowered for one.
    namespace["tpu_params"] = lambda *semantics: pltpu.CompilerParams(dimension_semantics=semantics)
    return namespace


def _lowered(kernel, platform: str, args) -> str:
    return jax.jit(kernel).trace(*args).lower(lowering_platforms=(platform,)).as_text()


def _kernel(lecture: dict, name: str, **changes):
    args, keywords = KERNELS[name]
    return functools.partial(lecture[name], **keywords, **changes), args


def test_every_pallas_call_in_the_lecture_is_in_a_kernel_function_lowered_here():
    functions, elsewhere = set(), []
    for tree in _code_cells():
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and _calls_pallas_call(node):
                functions.add(node.name)
            elif _calls_pallas_call(node):
                elsewhere.append(ast.unparse(node)[:80])
    assert not elsewhere, f"pallas_call outside a function, which this test cannot lower: {elsewhere}"
    assert functions == set(KERNELS), "list the lecture's kernel functions in KERNELS, with their inputs"


@pytest.mark.parametrize("name", KERNELS)
def test_the_kernel_lowers_for_a_tpu(lecture, name):
    kernel, args = _kernel(lecture, name)
    assert "tpu_custom_call" in _lowered(kernel, "tpu", args)


def test_the_tpu_lowering_refuses_blocks_that_break_its_rule(lecture):
    """The check above can fail: the matmul's blocks as they were, (64, 64) blocks of x, are refused."""
    kernel, args = _kernel(lecture, "matmul", bk=64)
    with pytest.raises(ValueError, match="divisible by 8 and 128"):
        _lowered(kernel, "tpu", args)


TRITON_DEPRECATED = "ignore:The Pallas Triton backend is deprecated:DeprecationWarning"


@pytest.mark.filterwarnings(TRITON_DEPRECATED)
@pytest.mark.parametrize("name", [name for name in KERNELS if name not in SEQUENTIAL])
def test_the_kernels_written_for_a_gpu_lower_through_triton(lecture, name):
    kernel, args = _kernel(lecture, name)
    with use_abstract_mesh(ON_AN_H100):
        assert "__gpu$xla.gpu.triton" in _lowered(kernel, "cuda", args)


@pytest.mark.filterwarnings(TRITON_DEPRECATED)  # pytest.warns below still sees it
def test_the_triton_lowering_is_deprecated_and_refuses_sizes_that_are_not_powers_of_2(lecture):
    """What the lecture says of Triton in JAX 0.12: lowering through it warns, and it checks sizes."""
    kernel, args = _kernel(lecture, "add")
    with use_abstract_mesh(ON_AN_H100), pytest.warns(DeprecationWarning, match="Pallas Triton backend is deprecated"):
        _lowered(kernel, "cuda", args)
    kernel, args = _kernel(lecture, "add", block=(32, 96))
    with use_abstract_mesh(ON_AN_H100), pytest.raises(ValueError, match="power of 2"):
        _lowered(kernel, "cuda", args)
