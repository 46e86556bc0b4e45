"""Wrong answers to set 15_pallas (see tests/variants/__init__.py)."""


def _columns(
    body: str,
    *,
    grid: str = "x.shape[1] // block_cols",
    in_map: str = "lambda j: (0, j)",
    out_map: str = "lambda j: (0, j)",
    block: str = "(x.shape[0], block_cols)",
) -> str:
    """column_norm as one kernel over blocks of columns, with the kernel body, grid and index maps given."""
    return (
        "def column_norm(x, block_cols):\n"
        "    def kernel(x_ref, o_ref):\n"
        f"{body}"
        f"    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=({grid},),\n"
        f"                          in_specs=[pl.BlockSpec({block}, {in_map})], out_specs=pl.BlockSpec({block}, {out_map}),\n"
        "                          interpret=INTERPRET)(x)\n"
    )


_BY_COLUMNS = "        o_ref[...] = column_norm_reference(x_ref[...])\n\n"
_BY_ROWS = (
    "        x = x_ref[...]\n"
    "        centred = x - x.mean(axis=-1, keepdims=True)\n"
    "        o_ref[...] = centred / jnp.sqrt((centred**2).mean(axis=-1, keepdims=True) + EPS)\n\n"
)


def _linear(
    body: str, *, grid: str = "(m // bm, n // bn, k // bk)", w_map: str = "lambda i, j, k: (k, j)", extra: str = ""
) -> str:
    """linear_relu as one kernel over the grid given, with the kernel body given and the bias in blocks of bn."""
    return (
        "def linear_relu(x, w, b, bm, bn, bk):\n"
        "    def kernel(x_ref, w_ref, b_ref, o_ref):\n"
        f"{body}"
        "    (m, k), n = x.shape, w.shape[1]\n"
        f"    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((m, n), x.dtype), grid={grid},\n"
        f"                          in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)), pl.BlockSpec((bk, bn), {w_map}),\n"
        "                                    pl.BlockSpec((1, bn), lambda i, j, k: (0, j))],\n"
        f"                          out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),{extra} interpret=INTERPRET)(x, w, b.reshape(1, n))\n"
    )


_START = "        @pl.when(pl.program_id(2) == 0)\n        def _():\n            o_ref[...] = jnp.zeros_like(o_ref)\n\n"
_SUM = "        o_ref[...] += x_ref[...] @ w_ref[...]\n\n"
_EPILOGUE = (
    "        @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)\n"
    "        def _():\n"
    "            o_ref[...] = jnp.maximum(o_ref[...] + b_ref[...], 0.0)\n\n"
)
_MATMUL = (
    "def _matmul(x, w, bm, bn, bk, kernel):\n"
    "    (m, k), n = x.shape, w.shape[1]\n"
    "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((m, n), x.dtype), grid=(m // bm, n // bn, k // bk),\n"
    "                          in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)), pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],\n"
    "                          out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)), interpret=INTERPRET)(x, w)\n\n\n"
)

