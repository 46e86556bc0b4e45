"""`check_pallas_kernel` passes a tiled Pallas kernel and names each way an answer avoids being one;
`kernel_traffic` counts the bytes a grid moves as Pallas moves them on TPU."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import pallas as pl

import autograder as ag

from support import ANY_VALUE

pytestmark = pytest.mark.unit

X = jax.random.normal(jax.random.key(0), (128, 64))
Y = jax.random.normal(jax.random.key(1), (64, 128))


def matmul_kernel(x_ref, y_ref, o_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...] @ y_ref[...]


def matmul(x, y, bm=32, bn=64, bk=32):
    (m, k), n = x.shape, y.shape[1]
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // bm, n // bn, k // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)), pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
        interpret=True,
    )(x, y)


def rows(kernel, x, block=(16, 64), grid=None, index=lambda i: (i, 0)):
    """A row-wise kernel over x, one block of rows per program."""
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=grid or (x.shape[0] // block[0],),
        in_specs=[pl.BlockSpec(block, index)],
        out_specs=pl.BlockSpec(block, index),
        interpret=True,
    )(x)


def softmax_kernel(x_ref, o_ref):
    e = jnp.exp(x_ref[...] - x_ref[...].max(axis=-1, keepdims=True))
    o_ref[...] = e / e.sum(axis=-1, keepdims=True)


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def right_product(value):
    ag.check_close(value, X @ Y)


@pytest.mark.parametrize(
    "answer",
    [matmul, jax.jit(matmul), lambda x, y: matmul(x.astype(jnp.float32), y).reshape(128, 128)],
    ids=["matmul", "inside jit", "with a cast and a reshape"],
)
def test_a_tiled_kernel_passes(answer):
    ag.check_pallas_kernel(answer, X, Y, works=right_product, in_blocks=[(32, 32), (32, 64)])


def test_a_row_kernel_with_a_squeezed_dimension_passes():
    def one_row(x):
        return rows(softmax_kernel, x, block=(None, 64), grid=(x.shape[0],))

    ag.check_pallas_kernel(one_row, X, works=lambda v: ag.check_close(v, jax.nn.softmax(X, axis=-1)))
    (kernel,) = ag.pallas_kernels(one_row, X)
    assert kernel.grid == (128,) and kernel.inputs[0].block == (1, 64)


def test_the_values_are_confirmed_first():
    with pytest.raises(ag.CheckFailed, match="the inputs of this check|differ"):
        ag.check_pallas_kernel(lambda x, y: matmul(x, y) + 1.0, X, Y, works=right_product)


@pytest.mark.parametrize(
    "answer, says",
    [
        (lambda x: jax.nn.softmax(x, axis=-1), "runs no pallas_call"),
        (lambda x: rows(softmax_kernel, x, block=(128, 64)), r"as one block of \(128, 64\)"),
        (lambda x: rows(copy_kernel, jax.nn.softmax(x, axis=-1)), "outside its pallas_call"),
    ],
    ids=["jax.nn in place of the kernel", "one block as big as the array", "the work done before the kernel"],
)
def test_an_answer_that_is_not_a_tiled_kernel_is_named(answer, says):
    with pytest.raises(ag.CheckFailed, match=says):
        section = "15#A first kernel: pallas_call, BlockSpec and the grid"
        ag.check_pallas_kernel(answer, X, works=ANY_VALUE, section=section)


def test_a_kernel_that_reads_the_whole_array_through_a_closure_is_named():
    def closure(x):
        def kernel(x_ref, o_ref):
            o_ref[...] = jax.lax.dynamic_slice_in_dim(jax.nn.softmax(x, axis=-1), pl.program_id(0) * 16, 16)

        return rows(kernel, x)

    with pytest.raises(ag.CheckFailed, match="captures arrays from the enclosing function"):
        ag.check_pallas_kernel(closure, X, works=ANY_VALUE)


def test_a_grid_that_misses_part_of_the_output_is_named():
    with pytest.raises(
        ag.CheckFailed, match=r"never writes output 0 .* at 4096 of its 8192 elements, the first at index \(64, 0\)"
    ):
        ag.check_pallas_kernel(lambda x: rows(copy_kernel, x, grid=(4,)), X, works=ANY_VALUE)


def test_wrong_values_from_a_grid_that_misses_part_of_the_output_name_the_grid_not_overflow():
    """Interpret mode leaves NaN where no program wrote: the grid is the cause, and the message says so."""
    with pytest.raises(ag.CheckFailed, match=r"never writes output 0[\s\S]*Try: make the grid") as failure:
        ag.check_pallas_kernel(lambda x: rows(copy_kernel, x, grid=(4,)), X, works=lambda v: ag.check_close(v, X))
    assert "overflow" not in str(failure.value)


def test_an_accumulator_never_started_is_named_not_overflow():
    """Run again with the memory no program wrote at zero, the NaN goes: so it came from there, also under jit."""

    def no_start(x_ref, y_ref, o_ref):
        o_ref[...] += x_ref[...] @ y_ref[...]

    def no_start_matmul(x, y):
        return pl.pallas_call(
            no_start,
            out_shape=jax.ShapeDtypeStruct((128, 128), x.dtype),
            grid=(4, 2, 2),
            in_specs=[pl.BlockSpec((32, 32), lambda i, j, k: (i, k)), pl.BlockSpec((32, 64), lambda i, j, k: (k, j))],
            out_specs=pl.BlockSpec((32, 64), lambda i, j, k: (i, j)),
            interpret=True,
        )(x, y)

    for answer in (no_start_matmul, jax.jit(no_start_matmul)):
        with pytest.raises(ag.CheckFailed, match=r"NaN that no arithmetic made[\s\S]*Try: start the sum") as failure:
            ag.check_pallas_kernel(answer, X, Y, works=right_product)
        assert "overflow" not in str(failure.value)


def test_an_overflow_is_not_called_unwritten_memory():
    def overflowing(x_ref, o_ref):
        e = jnp.exp(x_ref[...] * 1000.0)
        o_ref[...] = e / e.sum(axis=-1, keepdims=True)

    with pytest.raises(ag.CheckFailed, match="overflow") as failure:
        ag.check_pallas_kernel(lambda x: rows(overflowing, x), X,
                               works=lambda v: ag.check_close(v, jax.nn.softmax(X * 1000.0, axis=-1)))  # fmt: skip
    assert "no arithmetic made" not in str(failure.value)


def test_an_input_no_program_reads_and_a_block_past_the_end_are_named():
    def ignores_i(x, y):
        return pl.pallas_call(
            matmul_kernel, out_shape=jax.ShapeDtypeStruct((128, 128), x.dtype), grid=(4, 2, 2),
            in_specs=[pl.BlockSpec((32, 32), lambda i, j, k: (0, k)), pl.BlockSpec((32, 64), lambda i, j, k: (k, j))],
            out_specs=pl.BlockSpec((32, 64), lambda i, j, k: (i, j)), interpret=True)(x, y)  # fmt: skip

    with pytest.raises(
        ag.CheckFailed, match=r"reads input 0 .* the first at index \(32, 0\)[\s\S]*index map of input 0"
    ):
        ag.check_pallas_kernel(ignores_i, X, Y, works=right_product)
    swapped = lambda x: rows(copy_kernel, x, block=(16, 64), index=lambda i: (0, i))  # noqa: E731
    with pytest.raises(ag.CheckFailed, match=r"past the array's end[\s\S]*index map of input 0"):
        ag.check_pallas_kernel(swapped, X, works=lambda v: ag.check_close(v, X))


def test_a_mistake_the_test_knows_is_named_with_its_hint():
    def by_columns(x_ref, o_ref):
        e = jnp.exp(x_ref[...] - x_ref[...].max(axis=0, keepdims=True))
        o_ref[...] = e / e.sum(axis=0, keepdims=True)

    def columns_of_blocks():
        blocks = X.reshape(8, 16, 64)
        return jax.nn.softmax(blocks, axis=1).reshape(X.shape)

    mistakes = [("takes the softmax of each column of its block.", columns_of_blocks, "reduce over axis -1.")]
    with pytest.raises(ag.CheckFailed, match=r"it takes the softmax of each column[\s\S]*Try: reduce over axis -1"):
        ag.check_pallas_kernel(lambda x: rows(by_columns, x), X, mistakes=mistakes,
                               works=lambda v: ag.check_close(v, jax.nn.softmax(X, axis=-1)))  # fmt: skip
    # Values wrong in no way the test knows still get a Try line.
    with pytest.raises(ag.CheckFailed, match=r"differs[\s\S]*Try: compare your kernel"):
        ag.check_pallas_kernel(lambda x: rows(copy_kernel, x), X, mistakes=mistakes,
                               works=lambda v: ag.check_close(v, jax.nn.softmax(X, axis=-1)))  # fmt: skip


def test_an_array_larger_than_max_elements_is_named():
    def two_kernels(x, y):  # the product as a kernel's output, then another kernel reading it
        return rows(copy_kernel, matmul(x, y), block=(16, 128))

    ag.check_pallas_kernel(two_kernels, X, Y, works=right_product, max_elements=128 * 128)
    with pytest.raises(ag.CheckFailed, match=r"builds an array of shape \(128, 128\)"):
        ag.check_pallas_kernel(two_kernels, X, Y, works=right_product, max_elements=128 * 64)


def test_blocks_other_than_those_asked_for_are_named():
    with pytest.raises(ag.CheckFailed, match=r"asks for \[\(32, 64\), \(64, 64\)\]"):
        ag.check_pallas_kernel(matmul, X, Y, works=ANY_VALUE, in_blocks=[(32, 64), (64, 64)])


def test_the_traffic_of_a_blocked_matmul_is_what_its_grid_moves():
    m, k, n, bm, bn, bk, size = 128, 64, 128, 32, 64, 32, 4
    steps = (m // bm) * (n // bn) * (k // bk)
    assert ag.kernel_traffic(matmul, X, Y) == size * (steps * (bm * bk + bk * bn) + m * n)
    # One block along k: x's block stays while j changes, and is read once per row of blocks.
    whole_k = ag.kernel_traffic(lambda x, y: matmul(x, y, bm, bn, k), X, Y)
    assert whole_k == size * (m * k + (m // bm) * k * n + m * n)


def test_a_grid_of_one_block_moves_what_the_compiler_counts():
    """With one block per array the kernel moves each array once, as XLA's cost analysis counts a matmul."""
    cost = jax.jit(jnp.matmul).lower(X, Y).compile().cost_analysis()
    assert cost is not None
    assert ag.kernel_traffic(lambda x, y: matmul(x, y, 128, 128, 64), X, Y) == cost["bytes accessed"]


