"""Wrong answers to set 05_vmap (see tests/variants/__init__.py)."""

VARIANTS = {
    # Bypass: a formula for the cosine of whole matrices, which ignores f: the tests pass another f too.
    "all_pairs_cosine_formula": {
        "answers": {
            "pairwise": "def all_pairs(f, X, Y):\n"
            "    Xn = X / jnp.linalg.norm(X, axis=1, keepdims=True)\n"
            "    Yn = Y / jnp.linalg.norm(Y, axis=1, keepdims=True)\n"
            "    return Xn @ Yn.T\n",
        },
        "loses": {"test_pairwise"},
        "says": ["with f(u, v) = sum(|u - v|)", "apply the f you are given"],
        "bypass": "vmap applies any per-pair function to all pairs",
    },
    # Correct, one vmap inside a loop over the rows of X: the program grows with n, and is too big to time.
    "all_pairs_row_loop": {
        "answers": {
            "pairwise": "def all_pairs(f, X, Y):\n    return jnp.stack([jax.vmap(lambda y: f(x, y))(Y) for x in X])\n",
        },
        "loses": {"test_pairwise", "test_pairwise_speed"},
        "says": {
            "test_pairwise": ["grows with the problem size", "nest two jax.vmap calls"],
            "test_pairwise_speed": ["a Python loop inside jax.jit is unrolled"],
        },
    },
    # The two vmaps' in_axes swapped: the outer one maps Y, so the result is (m, n), the transpose.
    "all_pairs_in_axes_swapped": {
        "answers": {
            "pairwise": "def all_pairs(f, X, Y):\n"
            "    return jax.vmap(jax.vmap(f, in_axes=(0, None)), in_axes=(None, 0))(X, Y)\n",
        },
        "loses": {"test_pairwise", "test_pairwise_speed"},
        "says": ["transpose", "in_axes"],
    },
    # Correct but slow: the row loop itself.
    "pairwise_row_loop": {
        "answers": {
            "pairwise_cosine": "def pairwise_cosine(X, Y):\n"
            "    return jnp.stack([(Y @ x) / (jnp.linalg.norm(Y, axis=1) * jnp.linalg.norm(x)) for x in X])\n",
        },
        "loses": {"test_pairwise_speed"},
        "says": ["as fast as the row-by-row loop", "@jax.jit"],
    },
    # Correct, but a new jitted function, so a compilation, on every call.
    "pairwise_jit_every_call": {
        "answers": {
            "pairwise_cosine": "def pairwise_cosine(X, Y):\n"
            "    return jax.jit(lambda X, Y: all_pairs(cosine, X, Y))(X, Y)\n",
        },
        "loses": {"test_pairwise_speed"},
        "says": ["a jax.jit created inside the function compiles on every call"],
    },
    # Bypass: jit around the row loop, which unrolls it into one program of a copy per row.
    "pairwise_jit_of_loop": {
        "answers": {"pairwise_cosine": "pairwise_cosine = jax.jit(pairwise_cosine_loop)\n"},
        "loses": {"test_pairwise_speed"},
        "says": ["a Python loop inside jax.jit is unrolled"],
        "bypass": "one compiled program that does not grow with the batch",
    },
    # Passes the visible test by returning its expected output: the hidden tests catch it.
    "scores_hardcoded": {
        "answers": {
            "scores": "def batch_scores(W, b, X):\n"
            "    return jnp.array([0.0, np.tanh(-2 * np.tanh(1.0)), 0.0], jnp.float32)\n"
        },
        "loses": {"test_scores", "test_scores_structure"},
        "says": {"test_scores": ["on a hidden input"], "test_scores_structure": ["on the inputs of this check"]},
    },
    # NumPy's habit: fill a preallocated array row by row. JAX arrays are immutable.
    "scores_in_place_update": {
        "answers": {
            "scores": "def batch_scores(W, b, X):\n"
            "    out = jnp.zeros(X.shape[0])\n"
            "    for i in range(X.shape[0]):\n"
            "        out[i] = score(W, b, X[i])\n"
            "    return out\n",
        },
        "loses": {"test_scores", "test_scores_structure"},
        "says": ["immutable", "x.at[i].set"],
    },
    # vmap's default in_axes=0 maps W and b too, whose first axes are not the batch.
    "scores_default_in_axes": {
        "answers": {"scores": "def batch_scores(W, b, X):\n    return jax.vmap(score)(W, b, X)\n"},
        "loses": {"test_scores", "test_scores_structure"},
        "says": ["inconsistent sizes", "None for an argument shared by all"],
    },
    # Bypass: batching by hand with one library call: the N-d convolution mixes the examples.
    "scores_convolve_whole_batch": {
        "answers": {
            "scores": "def batch_scores(W, b, X):\n"
            "    kernels = jnp.tanh(X @ W.T + b)\n"
            "    return jnp.sum(jnp.tanh(jax.scipy.signal.convolve(X, kernels, mode='valid')), axis=1)\n",
        },
        "loses": {"test_scores", "test_scores_structure"},
        "says": ["has shape (1,)", "which axis you reduce over"],
        "bypass": "vmap with shared arguments (in_axes None)",
    },
    # Bypass: a Python loop over the batch, unrolled into the jaxpr.
    "scores_python_loop": {
        "answers": {"scores": "def batch_scores(W, b, X):\n    return jnp.stack([score(W, b, x) for x in X])\n"},
        "loses": {"test_scores_structure"},
        "says": ["grows with the problem size", "jax.vmap(score, in_axes=(None, None, 0))"],
        "bypass": "vectorised by vmap, not a loop over the batch",
    },
    # Correct, vmapped in chunks of 4, but the loop over chunks still grows with the batch.
    "scores_chunked_loop": {
        "answers": {
            "scores": "def batch_scores(W, b, X):\n"
            "    chunks = [jax.vmap(score, in_axes=(None, None, 0))(W, b, X[i:i + 4]) for i in range(0, X.shape[0], 4)]\n"
            "    return jnp.concatenate(chunks)\n",
        },
        "loses": {"test_scores_structure"},
        "says": ["grows with the problem size", "jax.vmap(score, in_axes=(None, None, 0))"],
    },
    # Bypass: lax.map keeps the program small but still scores one example at a time (a scan).
    "scores_lax_map": {
        "answers": {"scores": "def batch_scores(W, b, X):\n    return jax.lax.map(lambda x: score(W, b, x), X)\n"},
        "loses": {"test_scores_structure"},
        "says": ["uses scan", "jax.vmap instead of looping"],
        "bypass": "vectorised by vmap, not a loop over the batch",
    },
    # The batch axis of the result is left first: shape (B, m) instead of (m, B).
    "columns_default_out_axes": {
        "answers": {
            "columns": "def filter_columns(W, Xcols, Hs):\n"
            "    return jax.vmap(filter_one, in_axes=(None, 1, 0))(W, Xcols, Hs)\n",
        },
        "loses": {"test_columns"},
        "says": ["transpose", "out_axes"],
    },
    # in_axes in the wrong order (rows of Xcols, columns of Hs): JAX's "inconsistent sizes" error.
    "columns_in_axes_swapped": {
        "answers": {
            "columns": "def filter_columns(W, Xcols, Hs):\n"
            "    return jax.vmap(filter_one, in_axes=(None, 0, 1), out_axes=1)(W, Xcols, Hs)\n",
        },
        "loses": {"test_columns"},
        "says": ["inconsistent sizes", "in_axes"],
    },
    # Bypass: a Python loop over the columns, stacked as columns: right values, no vmap.
    "columns_python_loop": {
        "answers": {
            "columns": "def filter_columns(W, Xcols, Hs):\n"
            "    return jnp.stack([filter_one(W, Xcols[:, k], Hs[k]) for k in range(Xcols.shape[1])], axis=1)\n",
        },
        "loses": {"test_columns"},
        "says": ["grows with the problem size", "in_axes=(None, 1, 0) and out_axes=1"],
        "bypass": "vmap with in_axes and out_axes",
    },
    # Correct, written another way: one vmap over the n * m pairs, repeated and tiled, and transposes
    # around a vmap over rows instead of in_axes=1 and out_axes=1.
    "alternatives_tiled_pairs_transposed_columns": {
        "answers": {
            "pairwise": "def all_pairs(f, X, Y):\n"
            "    n, m = X.shape[0], Y.shape[0]\n"
            "    return jax.vmap(f)(jnp.repeat(X, m, axis=0), jnp.tile(Y, (n, 1))).reshape(n, m)\n",
            "columns": "def filter_columns(W, Xcols, Hs):\n"
            "    return jax.vmap(filter_one, in_axes=(None, 0, 0))(W, Xcols.T, Hs).T\n",
        },
        "loses": set(),
        "alternative": "one vmap over the n * m pairs of repeated and tiled rows; transposes instead of in_axes=1 and out_axes=1",
    },
    # Double precision switched on for the whole notebook (in the first answer cell), with the reference answers:
    # every answer returns its problem's values, in float64 where x64 makes them so, and keeps its points.
    "x64_switched_on": {
        "answers": {
            "pairwise": (
                "jax.config.update('jax_enable_x64', True)\n"
                "\n"
                "\n"
                "def all_pairs(f, X, Y):\n"
                "    return jax.vmap(jax.vmap(f, in_axes=(None, 0)), in_axes=(0, None))(X, Y)\n"
            ),
        },
        "setting": "jax_enable_x64",
        "loses": set(),
        "alternative": "the reference answers with jax_enable_x64 switched on for the whole notebook",
    },
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # One vmap over both: it pairs X[i] with Y[i], and X and Y have different numbers of rows.
    "all_pairs_one_vmap": {
        "answers": {"pairwise": "def all_pairs(f, X, Y):\n    return jax.vmap(f)(X, Y)\n"},
        "loses": {"test_pairwise", "test_pairwise_speed"},
        "says": {
            "test_pairwise": ["inconsistent sizes", "X[i] with Y[i]", "in_axes=(None, 0)", "Reread:"],
            "test_pairwise_speed": ["inconsistent sizes", "X[i] with Y[i]", "Reread:"],
        },
    },
    # all_pairs jitted as it is: it still takes f first, and the test calls pairwise_cosine(X, Y).
    "pairwise_jit_all_pairs": {
        "answers": {"pairwise_cosine": "pairwise_cosine = jax.jit(all_pairs)\n"},
        "loses": {"test_pairwise_speed"},
        "says": ["all_pairs(cosine, X, Y)", "Reread:"],
    },
    # in_axes with an entry for two of score's three arguments.
    "scores_in_axes_too_short": {
        "answers": {
            "scores": "def batch_scores(W, b, X):\n    return jax.vmap(score, in_axes=(None, 0))(W, b, X)\n",
        },
        "loses": {"test_scores", "test_scores_structure"},
        "says": ["in_axes=(None, None, 0)", "Reread:"],
    },
    # The columns of Xcols mapped as rows (in_axes 0 for Xcols): lengths d and B meet.
    "columns_xcols_rows": {
        "answers": {
            "columns": "def filter_columns(W, Xcols, Hs):\n"
            "    return jax.vmap(filter_one, in_axes=(None, 0, 0), out_axes=1)(W, Xcols, Hs)\n",
        },
        "loses": {"test_columns"},
        "says": ["inconsistent sizes", "in_axes=(None, 1, 0)", "Reread:"],
    },
}