_COLUMN_NORM = {
    # Bypass: the library's standardisation, compiled by XLA: no kernel at all.
    "column_norm_jax_nn": {
        "answers": {
            "column_norm": "def column_norm(x, block_cols):\n    return jax.nn.standardize(x, axis=0, epsilon=EPS)\n"
        },
        "loses": {"test_column_norm"},
        "bypass": "a Pallas kernel, not jax.nn's standardisation compiled by XLA",
        "says": ["runs no pallas_call", "pl.pallas_call"],
    },
    # Bypass: a kernel whose one block is the whole array: a grid of one program, nothing tiled.
    "column_norm_one_block": {
        "answers": {
            "column_norm": "def column_norm(x, block_cols):\n"
            "    def kernel(x_ref, o_ref):\n"
            "        o_ref[...] = column_norm_reference(x_ref[...])\n\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=INTERPRET)(x)\n",
        },
        "loses": {"test_column_norm"},
        "bypass": "a kernel over blocks of columns, not one block as big as the array",
        "says": ["as one block of (64, 512)", "nothing is tiled", "Reread"],
    },
    # Bypass: the kernel reads the whole input through its closure and normalises all of it in every program.
    "column_norm_closure": {
        "answers": {
            "column_norm": _columns(
                "        start = pl.program_id(0) * block_cols\n"
                "        o_ref[...] = jax.lax.dynamic_slice_in_dim(column_norm_reference(x), start, block_cols, axis=1)\n\n"
            )
        },
        "loses": {"test_column_norm"},
        "bypass": "a kernel that reads its columns from its block, not the whole input through a closure",
        "says": ["reads an array it was not given as an input", "captures", "Try"],
    },
    # Bypass: the columns' statistics computed by XLA on the whole array; the kernel only applies them.
    "column_norm_stats_outside": {
        "answers": {
            "column_norm": "def column_norm(x, block_cols):\n"
            "    mean = x.mean(axis=0, keepdims=True)\n"
            "    scale = 1 / jnp.sqrt(((x - mean) ** 2).mean(axis=0, keepdims=True) + EPS)\n\n"
            "    def kernel(x_ref, mean_ref, scale_ref, o_ref):\n"
            "        o_ref[...] = (x_ref[...] - mean_ref[...]) * scale_ref[...]\n\n"
            "    cols = pl.BlockSpec((x.shape[0], block_cols), lambda j: (0, j))\n"
            "    stats = pl.BlockSpec((1, block_cols), lambda j: (0, j))\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(x.shape[1] // block_cols,),\n"
            "                          in_specs=[cols, stats, stats], out_specs=cols, interpret=INTERPRET)(x, mean, scale)\n",
        },
        "loses": {"test_column_norm"},
        "bypass": "the columns' statistics computed in the kernel, not by XLA before it",
        "says": ["outside its pallas_call", "inside the kernel"],
    },
    # Bypass: the lecture's softmax kernel with a new body: blocks of whole rows, each row normalised.
    "column_norm_rows_like_the_lecture": {
        "answers": {
            "column_norm": _columns(
                _BY_ROWS,
                grid="x.shape[0] // 16",
                in_map="lambda i: (i, 0)",
                out_map="lambda i: (i, 0)",
                block="(16, x.shape[1])",
            )
        },
        "loses": {"test_column_norm"},
        "bypass": "each column normalised over its rows, not the lecture's rows",
        "says": ["normalises each row, as the lecture's softmax kernel does", "axis 0", "Reread"],
    },
    # Blocks of columns as asked, each row of the block normalised (the mean over the wrong axis).
    "column_norm_wrong_axis": {
        "answers": {"column_norm": _columns(_BY_ROWS)},
        "loses": {"test_column_norm"},
        "says": ["normalises each row of its block", "axis 0 of the block", "Reread"],
    },
    # A grid one block short: the last columns are never written (NaN in the interpreter).
    "column_norm_short_grid": {
        "answers": {"column_norm": _columns(_BY_COLUMNS, grid="x.shape[1] // block_cols - 1")},
        "loses": {"test_column_norm"},
        "says": ["never writes output 0", "the first at index (0, 384)", "NaN", "pl.cdiv", "Reread"],
    },
    # The index map's axes swapped: block j is asked for along the rows, past the array's end.
    "column_norm_swapped_index_map": {
        "answers": {"column_norm": _columns(_BY_COLUMNS, in_map="lambda j: (j, 0)", out_map="lambda j: (j, 0)")},
        "loses": {"test_column_norm"},
        "says": ["past the array's end", "swaps the axes", "index map of input 0", "Reread"],
    },
    # The input's index map ignores the program id: every program reads the first block of columns.
    "column_norm_input_ignores_program": {
        "answers": {"column_norm": _columns(_BY_COLUMNS, in_map="lambda j: (0, 0)")},
        "loses": {"test_column_norm"},
        "says": ["no program of its grid (4,) reads input 0", "index map of input 0", "Reread"],
    },
    # Bypass: the block size of the visible test typed in; the hidden blocks differ.
    "column_norm_hardcoded": {
        "answers": {"column_norm": _columns(_BY_COLUMNS, grid="x.shape[1] // 128", block="(x.shape[0], 128)")},
        "loses": {"test_column_norm"},
        "bypass": "blocks of the size the function is given, not the visible test's",
        "says": ["on hidden inputs", "the blocks of its inputs are"],
    },
    # Correct, another way: jnp.var and lax.rsqrt on the block, a two-axis grid from pl.cdiv.
    "column_norm_alternative_var": {
        "answers": {
            "column_norm": "def column_norm(x, block_cols):\n"
            "    def kernel(x_ref, o_ref):\n"
            "        x = x_ref[...]\n"
            "        o_ref[...] = (x - jnp.mean(x, axis=0)) * jax.lax.rsqrt(jnp.var(x, axis=0) + EPS)\n\n"
            "    spec = pl.BlockSpec((x.shape[0], block_cols), lambda i, j: (i, j))\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          grid=(1, pl.cdiv(x.shape[1], block_cols)), in_specs=[spec], out_specs=spec, interpret=INTERPRET)(x)\n",
        },
        "loses": set(),
        "alternative": "jnp.var and lax.rsqrt on the block; a two-axis grid from pl.cdiv",
    },
}

