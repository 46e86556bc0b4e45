"""Wrong answers to set 15_pallas (see tests/variants/__init__.py)."""

# Pieces the answers below share: a blocked matmul kernel and its call, as in the lecture.
_MATMUL = (
    "def _matmul(x, w, bm, bn, bk, kernel):\n"
    "    (m, k), n = x.shape, w.shape[1]\n"
    "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((m, n), x.dtype), grid=(m // bm, n // bn, k // bk),\n"
    "                          in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)), pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],\n"
    "                          out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)), interpret=INTERPRET)(x, w)\n\n\n"
)
# Causal flash attention with a kernel body `_BODY` fills in, the online state in scratch.
_FLASH = (
    "def causal_attention(q, k, v, block_q, block_k):\n"
    "    def kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref):\n"
    "        i, j = pl.program_id(0), pl.program_id(1)\n\n"
    "        @pl.when(j == 0)\n"
    "        def _():\n"
    "            m_ref[...] = jnp.full_like(m_ref, -jnp.inf)\n"
    "            l_ref[...] = jnp.zeros_like(l_ref)\n"
    "            acc_ref[...] = jnp.zeros_like(acc_ref)\n\n"
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
_ONLINE = (
    "        m_new = jnp.maximum(m_ref[...], s.max(axis=-1, keepdims=True))\n"
    "        p = jnp.exp(s - m_new)\n"
    "        rescale = jnp.exp(m_ref[...] - m_new)\n"
    "        l_ref[...] = rescale * l_ref[...] + p.sum(axis=-1, keepdims=True)\n"
    "        acc_ref[...] = rescale * acc_ref[...] + p @ v_ref[...]\n"
    "        m_ref[...] = m_new\n\n"
)
_MASK = "        s = jnp.where(cols <= rows, s, -jnp.inf)\n"
# The bytes the lecture printed for its matmul, and its flops: numbers typed in.
_TYPED = (
    "def attention_cost(n_q, n_k, d, block_q, block_k, itemsize):\n    return 33554432, 917504, 33554432 / 917504\n"
)


def _cost(moved: str, flops: str = "4 * n_q * n_k * d") -> str:
    return (
        "def attention_cost(n_q, n_k, d, block_q, block_k, itemsize):\n"
        f"    flops = {flops}\n"
        "    rows, cols = n_q // block_q, n_k // block_k\n"
        f"    moved = {moved}\n"
        "    return flops, moved, flops / moved\n"
    )


_RIGHT_MOVED = "itemsize * (2 * n_q * d + 2 * (rows * cols if cols > 1 else 1) * block_k * d)"

VARIANTS = {
    # Bypass: the library's layer norm, compiled by XLA: no kernel at all.
    "layer_norm_jax_nn": {
        "answers": {
            "layer_norm": "def layer_norm(x, block_rows):\n    return jax.nn.standardize(x, axis=-1, epsilon=EPS)\n"
        },
        "loses": {"test_layer_norm"},
        "bypass": "a Pallas kernel, not jax.nn's layer norm compiled by XLA",
        "says": ["runs no pallas_call", "pl.pallas_call"],
    },
    # Bypass: a kernel whose one block is the whole array: a grid of one program, nothing tiled.
    "layer_norm_one_block": {
        "answers": {
            "layer_norm": "def layer_norm(x, block_rows):\n"
            "    def kernel(x_ref, o_ref):\n"
            "        o_ref[...] = layer_norm_reference(x_ref[...])\n\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=INTERPRET)(x)\n",
        },
        "loses": {"test_layer_norm"},
        "bypass": "a kernel over blocks of rows, not one block as big as the array",
        "says": ["as one block of (64, 128)", "nothing is tiled"],
    },
    # Bypass: the kernel reads the whole input through its closure and normalises all of it in every program.
    "layer_norm_closure": {
        "answers": {
            "layer_norm": "def layer_norm(x, block_rows):\n"
            "    def kernel(x_ref, o_ref):\n"
            "        start = pl.program_id(0) * block_rows\n"
            "        o_ref[...] = jax.lax.dynamic_slice_in_dim(layer_norm_reference(x), start, block_rows)\n\n"
            "    spec = pl.BlockSpec((block_rows, x.shape[1]), lambda i: (i, 0))\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(x.shape[0] // block_rows,),\n"
            "                          in_specs=[spec], out_specs=spec, interpret=INTERPRET)(x)\n",
        },
        "loses": {"test_layer_norm"},
        "bypass": "a kernel that reads its rows from its block, not the whole input through a closure",
        "says": ["reads an array it was not given as an input", "captures"],
    },
    # Bypass: the rows' statistics computed by XLA on the whole array; the kernel only applies them.
    "layer_norm_stats_outside": {
        "answers": {
            "layer_norm": "def layer_norm(x, block_rows):\n"
            "    mean = x.mean(axis=-1, keepdims=True)\n"
            "    scale = 1 / jnp.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + EPS)\n\n"
            "    def kernel(x_ref, mean_ref, scale_ref, o_ref):\n"
            "        o_ref[...] = (x_ref[...] - mean_ref[...]) * scale_ref[...]\n\n"
            "    rows = pl.BlockSpec((block_rows, x.shape[1]), lambda i: (i, 0))\n"
            "    column = pl.BlockSpec((block_rows, 1), lambda i: (i, 0))\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(x.shape[0] // block_rows,),\n"
            "                          in_specs=[rows, column, column], out_specs=rows, interpret=INTERPRET)(x, mean, scale)\n",
        },
        "loses": {"test_layer_norm"},
        "bypass": "the rows' statistics computed in the kernel, not by XLA before it",
        "says": ["outside its pallas_call", "inside the kernel"],
    },
    # Normalised along the wrong axis: the columns of each block of rows.
    "layer_norm_columns": {
        "answers": {
            "layer_norm": "def layer_norm(x, block_rows):\n"
            "    def kernel(x_ref, o_ref):\n"
            "        x = x_ref[...]\n"
            "        centred = x - x.mean(axis=0, keepdims=True)\n"
            "        o_ref[...] = centred / jnp.sqrt((centred**2).mean(axis=0, keepdims=True) + EPS)\n\n"
            "    spec = pl.BlockSpec((block_rows, x.shape[1]), lambda i: (i, 0))\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(x.shape[0] // block_rows,),\n"
            "                          in_specs=[spec], out_specs=spec, interpret=INTERPRET)(x)\n",
        },
        "loses": {"test_layer_norm"},
        "says": ["layer_norm(x, 16) on a (64, 128) x", "differs from the expected values"],
    },
    # A grid one block short: the last rows are never written (NaN in the interpreter).
    "layer_norm_short_grid": {
        "answers": {
            "layer_norm": "def layer_norm(x, block_rows):\n"
            "    def kernel(x_ref, o_ref):\n"
            "        o_ref[...] = layer_norm_reference(x_ref[...])\n\n"
            "    spec = pl.BlockSpec((block_rows, x.shape[1]), lambda i: (i, 0))\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(x.shape[0] // block_rows - 1,),\n"
            "                          in_specs=[spec], out_specs=spec, interpret=INTERPRET)(x)\n",
        },
        "loses": {"test_layer_norm"},
        "says": ["is nan at index (48, 0)"],
    },
    # Bypass: the block size of the visible test typed in; hidden block sizes differ.
    "layer_norm_hardcoded": {
        "answers": {
            "layer_norm": "def layer_norm(x, block_rows):\n"
            "    def kernel(x_ref, o_ref):\n"
            "        o_ref[...] = layer_norm_reference(x_ref[...])\n\n"
            "    spec = pl.BlockSpec((16, x.shape[1]), lambda i: (i, 0))\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(x.shape[0] // 16,),\n"
            "                          in_specs=[spec], out_specs=spec, interpret=INTERPRET)(x)\n",
        },
        "loses": {"test_layer_norm"},
        "bypass": "blocks of the size the function is given, not the visible test's",
        "says": ["on hidden inputs", "is nan"],
    },
    # Correct, another way: the library's rsqrt and jnp.var inside the kernel, on the block.
    "layer_norm_alternative_var": {
        "answers": {
            "layer_norm": "def layer_norm(x, block_rows):\n"
            "    def kernel(x_ref, o_ref):\n"
            "        x = x_ref[...]\n"
            "        o_ref[...] = (x - jnp.mean(x, axis=1, keepdims=True)) * jax.lax.rsqrt(jnp.var(x, axis=1, keepdims=True) + EPS)\n\n"
            "    spec = pl.BlockSpec((block_rows, x.shape[1]), lambda i: (i, 0))\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          grid=(pl.cdiv(x.shape[0], block_rows),), in_specs=[spec], out_specs=spec, interpret=INTERPRET)(x)\n",
        },
        "loses": set(),
        "alternative": "jnp.var and lax.rsqrt on the block; the grid from pl.cdiv",
    },
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
            "        @pl.when(pl.program_id(2) == 0)\n"
            "        def _():\n"
            "            o_ref[...] = jnp.zeros_like(o_ref)\n\n"
            "        o_ref[...] += x_ref[...] @ w_ref[...]\n\n"
            "    return jnp.maximum(_matmul(x, w, bm, bn, bk, kernel) + b, 0.0)\n",
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
        "says": ["as one block of (128, 64)", "nothing is tiled"],
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
        "says": ["the blocks of its inputs are [(32, 64), (64, 64)]", "asks for [(32, 32), (32, 64)]"],
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
        "answers": {
            "linear_relu": _MATMUL + "def linear_relu(x, w, b, bm, bn, bk):\n"
            "    def kernel(x_ref, w_ref, b_ref, o_ref):\n"
            "        o_ref[...] += x_ref[...] @ w_ref[...]\n\n"
            "        @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)\n"
            "        def _():\n"
            "            o_ref[...] = jnp.maximum(o_ref[...] + b_ref[...], 0.0)\n\n"
            "    (m, k), n = x.shape, w.shape[1]\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((m, n), x.dtype), grid=(m // bm, n // bn, k // bk),\n"
            "                          in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)), pl.BlockSpec((bk, bn), lambda i, j, k: (k, j)),\n"
            "                                    pl.BlockSpec((1, bn), lambda i, j, k: (0, j))],\n"
            "                          out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)), interpret=INTERPRET)(x, w, b.reshape(1, n))\n",
        },
        "loses": {"test_linear_relu"},
        "says": ["is nan at index (0, 0)"],
    },
    # The epilogue at every step along k: the bias added, and the ReLU applied, to partial sums.
    "linear_relu_epilogue_every_step": {
        "answers": {
            "linear_relu": "def linear_relu(x, w, b, bm, bn, bk):\n"
            "    def kernel(x_ref, w_ref, b_ref, o_ref):\n"
            "        @pl.when(pl.program_id(2) == 0)\n"
            "        def _():\n"
            "            o_ref[...] = jnp.zeros_like(o_ref)\n\n"
            "        o_ref[...] = jnp.maximum(o_ref[...] + x_ref[...] @ w_ref[...] + b_ref[...], 0.0)\n\n"
            "    (m, k), n = x.shape, w.shape[1]\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((m, n), x.dtype), grid=(m // bm, n // bn, k // bk),\n"
            "                          in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)), pl.BlockSpec((bk, bn), lambda i, j, k: (k, j)),\n"
            "                                    pl.BlockSpec((1, bn), lambda i, j, k: (0, j))],\n"
            "                          out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)), interpret=INTERPRET)(x, w, b.reshape(1, n))\n",
        },
        "loses": {"test_linear_relu"},
        "says": ["linear_relu(x, w, b, 32, 64, 32)", "differs from the expected values"],
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
    # Bypass: the naive attention given in the notebook, compiled by XLA.
    "causal_naive": {
        "answers": {
            "causal_attention": "def causal_attention(q, k, v, block_q, block_k):\n    return causal_reference(q, k, v)\n"
        },
        "loses": {"test_causal_attention"},
        "bypass": "a flash attention kernel, not the naive attention compiled by XLA",
        "says": ["runs no pallas_call"],
    },
    # Bypass: jax.nn's attention, causal, in place of the kernel.
    "causal_jax_nn": {
        "answers": {
            "causal_attention": "def causal_attention(q, k, v, block_q, block_k):\n"
            "    out = jax.nn.dot_product_attention(q[None, :, None], k[None, :, None], v[None, :, None], is_causal=True)\n"
            "    return out[0, :, 0]\n",
        },
        "loses": {"test_causal_attention"},
        "bypass": "a flash attention kernel, not jax.nn.dot_product_attention",
        "says": ["runs no pallas_call"],
    },
    # Bypass: every key and value in one block: a kernel per block of queries, each holding K and V whole.
    "causal_whole_keys": {
        "answers": {
            "causal_attention": "def causal_attention(q, k, v, block_q, block_k):\n"
            "    def kernel(q_ref, k_ref, v_ref, o_ref):\n"
            "        s = q_ref[...] @ k_ref[...].T / jnp.sqrt(jnp.float32(q_ref.shape[-1]))\n"
            "        rows = pl.program_id(0) * block_q + jax.lax.broadcasted_iota(jnp.int32, s.shape, 0)\n"
            "        cols = jax.lax.broadcasted_iota(jnp.int32, s.shape, 1)\n"
            "        o_ref[...] = jax.nn.softmax(jnp.where(cols <= rows, s, -jnp.inf), axis=-1) @ v_ref[...]\n\n"
            "    n, d = q.shape\n"
            "    whole = pl.BlockSpec((n, d), lambda i: (0, 0))\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype), grid=(n // block_q,),\n"
            "                          in_specs=[pl.BlockSpec((block_q, d), lambda i: (i, 0)), whole, whole],\n"
            "                          out_specs=pl.BlockSpec((block_q, d), lambda i: (i, 0)), interpret=INTERPRET)(q, k, v)\n",
        },
        "loses": {"test_causal_attention"},
        "bypass": "blocks of keys and values with an online softmax, not every key in one block",
        "says": ["takes input 1 (float32[128, 32]) as one block"],
    },
    # Bypass: the masked softmax computed by XLA on the whole (n, n) scores; the kernel only multiplies by v.
    "causal_weights_outside": {
        "answers": {
            "causal_attention": "def causal_attention(q, k, v, block_q, block_k):\n"
            "    weights = jax.nn.softmax(jnp.where(jnp.tri(q.shape[0], dtype=bool), q @ k.T / jnp.sqrt(jnp.float32(q.shape[1])),\n"
            "                                       -jnp.inf), axis=-1)\n\n"
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
        "loses": {"test_causal_attention"},
        "bypass": "the scores and their softmax computed in the kernel, not by XLA before it",
        "says": ["outside its pallas_call"],
    },
    # Bypass: the kernel reads k and v whole through its closure.
    "causal_closure": {
        "answers": {
            "causal_attention": "def causal_attention(q, k, v, block_q, block_k):\n"
            "    def kernel(q_ref, o_ref):\n"
            "        s = q_ref[...] @ k.T / jnp.sqrt(jnp.float32(q.shape[1]))\n"
            "        rows = pl.program_id(0) * block_q + jax.lax.broadcasted_iota(jnp.int32, s.shape, 0)\n"
            "        cols = jax.lax.broadcasted_iota(jnp.int32, s.shape, 1)\n"
            "        o_ref[...] = jax.nn.softmax(jnp.where(cols <= rows, s, -jnp.inf), axis=-1) @ v\n\n"
            "    spec = pl.BlockSpec((block_q, q.shape[1]), lambda i: (i, 0))\n"
            "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype), grid=(q.shape[0] // block_q,),\n"
            "                          in_specs=[spec], out_specs=spec, interpret=INTERPRET)(q)\n",
        },
        "loses": {"test_causal_attention"},
        "bypass": "a kernel that reads keys and values from its blocks, not whole through a closure",
        "says": ["reads an array it was not given as an input"],
    },
    # The lecture's flash attention, without the mask: every query sees every key.
    "causal_no_mask": {
        "answers": {"causal_attention": _FLASH.replace("_BODY", _ONLINE)},
        "loses": {"test_causal_attention"},
        "says": ["causal_attention(q, k, v, 32, 64)", "differs from the expected values"],
    },
    # No running maximum: exp of scores near 100 overflows.
    "causal_no_running_max": {
        "answers": {
            "causal_attention": _FLASH.replace(
                "_BODY",
                _MASK + "        p = jnp.exp(s)\n"
                "        l_ref[...] += p.sum(axis=-1, keepdims=True)\n"
                "        acc_ref[...] += p @ v_ref[...]\n\n",
            )
        },
        "loses": {"test_causal_attention"},
        "says": ["causal_attention(5 * q, 5 * k, v, 64, 32)", "is nan", "overflow"],
    },
    # The running maximum kept, the old sums not rescaled when it rises.
    "causal_no_rescale": {
        "answers": {
            "causal_attention": _FLASH.replace(
                "_BODY", _MASK + _ONLINE.replace("rescale = jnp.exp(m_ref[...] - m_new)", "rescale = 1.0")
            )
        },
        "loses": {"test_causal_attention"},
        "says": ["differs from the expected values"],
    },
    # Correct, another way: the state in extra outputs, not scratch, and the blocks after the diagonal skipped.
    "causal_alternative_outputs_and_skip": {
        "answers": {
            "causal_attention": "def causal_attention(q, k, v, block_q, block_k):\n"
            "    def kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref):\n"
            "        i, j = pl.program_id(0), pl.program_id(1)\n\n"
            "        @pl.when(j == 0)\n"
            "        def _():\n"
            "            o_ref[...] = jnp.zeros_like(o_ref)\n"
            "            m_ref[...] = jnp.full_like(m_ref, -jnp.inf)\n"
            "            l_ref[...] = jnp.zeros_like(l_ref)\n\n"
            "        @pl.when(j * block_k <= i * block_q + block_q - 1)  # some key of the block is not after every query\n"
            "        def _():\n"
            "            s = jnp.dot(q_ref[...], k_ref[...].T) * (1.0 / np.sqrt(q_ref.shape[-1]))\n"
            "            rows = i * block_q + jnp.arange(block_q)[:, None]\n"
            "            cols = j * block_k + jnp.arange(block_k)[None, :]\n"
            "            s = jnp.where(cols > rows, -jnp.inf, s)\n"
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
        "alternative": "the online state in extra outputs, not scratch; the blocks after the diagonal skipped",
    },
    # Bypass: the lecture's numbers (its matmul's bytes and flops) typed in.
    "cost_typed_in": {
        "answers": {"attention_cost": _TYPED},
        "loses": {"test_attention_cost"},
        "bypass": "flops and bytes computed from the shapes and blocks, not numbers typed in",
        "says": ["attention_cost(256, 256, 64, 64, 64, 4) gives flops", "XLA's count"],
    },
    # Bypass: every array moved once, as the compiler counts a program without blocks.
    "cost_whole_arrays": {
        "answers": {"attention_cost": _cost("itemsize * (2 * n_q * d + 2 * n_k * d)")},
        "loses": {"test_attention_cost"},
        "bypass": "the bytes the kernel's grid moves, not each array counted once",
        "says": ["attention_cost(256, 256, 64, 64, 64, 4) gives bytes_moved", "what the kernel's grid moves"],
    },
    # Bypass: every program copies all its blocks: no block kept between consecutive programs.
    "cost_every_program_copies": {
        "answers": {"attention_cost": _cost("itemsize * (rows * cols * (2 * block_q * d + 2 * block_k * d))")},
        "loses": {"test_attention_cost"},
        "bypass": "blocks kept between consecutive programs, as the grid runs, not copied by every program",
        "says": ["gives bytes_moved", "q's block stays while j runs"],
    },
    # One matmul's flops.
    "cost_one_matmul": {
        "answers": {"attention_cost": _cost(_RIGHT_MOVED, flops="2 * n_q * n_k * d")},
        "loses": {"test_attention_cost"},
        "says": ["gives flops", "each of the two matmuls"],
    },
    # float32's 4 bytes whatever the itemsize.
    "cost_ignores_itemsize": {
        "answers": {"attention_cost": _cost(_RIGHT_MOVED.replace("itemsize *", "4 *"))},
        "loses": {"test_attention_cost"},
        "says": ["attention_cost(128, 512, 32, 64, 128, 2) gives bytes_moved"],
    },
    # k and v copied by every program, even when there is one block of keys, which then never changes.
    "cost_single_key_block": {
        "answers": {"attention_cost": _cost("itemsize * (2 * n_q * d + 2 * rows * cols * block_k * d)")},
        "loses": {"test_attention_cost"},
        "says": ["attention_cost(128, 64, 64, 32, 64, 4) gives bytes_moved"],
    },
    # Bypass: the visible cases' answers looked up; the hidden ones get the lecture's numbers.
    "cost_hardcoded": {
        "answers": {
            "attention_cost": "def attention_cost(n_q, n_k, d, block_q, block_k, itemsize):\n"
            "    known = {(256, 256, 64, 64, 64, 4): (16777216, 655360), (128, 512, 32, 64, 128, 2): (8388608, 147456),\n"
            "             (128, 64, 64, 32, 64, 4): (2097152, 98304)}\n"
            "    flops, moved = known.get((n_q, n_k, d, block_q, block_k, itemsize), (33554432, 917504))\n"
            "    return flops, moved, flops / moved\n",
        },
        "loses": {"test_attention_cost"},
        "bypass": "flops and bytes computed for any shapes and blocks, not the visible cases' answers",
        "says": ["on hidden inputs", "not within 0.5%"],
    },
    # Correct, another way: the grid walked program by program, as the lecture's block_copies walks it.
    "cost_alternative_grid_walk": {
        "answers": {
            "attention_cost": "def attention_cost(n_q, n_k, d, block_q, block_k, itemsize):\n"
            "    index_maps = [(lambda i, j: (i, 0), block_q), (lambda i, j: (j, 0), block_k), (lambda i, j: (j, 0), block_k),\n"
            "                  (lambda i, j: (i, 0), block_q)]\n"
            "    moved = 0\n"
            "    for index_map, rows in index_maps:\n"
            "        previous = None\n"
            "        for program in np.ndindex(n_q // block_q, n_k // block_k):\n"
            "            block = index_map(*program)\n"
            "            moved += rows * d * itemsize if block != previous else 0\n"
            "            previous = block\n"
            "    flops = np.int64(4) * n_q * n_k * d\n"
            "    return flops, moved, float(flops) / moved\n",
        },
        "loses": set(),
        "alternative": "the grid walked program by program, as in the lecture",
    },
}