def test_block_starts_follow_the_index_map_in_grid_order():
    (kernel,) = ag.pallas_kernels(matmul, X, Y)
    x_block, y_block = kernel.inputs
    assert kernel.grid == (4, 2, 2) and x_block.starts is not None and y_block.starts is not None
    np.testing.assert_array_equal(x_block.starts[:4], [[0, 0], [0, 32], [0, 0], [0, 32]])
    np.testing.assert_array_equal(y_block.starts[:4], [[0, 0], [32, 0], [0, 64], [32, 64]])


def test_a_reduction_axis_that_is_not_last_is_named():
    """Interpreted, the sum comes out right; on a TPU the output block would leave VMEM between its visits."""

    def k_first(x, y, bm=32, bn=64, bk=32):
        (m, k), n = x.shape, y.shape[1]
        return pl.pallas_call(
            lambda x_ref, y_ref, o_ref: matmul_kernel_k_first(x_ref, y_ref, o_ref),
            out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
            grid=(k // bk, m // bm, n // bn),
            in_specs=[pl.BlockSpec((bm, bk), lambda k, i, j: (i, k)), pl.BlockSpec((bk, bn), lambda k, i, j: (k, j))],
            out_specs=pl.BlockSpec((bm, bn), lambda k, i, j: (i, j)),
            interpret=True,
        )(x, y)

    def matmul_kernel_k_first(x_ref, y_ref, o_ref):
        @pl.when(pl.program_id(0) == 0)
        def _():
            o_ref[...] = jnp.zeros_like(o_ref)

        o_ref[...] += x_ref[...] @ y_ref[...]

    with pytest.raises(ag.CheckFailed, match="comes back to a block of output 0"):
        ag.check_pallas_kernel(k_first, X, Y, works=right_product)


def test_in_blocks_names_the_first_inputs_only():
    """A bias, or any vector input after those the problem names, may be cut as the answer likes, whole too; a
    matrix may not be one block, wherever it is."""

    def with_bias(x, y, b, bias_block=(1, 64), bias_map=lambda i, j, k: (0, j)):
        def kernel(x_ref, y_ref, b_ref, o_ref):
            matmul_kernel(x_ref, y_ref, o_ref)

            @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
            def _():
                o_ref[...] += b_ref[...]

        return pl.pallas_call(
            kernel,
            out_shape=jax.ShapeDtypeStruct((128, 128), x.dtype),
            grid=(4, 2, 2),
            in_specs=[
                pl.BlockSpec((32, 32), lambda i, j, k: (i, k)),
                pl.BlockSpec((32, 64), lambda i, j, k: (k, j)),
                pl.BlockSpec(bias_block, bias_map),
            ],
            out_specs=pl.BlockSpec((32, 64), lambda i, j, k: (i, j)),
            interpret=True,
        )(x, y, b.reshape(1, -1))

    b = jnp.arange(128.0)
    ag.check_pallas_kernel(
        with_bias, X, Y, b, works=lambda v: ag.check_close(v, X @ Y + b), in_blocks=[(32, 32), (32, 64)]
    )

    # The whole bias, one block that every program reads (on a TPU, a kernel slices it with pl.ds).
    def whole_bias(x, y, b):
        def kernel(x_ref, y_ref, b_ref, o_ref):
            matmul_kernel(x_ref, y_ref, o_ref)
            bias = b_ref[:, pl.ds(pl.program_id(1) * 64, 64)]  # program_id outside pl.when: the interpreter needs it

            @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
            def _():
                o_ref[...] += bias

        specs = [pl.BlockSpec((32, 32), lambda i, j, k: (i, k)), pl.BlockSpec((32, 64), lambda i, j, k: (k, j))]
        return pl.pallas_call(
            kernel,
            out_shape=jax.ShapeDtypeStruct((128, 128), x.dtype),
            grid=(4, 2, 2),
            in_specs=[*specs, pl.BlockSpec((1, 128), lambda i, j, k: (0, 0))],
            out_specs=pl.BlockSpec((32, 64), lambda i, j, k: (i, j)),
            interpret=True,
        )(x, y, b.reshape(1, -1))

    ag.check_pallas_kernel(
        whole_bias, X, Y, b, works=lambda v: ag.check_close(v, X @ Y + b), in_blocks=[(32, 32), (32, 64)]
    )

    def whole_matrix_too(x, y):  # y again, whole, after the inputs the problem names
        return pl.pallas_call(
            lambda x_ref, y_ref, again_ref, o_ref: matmul_kernel(x_ref, y_ref, o_ref),
            out_shape=jax.ShapeDtypeStruct((128, 128), x.dtype), grid=(4, 2, 2),
            in_specs=[pl.BlockSpec((32, 32), lambda i, j, k: (i, k)), pl.BlockSpec((32, 64), lambda i, j, k: (k, j)),
                      pl.BlockSpec((64, 128), lambda i, j, k: (0, 0))],
            out_specs=pl.BlockSpec((32, 64), lambda i, j, k: (i, j)), interpret=True)(x, y, y)  # fmt: skip

    with pytest.raises(ag.CheckFailed, match=r"takes input 2 .* as one block"):
        ag.check_pallas_kernel(whole_matrix_too, X, Y, works=right_product, in_blocks=[(32, 32), (32, 64)])