_LINEAR_RELU = {
    # Bypass: jnp's matmul, bias and ReLU, compiled by XLA.
    "linear_relu_jnp": {
        "answers": {"linear_relu": "def linear_relu(x, w, b, bm, bn, bk):\n    return jnp.maximum(x @ w + b, 0.0)\n"},
        "loses": {"test_linear_relu"},
        "bypass": "a Pallas kernel for the matmul and its epilogue, not XLA's",
        "says": ["runs no pallas_call", "dot_general"],
    },
    # Bypass: the blocked matmul in a kernel, its bias and ReLU left to XLA after it.
    "linear_relu_epilogue_outside": {
        "answers": {
            "linear_relu": _MATMUL + "def linear_relu(x, w, b, bm, bn, bk):\n"
            "    def kernel(x_ref, w_ref, o_ref):\n"
            + _START
            + _SUM
            + "    return jnp.maximum(_matmul(x, w, bm, bn, bk, kernel) + b, 0.0)\n",
        },
        "loses": {"test_linear_relu"},
        "bypass": "the bias and ReLU fused into the kernel, not applied by XLA after it",
        "says": ["outside its pallas_call", "computes `add`"],
    },
    # Bypass: one block for each array, a grid of one program.
    "linear_relu_one_block": {
        "answers": {
            "linear_relu": "def linear_relu(x, w, b, bm, bn, bk):\n"
            "    def kernel(x_ref, w_ref, b_ref, o_ref):\n"
            "        o_ref[...] = jnp.maximum(x_ref[...] @ w_ref[...] + b_ref[...], 0.0)\n\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype),\n"
            "                          interpret=INTERPRET)(x, w, b.reshape(1, -1))\n",
        },
        "loses": {"test_linear_relu"},
        "bypass": "blocks smaller than the arrays, not one block as big as each",
        "says": ["as one block of (32, 256)", "nothing is tiled"],
    },
    # Bypass: the whole k axis in every block, bk ignored: no sum carried across the grid.
    "linear_relu_whole_k": {
        "answers": {
            "linear_relu": "def linear_relu(x, w, b, bm, bn, bk):\n"
            "    def kernel(x_ref, w_ref, b_ref, o_ref):\n"
            "        o_ref[...] = jnp.maximum(x_ref[...] @ w_ref[...] + b_ref[...], 0.0)\n\n"
            "    (m, k), n = x.shape, w.shape[1]\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((m, n), x.dtype), grid=(m // bm, n // bn),\n"
            "                          in_specs=[pl.BlockSpec((bm, k), lambda i, j: (i, 0)), pl.BlockSpec((k, bn), lambda i, j: (0, j)),\n"
            "                                    pl.BlockSpec((1, bn), lambda i, j: (0, j))],\n"
            "                          out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)), interpret=INTERPRET)(x, w, b.reshape(1, n))\n",
        },
        "loses": {"test_linear_relu"},
        "bypass": "blocks of bk along the reduction axis, summed across the grid, not the whole axis in each block",
        "says": ["the blocks of its inputs are [(16, 256), (256, 128)]", "asks for [(16, 128), (128, 128)]"],
    },
    # Bypass: the kernel reads w through its closure, whole, in every program.
    "linear_relu_closure": {
        "answers": {
            "linear_relu": "def linear_relu(x, w, b, bm, bn, bk):\n"
            "    def kernel(x_ref, o_ref):\n"
            "        j = pl.program_id(1)\n"
            "        o_ref[...] = jnp.maximum(x_ref[...] @ jax.lax.dynamic_slice_in_dim(w, j * bn, bn, axis=1)\n"
            "                                 + jax.lax.dynamic_slice_in_dim(b, j * bn, bn), 0.0)\n\n"
            "    (m, k), n = x.shape, w.shape[1]\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((m, n), x.dtype), grid=(m // bm, n // bn),\n"
            "                          in_specs=[pl.BlockSpec((bm, k), lambda i, j: (i, 0))],\n"
            "                          out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)), interpret=INTERPRET)(x)\n",
        },
        "loses": {"test_linear_relu"},
        "bypass": "a kernel that reads w from its blocks, not whole through a closure",
        "says": ["reads an array it was not given as an input"],
    },
    # No zero start: the sum begins with whatever the output block held (NaN in the interpreter).
    "linear_relu_no_init": {
        "answers": {"linear_relu": _linear(_SUM + _EPILOGUE)},
        "loses": {"test_linear_relu"},
        "says": [
            "holds NaN that no arithmetic made",
            "accumulator never started",
            "pl.when(pl.program_id(axis) == 0)",
            "Reread",
        ],
    },
    # The epilogue at every step along k: the bias added, and the ReLU applied, to partial sums.
    "linear_relu_epilogue_every_step": {
        "answers": {
            "linear_relu": _linear(
                _START + "        o_ref[...] = jnp.maximum(o_ref[...] + x_ref[...] @ w_ref[...] + b_ref[...], 0.0)\n\n"
            )
        },
        "loses": {"test_linear_relu"},
        "says": [
            "linear_relu(x, w, b, 16, 128, 128) with x of shape (32, 256)",
            "at every step along k",
            "pl.num_programs(2) - 1",
            "Reread",
        ],
    },
    # The ReLU applied before the bias is added.
    "linear_relu_bias_after_relu": {
        "answers": {
            "linear_relu": _linear(
                _START
                + _SUM
                + _EPILOGUE.replace(
                    "jnp.maximum(o_ref[...] + b_ref[...], 0.0)", "jnp.maximum(o_ref[...], 0.0) + b_ref[...]"
                )
            )
        },
        "loses": {"test_linear_relu"},
        "says": ["adds the bias after the ReLU", "Try", "Reread"],
    },
    # w's index map ignores j: every program reads the first block of columns of w.
    "linear_relu_w_ignores_j": {
        "answers": {"linear_relu": _linear(_START + _SUM + _EPILOGUE, w_map="lambda i, j, k: (k, 0)")},
        "loses": {"test_linear_relu"},
        "says": ["no program of its grid (2, 2, 2) reads input 1", "index map of input 1", "Reread"],
    },
    # A grid one block short along n: the last columns of the output are never written.
    "linear_relu_short_grid": {
        "answers": {"linear_relu": _linear(_START + _SUM + _EPILOGUE, grid="(m // bm, n // bn - 1, k // bk)")},
        "loses": {"test_linear_relu"},
        "says": ["never writes output 0", "pl.cdiv", "Reread"],
    },
    # The reduction axis first: right in the interpreter, which reloads the output block; on a TPU the sum is lost.
    "linear_relu_k_first": {
        "answers": {
            "linear_relu": "def linear_relu(x, w, b, bm, bn, bk):\n"
            "    def kernel(x_ref, w_ref, b_ref, o_ref):\n"
            "        @pl.when(pl.program_id(0) == 0)\n"
            "        def _():\n"
            "            o_ref[...] = jnp.zeros_like(o_ref)\n\n"
            "        o_ref[...] += x_ref[...] @ w_ref[...]\n\n"
            "        @pl.when(pl.program_id(0) == pl.num_programs(0) - 1)\n"
            "        def _():\n"
            "            o_ref[...] = jnp.maximum(o_ref[...] + b_ref[...], 0.0)\n\n"
            "    (m, k), n = x.shape, w.shape[1]\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((m, n), x.dtype), grid=(k // bk, m // bm, n // bn),\n"
            "                          in_specs=[pl.BlockSpec((bm, bk), lambda k, i, j: (i, k)), pl.BlockSpec((bk, bn), lambda k, i, j: (k, j)),\n"
            "                                    pl.BlockSpec((1, bn), lambda k, i, j: (0, j))],\n"
            "                          out_specs=pl.BlockSpec((bm, bn), lambda k, i, j: (i, j)), interpret=INTERPRET)(x, w, b.reshape(1, n))\n",
        },
        "loses": {"test_linear_relu"},
        "says": ["comes back to a block of output 0", "reduction axis last"],
    },
    # Correct, another way: the sum in a VMEM scratch buffer, written out once; the bias cut as a 1-D block.
    "linear_relu_alternative_scratch": {
        "answers": {
            "linear_relu": "def linear_relu(x, w, b, bm, bn, bk):\n"
            "    def kernel(x_ref, w_ref, b_ref, o_ref, acc_ref):\n"
            "        k = pl.program_id(2)\n\n"
            "        @pl.when(k == 0)\n"
            "        def _():\n"
            "            acc_ref[...] = jnp.zeros_like(acc_ref)\n\n"
            "        acc_ref[...] += jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)\n\n"
            "        @pl.when(k == pl.num_programs(2) - 1)\n"
            "        def _():\n"
            "            o_ref[...] = jax.nn.relu(acc_ref[...] + b_ref[...][None, :]).astype(o_ref.dtype)\n\n"
            "    (m, k), n = x.shape, w.shape[1]\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((m, n), x.dtype), grid=(m // bm, n // bn, k // bk),\n"
            "                          in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)), pl.BlockSpec((bk, bn), lambda i, j, k: (k, j)),\n"
            "                                    pl.BlockSpec((bn,), lambda i, j, k: (j,))],\n"
            "                          out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),\n"
            "                          scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)], interpret=INTERPRET)(x, w, b)\n",
        },
        "loses": set(),
        "alternative": "the sum in a scratch buffer; the bias as a 1-D block; jax.nn.relu in the kernel",
    },
    # Correct, another way: the whole bias in one block (as the problem allows), sliced in the kernel.
    "linear_relu_alternative_whole_bias": {
        "answers": {
            "linear_relu": "def linear_relu(x, w, b, bm, bn, bk):\n"
            "    def kernel(x_ref, w_ref, b_ref, o_ref):\n"
            + _START
            + _SUM
            + "        bias = b_ref[:, pl.ds(pl.program_id(1) * bn, bn)]\n\n"
            "        @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)\n"
            "        def _():\n"
            "            o_ref[...] = jnp.maximum(o_ref[...] + bias, 0.0)\n\n"
            "    (m, k), n = x.shape, w.shape[1]\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((m, n), x.dtype), grid=(m // bm, n // bn, k // bk),\n"
            "                          in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)), pl.BlockSpec((bk, bn), lambda i, j, k: (k, j)),\n"
            "                                    pl.BlockSpec((1, n), lambda i, j, k: (0, 0))],\n"
            "                          out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)), interpret=INTERPRET)(x, w, b.reshape(1, n))\n",
        },
        "loses": set(),
        "alternative": "the whole bias in one block, sliced in the kernel with pl.ds",
    },
}

# Sliding-window flash attention with a kernel body `_BODY` fills in, the online state in scratch.
_FLASH = (
    "def local_attention(q, k, v, window, block_q, block_k):\n"
    "    def kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref):\n"
    "        i, j = pl.program_id(0), pl.program_id(1)\n\n"
    "_START"
    "        s = q_ref[...] @ k_ref[...].T / jnp.sqrt(jnp.float32(q_ref.shape[-1]))\n"
    "        rows = i * block_q + jax.lax.broadcasted_iota(jnp.int32, s.shape, 0)\n"
    "        cols = j * block_k + jax.lax.broadcasted_iota(jnp.int32, s.shape, 1)\n"
    "_BODY"
    "        @pl.when(j == pl.num_programs(1) - 1)\n"
    "        def _():\n"
    "            o_ref[...] = acc_ref[...] / l_ref[...]\n\n"
    "    n, d = q.shape\n"
    "    kv = pl.BlockSpec((block_k, d), lambda i, j: (j, 0))\n"
    "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype), grid=(n // block_q, n // block_k),\n"
    "                          in_specs=[pl.BlockSpec((block_q, d), lambda i, j: (i, 0)), kv, kv],\n"
    "                          out_specs=pl.BlockSpec((block_q, d), lambda i, j: (i, 0)),\n"
    "                          scratch_shapes=[pltpu.VMEM((block_q, 1), jnp.float32), pltpu.VMEM((block_q, 1), jnp.float32),\n"
    "                                          pltpu.VMEM((block_q, d), jnp.float32)], interpret=INTERPRET)(q, k, v)\n"
)
_STATE_START = (
    "        @pl.when(j == 0)\n"
    "        def _():\n"
    "            m_ref[...] = jnp.full_like(m_ref, -jnp.inf)\n"
    "            l_ref[...] = jnp.zeros_like(l_ref)\n"
    "            acc_ref[...] = jnp.zeros_like(acc_ref)\n\n"
)
_MASK = "        s = jnp.where((cols <= rows) & (cols > rows - window), s, -jnp.inf)\n"
_GUARDED = (
    "        m_new = jnp.maximum(m_ref[...], s.max(axis=-1, keepdims=True))\n"
    "        against = jnp.where(m_new == -jnp.inf, 0.0, m_new)\n"
    "        p = jnp.exp(s - against)\n"
    "        rescale = jnp.exp(m_ref[...] - against)\n"
    "        l_ref[...] = rescale * l_ref[...] + p.sum(axis=-1, keepdims=True)\n"
    "        acc_ref[...] = rescale * acc_ref[...] + p @ v_ref[...]\n"
    "        m_ref[...] = m_new\n\n"
)


def _flash(body: str, start: str = _STATE_START) -> str:
    return _FLASH.replace("_START", start).replace("_BODY", body)


# The lecture's online softmax, as it is: exp against a maximum that may still be -inf.
_UNGUARDED = _GUARDED.replace("        against = jnp.where(m_new == -jnp.inf, 0.0, m_new)\n", "").replace(
    "against", "m_new"
)


def _cost(moved: str, flops: str = "2 * m * n * k + 2 * m * n") -> str:
    return (
        "def linear_relu_cost(m, n, k, bm, bn, bk, itemsize):\n"
        f"    flops = {flops}\n"
        "    rows, cols, steps = m // bm, n // bn, k // bk\n"
        f"    moved = {moved}\n"
        "    return flops, moved, flops / moved\n"
    )


_X = "(rows * cols * steps if steps > 1 else rows) * bm * bk"
_W = "(rows * cols * steps if steps > 1 else (rows * cols if cols > 1 else 1)) * bk * bn"
_B = "(rows * cols if cols > 1 else 1) * bn"


def _moved(x: str = _X, w: str = _W, b: str = _B, size: str = "itemsize") -> str:
    return f"{size} * ({x} + {w} + {b} + m * n)"


_LOCAL_ATTENTION = {
    # Bypass: the naive attention given in the notebook, compiled by XLA.
    "local_naive": {
        "answers": {
            "local_attention": "def local_attention(q, k, v, window, block_q, block_k):\n    return local_reference(q, k, v, window)\n"
        },
        "loses": {"test_local_attention"},
        "bypass": "a flash attention kernel, not the naive attention compiled by XLA",
        "says": ["runs no pallas_call"],
    },
    # Bypass: jax.nn's attention with a local window, in place of the kernel.
    "local_jax_nn": {
        "answers": {
            "local_attention": "def local_attention(q, k, v, window, block_q, block_k):\n"
            "    out = jax.nn.dot_product_attention(q[None, :, None], k[None, :, None], v[None, :, None], is_causal=True,\n"
            "                                       local_window_size=(window - 1, 0))\n"
            "    return out[0, :, 0]\n",
        },
        "loses": {"test_local_attention"},
        "bypass": "a flash attention kernel, not jax.nn.dot_product_attention",
        "says": ["runs no pallas_call"],
    },
    # Bypass: every key and value in one block: a kernel per block of queries, each holding K and V whole.
    "local_whole_keys": {
        "answers": {
            "local_attention": "def local_attention(q, k, v, window, block_q, block_k):\n"
            "    def kernel(q_ref, k_ref, v_ref, o_ref):\n"
            "        s = q_ref[...] @ k_ref[...].T / jnp.sqrt(jnp.float32(q_ref.shape[-1]))\n"
            "        rows = pl.program_id(0) * block_q + jax.lax.broadcasted_iota(jnp.int32, s.shape, 0)\n"
            "        cols = jax.lax.broadcasted_iota(jnp.int32, s.shape, 1)\n"
            "        s = jnp.where((cols <= rows) & (cols > rows - window), s, -jnp.inf)\n"
            "        o_ref[...] = jax.nn.softmax(s, axis=-1) @ v_ref[...]\n\n"
            "    n, d = q.shape\n"
            "    whole = pl.BlockSpec((n, d), lambda i: (0, 0))\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype), grid=(n // block_q,),\n"
            "                          in_specs=[pl.BlockSpec((block_q, d), lambda i: (i, 0)), whole, whole],\n"
            "                          out_specs=pl.BlockSpec((block_q, d), lambda i: (i, 0)), interpret=INTERPRET)(q, k, v)\n",
        },
        "loses": {"test_local_attention"},
        "bypass": "blocks of keys and values with an online softmax, not every key in one block",
        "says": ["takes input 1 (float32[128, 32]) as one block"],
    },
    # Bypass: the masked softmax computed by XLA on the whole (n, n) scores; the kernel only multiplies by v.
    "local_weights_outside": {
        "answers": {
            "local_attention": "def local_attention(q, k, v, window, block_q, block_k):\n"
            "    rows, cols = jnp.indices((q.shape[0], q.shape[0]))\n"
            "    scores = jnp.where((cols <= rows) & (cols > rows - window), q @ k.T / jnp.sqrt(jnp.float32(q.shape[1])), -jnp.inf)\n"
            "    weights = jax.nn.softmax(scores, axis=-1)\n\n"
            "    def kernel(w_ref, v_ref, o_ref):\n"
            "        @pl.when(pl.program_id(1) == 0)\n"
            "        def _():\n"
            "            o_ref[...] = jnp.zeros_like(o_ref)\n\n"
            "        o_ref[...] += w_ref[...] @ v_ref[...]\n\n"
            "    n, d = q.shape\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype), grid=(n // block_q, n // block_k),\n"
            "                          in_specs=[pl.BlockSpec((block_q, block_k), lambda i, j: (i, j)),\n"
            "                                    pl.BlockSpec((block_k, d), lambda i, j: (j, 0))],\n"
            "                          out_specs=pl.BlockSpec((block_q, d), lambda i, j: (i, 0)), interpret=INTERPRET)(weights, v)\n",
        },
        "loses": {"test_local_attention"},
        "bypass": "the scores and their softmax computed in the kernel, not by XLA before it",
        "says": ["outside its pallas_call"],
    },
    # Bypass: the kernel reads k and v whole through its closure.
    "local_closure": {
        "answers": {
            "local_attention": "def local_attention(q, k, v, window, block_q, block_k):\n"
            "    def kernel(q_ref, o_ref):\n"
            "        s = q_ref[...] @ k.T / jnp.sqrt(jnp.float32(q.shape[1]))\n"
            "        rows = pl.program_id(0) * block_q + jax.lax.broadcasted_iota(jnp.int32, s.shape, 0)\n"
            "        cols = jax.lax.broadcasted_iota(jnp.int32, s.shape, 1)\n"
            "        s = jnp.where((cols <= rows) & (cols > rows - window), s, -jnp.inf)\n"
            "        o_ref[...] = jax.nn.softmax(s, axis=-1) @ v\n\n"
            "    spec = pl.BlockSpec((block_q, q.shape[1]), lambda i: (i, 0))\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype), grid=(q.shape[0] // block_q,),\n"
            "                          in_specs=[spec], out_specs=spec, interpret=INTERPRET)(q)\n",
        },
        "loses": {"test_local_attention"},
        "bypass": "a kernel that reads keys and values from its blocks, not whole through a closure",
        "says": ["reads an array it was not given as an input"],
    },
    # Bypass: the whole keys and values handed in again as extra inputs, each one block.
    "local_extra_whole_inputs": {
        "answers": {
            "local_attention": "def local_attention(q, k, v, window, block_q, block_k):\n"
            "    def kernel(q_ref, k_block, v_block, k_ref, v_ref, o_ref):\n"
            "        s = q_ref[...] @ k_ref[...].T / jnp.sqrt(jnp.float32(q_ref.shape[-1]))\n"
            "        rows = pl.program_id(0) * block_q + jax.lax.broadcasted_iota(jnp.int32, s.shape, 0)\n"
            "        cols = jax.lax.broadcasted_iota(jnp.int32, s.shape, 1)\n"
            "        o_ref[...] = jax.nn.softmax(jnp.where((cols <= rows) & (cols > rows - window), s, -jnp.inf), axis=-1) @ v_ref[...]\n\n"
            "    n, d = q.shape\n"
            "    kv, whole = pl.BlockSpec((block_k, d), lambda i: (0, 0)), pl.BlockSpec((n, d), lambda i: (0, 0))\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype), grid=(n // block_q,),\n"
            "                          in_specs=[pl.BlockSpec((block_q, d), lambda i: (i, 0)), kv, kv, whole, whole],\n"
            "                          out_specs=pl.BlockSpec((block_q, d), lambda i: (i, 0)), interpret=INTERPRET)(q, k, v, k, v)\n",
        },
        "loses": {"test_local_attention"},
        "bypass": "blocks of keys with an online softmax, not the whole keys handed in again as extra inputs",
        "says": ["takes input 3 (float32[128, 32]) as one block", "nothing is tiled"],
    },
    # The lecture's causal mask: the window's far edge missing.
    "local_causal_only": {
        "answers": {"local_attention": _flash(_MASK.replace(" & (cols > rows - window)", "") + _GUARDED)},
        "loses": {"test_local_attention"},
        "says": ["local_attention(q, k, v, 48, 32, 32)", "the window's far edge", "Reread"],
    },
    # The mask from positions inside the blocks: no block offset.
    "local_no_offset": {
        "answers": {
            "local_attention": _flash(_MASK + _GUARDED)
            .replace("rows = i * block_q + ", "rows = ")
            .replace("cols = j * block_k + ", "cols = ")
        },
        "loses": {"test_local_attention"},
        "says": ["masks by the positions inside the blocks", "the block's offset", "Reread"],
    },
    # One key too many: c >= r - window.
    "local_off_by_one": {
        "answers": {
            "local_attention": _flash(_MASK.replace("cols > rows - window", "cols >= rows - window") + _GUARDED)
        },
        "loses": {"test_local_attention"},
        "says": ["window + 1 keys", "r - window < c <= r", "Reread"],
    },
    # The lecture's online softmax as it is: a block wholly outside a row's window makes the row NaN.
    "local_unguarded": {
        "answers": {"local_attention": _flash(_MASK + _UNGUARDED)},
        "loses": {"test_local_attention"},
        "says": ["wholly outside its window", "exp(-inf - (-inf)) is NaN", "jnp.where(m_new == -jnp.inf", "Reread"],
    },
    # No running maximum: exp of scores near 100 overflows.
    "local_no_running_max": {
        "answers": {
            "local_attention": _flash(
                _MASK + "        p = jnp.exp(s)\n"
                "        l_ref[...] += p.sum(axis=-1, keepdims=True)\n"
                "        acc_ref[...] += p @ v_ref[...]\n\n"
            )
        },
        "loses": {"test_local_attention"},
        "says": ["local_attention(5 * q, 5 * k, v, 40, 64, 32)", "is nan", "overflow"],
    },
    # The running maximum kept, the old sums not rescaled when it rises.
    "local_no_rescale": {
        "answers": {
            "local_attention": _flash(
                _MASK + _GUARDED.replace("rescale = jnp.exp(m_ref[...] - against)", "rescale = 1.0")
            )
        },
        "loses": {"test_local_attention"},
        "says": ["measured against the old maximum", "exp(m_old - m_new)", "Reread"],
    },
    # The state never started: m, l and acc begin as whatever scratch held (NaN in the interpreter).
    "local_state_not_started": {
        "answers": {"local_attention": _flash(_MASK + _GUARDED, start="")},
        "loses": {"test_local_attention"},
        "says": ["holds NaN that no arithmetic made", "pl.when(pl.program_id(axis) == 0)", "Reread"],
    },
    # Correct, another way: the state in extra outputs, not scratch; the blocks outside every window skipped; a
    # large finite number for the masked scores, not -inf, so that no maximum is ever -inf.
    "local_alternative_outputs_and_skip": {
        "answers": {
            "local_attention": "def local_attention(q, k, v, window, block_q, block_k):\n"
            "    def kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref):\n"
            "        i, j = pl.program_id(0), pl.program_id(1)\n\n"
            "        @pl.when(j == 0)\n"
            "        def _():\n"
            "            o_ref[...] = jnp.zeros_like(o_ref)\n"
            "            m_ref[...] = jnp.full_like(m_ref, -1e30)\n"
            "            l_ref[...] = jnp.zeros_like(l_ref)\n\n"
            "        first_key, last_key = j * block_k, j * block_k + block_k - 1\n"
            "        first_query, last_query = i * block_q, i * block_q + block_q - 1\n\n"
            "        @pl.when((first_key <= last_query) & (last_key > first_query - window))\n"
            "        def _():\n"
            "            s = jnp.dot(q_ref[...], k_ref[...].T) * (1.0 / np.sqrt(q_ref.shape[-1]))\n"
            "            rows = first_query + jnp.arange(block_q)[:, None]\n"
            "            cols = first_key + jnp.arange(block_k)[None, :]\n"
            "            s = jnp.where((cols > rows) | (cols <= rows - window), -1e30, s)\n"
            "            m_new = jnp.maximum(m_ref[...], jnp.max(s, axis=1, keepdims=True))\n"
            "            p, alpha = jnp.exp(s - m_new), jnp.exp(m_ref[...] - m_new)\n"
            "            l_ref[...] = alpha * l_ref[...] + jnp.sum(p, axis=1, keepdims=True)\n"
            "            o_ref[...] = alpha * o_ref[...] + p @ v_ref[...]\n"
            "            m_ref[...] = m_new\n\n"
            "        @pl.when(j == pl.num_programs(1) - 1)\n"
            "        def _():\n"
            "            o_ref[...] = o_ref[...] / l_ref[...]\n\n"
            "    n, d = q.shape\n"
            "    kv, row = pl.BlockSpec((block_k, d), lambda i, j: (j, 0)), pl.BlockSpec((block_q, 1), lambda i, j: (i, 0))\n"
            "    state = jax.ShapeDtypeStruct((n, 1), jnp.float32)\n"
            "    out, _, _ = pl.pallas_call(kernel, out_shape=(jax.ShapeDtypeStruct(q.shape, q.dtype), state, state),\n"
            "                               grid=(n // block_q, n // block_k),\n"
            "                               in_specs=[pl.BlockSpec((block_q, d), lambda i, j: (i, 0)), kv, kv],\n"
            "                               out_specs=(pl.BlockSpec((block_q, d), lambda i, j: (i, 0)), row, row),\n"
            "                               interpret=INTERPRET)(q, k, v)\n"
            "    return out\n",
        },
        "loses": set(),
        "alternative": "the online state in extra outputs; blocks outside every window skipped; -1e30 for masked scores",
    },
}

_COST = {
    # Bypass: the lecture's numbers (its matmul's bytes and flops) typed in.
    "cost_typed_in": {
        "answers": {
            "linear_relu_cost": "def linear_relu_cost(m, n, k, bm, bn, bk, itemsize):\n    return 33554432, 917504, 33554432 / 917504\n"
        },
        "loses": {"test_linear_relu_cost"},
        "bypass": "flops and bytes computed from the shapes and blocks, not numbers typed in",
        "says": ["linear_relu_cost(256, 512, 512, 128, 128, 128, 4) gives flops", "XLA's count"],
    },
    # Bypass: every array moved once, as the compiler counts a program without blocks.
    "cost_whole_arrays": {
        "answers": {"linear_relu_cost": _cost("itemsize * (m * k + k * n + n + m * n)")},
        "loses": {"test_linear_relu_cost"},
        "bypass": "the bytes the kernel's grid moves, not each array counted once",
        "says": ["linear_relu_cost(256, 512, 512, 128, 128, 128, 4) gives bytes_moved", "what the kernel's grid moves"],
    },
    # Bypass: every program copies all its blocks: no block kept between consecutive programs.
    "cost_every_program_copies": {
        "answers": {"linear_relu_cost": _cost("itemsize * (rows * cols * steps * (bm * bk + bk * bn + bn) + m * n)")},
        "loses": {"test_linear_relu_cost"},
        "bypass": "blocks kept between consecutive programs, as the grid runs, not copied by every program",
        "says": ["gives bytes_moved", "single block along k"],
    },
    # The matmul's flops only: the epilogue's forgotten.
    "cost_no_epilogue_flops": {
        "answers": {"linear_relu_cost": _cost(_moved(), flops="2 * m * n * k")},
        "loses": {"test_linear_relu_cost"},
        "says": ["gives flops", "for the epilogue"],
    },
    # The bias's bytes forgotten.
    "cost_no_bias": {
        "answers": {"linear_relu_cost": _cost(_moved(b="0"))},
        "loses": {"test_linear_relu_cost"},
        "says": ["gives bytes_moved", "the bias's block changes with j only"],
    },
    # float32's 4 bytes whatever the itemsize.
    "cost_ignores_itemsize": {
        "answers": {"linear_relu_cost": _cost(_moved(size="4"))},
        "loses": {"test_linear_relu_cost"},
        "says": ["linear_relu_cost(128, 256, 1024, 64, 256, 256, 2) gives bytes_moved"],
    },
    # x and w copied by every program, even with one block along k, where x's stays while j runs.
    "cost_single_k_block": {
        "answers": {
            "linear_relu_cost": _cost(_moved(x="rows * cols * steps * bm * bk", w="rows * cols * steps * bk * bn"))
        },
        "loses": {"test_linear_relu_cost"},
        "says": ["linear_relu_cost(16, 512, 128, 8, 128, 128, 4) gives bytes_moved"],
    },
    # The bias copied for every (i, j), even with one block along n, where it never changes.
    "cost_single_n_block": {
        "answers": {"linear_relu_cost": _cost(_moved(b="rows * cols * bn"))},
        "loses": {"test_linear_relu_cost"},
        "says": ["linear_relu_cost(128, 256, 1024, 64, 256, 256, 2) gives bytes_moved"],
    },
    # Bypass: the visible cases' answers looked up; the hidden ones get the lecture's numbers.
    "cost_hardcoded": {
        "answers": {
            "linear_relu_cost": "def linear_relu_cost(m, n, k, bm, bn, bk, itemsize):\n"
            "    known = {(256, 512, 512, 128, 128, 128, 4): (134479872, 4722688), (128, 256, 1024, 64, 256, 256, 2): (67174400, 1376768),\n"
            "             (16, 512, 128, 8, 128, 128, 4): (2113536, 569344)}\n"
            "    flops, moved = known.get((m, n, k, bm, bn, bk, itemsize), (33554432, 917504))\n"
            "    return flops, moved, flops / moved\n",
        },
        "loses": {"test_linear_relu_cost"},
        "bypass": "flops and bytes computed for any shapes and blocks, not the visible cases' answers",
        "says": ["on hidden inputs", "not within 0.01%"],
    },
    # Correct, another way: the grid walked program by program, as the lecture's block_copies walks it.
    "cost_alternative_grid_walk": {
        "answers": {
            "linear_relu_cost": "def linear_relu_cost(m, n, k, bm, bn, bk, itemsize):\n"
            "    blocks = [(lambda i, j, s: (i, s), bm * bk), (lambda i, j, s: (s, j), bk * bn), (lambda i, j, s: (0, j), bn),\n"
            "              (lambda i, j, s: (i, j), bm * bn)]\n"
            "    moved = 0\n"
            "    for index_map, size in blocks:\n"
            "        previous = None\n"
            "        for program in np.ndindex(m // bm, n // bn, k // bk):\n"
            "            block = index_map(*program)\n"
            "            moved += size * itemsize if block != previous else 0\n"
            "            previous = block\n"
            "    flops = np.int64(2) * m * n * k + 2 * m * n\n"
            "    return flops, moved, float(flops) / moved\n",
        },
        "loses": set(),
        "alternative": "the grid walked program by program, as in the lecture",
    },
}


# JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
_ERRORS = {
    # The kernel computes with the reference x_ref, never read with [...].
    "column_norm_ref_not_read": {
        "answers": {
            "column_norm": "def column_norm(x, block_cols):\n    def kernel(x_ref, o_ref):\n        centred = x_ref - x_ref.mean(axis=0, keepdims=True)\n        var = (centred * centred).mean(axis=0, keepdims=True)\n        o_ref[...] = centred / jnp.sqrt(var + EPS)\n\n    spec = pl.BlockSpec((x.shape[0], block_cols), lambda j: (0, j))\n    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n                          grid=(x.shape[1] // block_cols,), in_specs=[spec], out_specs=spec, interpret=INTERPRET)(x)\n"
        },
        "loses": {"test_column_norm"},
        "says": ["references to its blocks", "x = x_ref[...]", "Reread:"],
    },
    # The index map returns one block index for a 2-D block.
    "column_norm_index_map_one_index": {
        "answers": {
            "column_norm": "def column_norm(x, block_cols):\n    def kernel(x_ref, o_ref):\n        x = x_ref[...]\n        centred = x - x.mean(axis=0, keepdims=True)\n        var = (centred * centred).mean(axis=0, keepdims=True)\n        o_ref[...] = centred / jnp.sqrt(var + EPS)\n\n    spec = pl.BlockSpec((x.shape[0], block_cols), lambda j: j)\n    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n                          grid=(x.shape[1] // block_cols,), in_specs=[spec], out_specs=spec, interpret=INTERPRET)(x)\n"
        },
        "loses": {"test_column_norm"},
        "says": ["must return 2 values", "lambda j: (0, j)", "Reread:"],
    },
    # The 1-D bias handed in with the 2-D BlockSpec (1, bn): the reshape forgotten.
    "linear_relu_bias_not_reshaped": {
        "answers": {
            "linear_relu": "def linear_relu(x, w, b, bm, bn, bk):\n    def linear_relu_kernel(x_ref, w_ref, b_ref, o_ref):\n        step = pl.program_id(2)\n\n        @pl.when(step == 0)\n        def _():\n            o_ref[...] = jnp.zeros_like(o_ref)\n\n        o_ref[...] += x_ref[...] @ w_ref[...]\n\n        @pl.when(step == pl.num_programs(2) - 1)\n        def _():\n            o_ref[...] = jnp.maximum(o_ref[...] + b_ref[...], 0.0)\n\n    (m, k), n = x.shape, w.shape[1]\n    return pl.pallas_call(\n        linear_relu_kernel, out_shape=jax.ShapeDtypeStruct((m, n), x.dtype), grid=(m // bm, n // bn, k // bk),\n        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)), pl.BlockSpec((bk, bn), lambda i, j, k: (k, j)),\n                  pl.BlockSpec((1, bn), lambda i, j, k: (0, j))],\n        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)), interpret=SEQUENTIAL_INTERPRET)(x, w, b)\n"
        },
        "loses": {"test_linear_relu"},
        "says": ["1-D bias", "b.reshape(1, n)", "Reread:"],
    },
    # The kernel takes m, l and acc as scratch, but pallas_call is given no scratch_shapes.
    "local_no_scratch_shapes": {
        "answers": {
            "local_attention": "def local_attention(q, k, v, window, block_q, block_k):\n    return local_call(q, k, v, window, block_q, block_k)\n\n\ndef local_kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref, *, window):\n    i, j = pl.program_id(0), pl.program_id(1)\n\n    @pl.when(j == 0)\n    def _():\n        m_ref[...] = jnp.full_like(m_ref, -jnp.inf)\n        l_ref[...] = jnp.zeros_like(l_ref)\n        acc_ref[...] = jnp.zeros_like(acc_ref)\n\n    s = q_ref[...] @ k_ref[...].T / jnp.sqrt(jnp.float32(q_ref.shape[-1]))\n    rows = i * q_ref.shape[0] + jax.lax.broadcasted_iota(jnp.int32, s.shape, 0)\n    cols = j * k_ref.shape[0] + jax.lax.broadcasted_iota(jnp.int32, s.shape, 1)\n    s = jnp.where((cols <= rows) & (cols > rows - window), s, -jnp.inf)\n    m_new = jnp.maximum(m_ref[...], s.max(axis=-1, keepdims=True))\n    against = jnp.where(m_new == -jnp.inf, 0.0, m_new)  # a row with no score yet: its sums stay 0\n    p = jnp.exp(s - against)\n    rescale = jnp.exp(m_ref[...] - against)\n    l_ref[...] = rescale * l_ref[...] + p.sum(axis=-1, keepdims=True)\n    acc_ref[...] = rescale * acc_ref[...] + p @ v_ref[...]\n    m_ref[...] = m_new\n\n    @pl.when(j == pl.num_programs(1) - 1)\n    def _():\n        o_ref[...] = (acc_ref[...] / l_ref[...]).astype(o_ref.dtype)\n\n\ndef local_call(q, k, v, window, block_q, block_k):\n    n, d = q.shape\n    kv_spec = pl.BlockSpec((block_k, d), lambda i, j: (j, 0))\n    return pl.pallas_call(\n        functools.partial(local_kernel, window=window), out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),\n        grid=(n // block_q, n // block_k), in_specs=[pl.BlockSpec((block_q, d), lambda i, j: (i, 0)), kv_spec, kv_spec],\n        out_specs=pl.BlockSpec((block_q, d), lambda i, j: (i, 0)),\n        interpret=SEQUENTIAL_INTERPRET)(q, k, v)\n"
        },
        "loses": {"test_local_attention"},
        "says": ["missing 3 required positional arguments", "scratch_shapes=", "Reread:"],
    },
}

VARIANTS = {**_COLUMN_NORM, **_LINEAR_RELU, **_LOCAL_ATTENTION, **_COST, **_ERRORS}
