"""Wrong answers to set 01_arrays (see tests/variants/__init__.py)."""

VARIANTS = {
    "standardize_sample_std": {
        "answers": {
            "standardize": "def standardize(x):\n"
            "    x = jnp.asarray(x, dtype=jnp.float32)\n"
            "    return (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)\n",
        },
        "loses": {"test_standardize"},
        "says": ["ddof"],
    },
    # float64 asked for, as NumPy would give: without jax_enable_x64, JAX warns and computes in float32.
    "standardize_float64_without_x64": {
        "answers": {
            "standardize": "def standardize(x):\n"
            "    x = jnp.asarray(x, dtype=jnp.float64)\n"
            "    return (x - x.mean(axis=0)) / x.std(axis=0)\n",
        },
        "loses": set(),
    },
    # float64 asked for, with jax_enable_x64 turned on for it: the results are float64, not JAX's float32. (x64 on
    # for this function only: jax.config.update would turn it on for every later cell, the packed variants' too.)
    "standardize_float64_with_x64": {
        "answers": {
            "standardize": "def standardize(x):\n"
            "    with jax.enable_x64(True):\n"
            "        x = jnp.asarray(x, dtype=jnp.float64)\n"
            "        return (x - x.mean(axis=0)) / x.std(axis=0)\n",
        },
        "loses": {"test_standardize"},
        "says": ["float64", "jax_enable_x64"],
    },
    # Double precision switched on for the whole notebook, with the reference answers: each returns the dtype its
    # problem asks for (standardize casts to float32) or the right values in float64, and keeps its points.
    "x64_switched_on": {
        "answers": {
            "standardize": "jax.config.update('jax_enable_x64', True)\n\n\n"
            "def standardize(x):\n"
            "    x = jnp.asarray(x, dtype=jnp.float32)\n"
            "    return (x - x.mean(axis=0)) / x.std(axis=0)\n",
        },
        "setting": "jax_enable_x64",
        "loses": set(),
        "alternative": "the reference answers with jax_enable_x64 switched on for the whole notebook",
    },
    # The same, but standardize converts with Python's `float`, which is float32 by default and float64 with x64
    # on, where the problem asks for float32. That problem's point is the dtype, so it alone is lost, naming x64.
    "x64_switched_on_standardize_python_float": {
        "answers": {
            "standardize": "jax.config.update('jax_enable_x64', True)\n\n\n"
            "def standardize(x):\n"
            "    x = jnp.asarray(x, dtype=float)\n"
            "    return (x - x.mean(axis=0)) / x.std(axis=0)\n",
        },
        "setting": "jax_enable_x64",
        "loses": {"test_standardize"},
        "says": ["has dtype float64, expected float32", "jax_enable_x64 is on", "jax.config.update"],
    },
    # Bypass: NumPy does the work, so nothing of it runs under jit, vmap or grad.
    "standardize_numpy": {
        "answers": {
            "standardize": "def standardize(x):\n"
            "    x = np.asarray(x, dtype=np.float32)\n"
            "    return (x - x.mean(axis=0)) / x.std(axis=0)\n",
        },
        "loses": {"test_standardize"},
        "says": ["cannot be traced by JAX", "jnp twin"],
        "bypass": "jax.numpy: traceable, so jit, vmap and grad apply",
    },
    # Passes the visible tests by returning their expected outputs: the hidden tests catch it.
    "safe_take_hardcoded": {
        "answers": {
            "safe_take": "def safe_take(x, idx, fill_value):\n"
            "    if idx.ndim == 1:\n"
            "        return jnp.array([10.0, 30.0, -1.0, -1.0])\n"
            "    return jnp.array([[20.0, 0.0], [0.0, 10.0]])\n",
        },
        "loses": {"test_safe_take"},
        "says": ["on the inputs of this check"],
    },
    # JAX clamps an index past the end to the last element (and -1 is the last element), without an error.
    "safe_take_clamped_index": {
        "answers": {"safe_take": "def safe_take(x, idx, fill_value):\n    return x[idx]\n"},
        "loses": {"test_safe_take"},
        "says": ["clamps an index past the end", "jnp.where(valid"],
    },
    # Only the indices past the end are filled: a negative index still counts from the end.
    "safe_take_negative_index_wraps": {
        "answers": {
            "safe_take": "def safe_take(x, idx, fill_value):\n"
            "    return jnp.where(idx < x.shape[0], x[idx], fill_value).astype(x.dtype)\n"
        },
        "loses": {"test_safe_take"},
        "says": ["a negative index counts from the end", "jnp.where(valid"],
    },
    # NumPy's habit: fill the out-of-bounds places in place. JAX arrays are immutable.
    "safe_take_in_place_update": {
        "answers": {
            "safe_take": "def safe_take(x, idx, fill_value):\n"
            "    out = x[jnp.clip(idx, 0, x.shape[0] - 1)]\n"
            "    out[(idx < 0) | (idx >= x.shape[0])] = fill_value\n"
            "    return out\n"
        },
        "loses": {"test_safe_take"},
        "says": ["immutable", "x.at[i].set"],
    },
    # A Python if per index: right values eagerly, but it cannot be traced.
    "safe_take_python_if": {
        "answers": {
            "safe_take": "def safe_take(x, idx, fill_value):\n"
            "    flat = [x[i] if 0 <= i < x.shape[0] else fill_value for i in idx.ravel()]\n"
            "    return jnp.array(flat, dtype=x.dtype).reshape(idx.shape)\n"
        },
        "loses": {"test_safe_take"},
        "says": ["Python if", "jnp.where"],
    },
    # A boolean mask picks the valid indices: right values eagerly, but a shape that depends on the data.
    "safe_take_boolean_mask": {
        "answers": {
            "safe_take": "def safe_take(x, idx, fill_value):\n"
            "    valid = (idx >= 0) & (idx < x.shape[0])\n"
            "    out = jnp.full(idx.shape, fill_value, dtype=x.dtype)\n"
            "    return out.at[valid].set(x[idx[valid]])\n"
        },
        "loses": {"test_safe_take"},
        "says": ["size of a result depends", "jnp.where(mask, x, fill)"],
    },
    # Bypass: the right values, computed with NumPy.
    "safe_take_numpy": {
        "answers": {
            "safe_take": "def safe_take(x, idx, fill_value):\n"
            "    x, idx = np.asarray(x), np.asarray(idx)\n"
            "    inside = (idx >= 0) & (idx < x.shape[0])\n"
            "    return np.where(inside, x[np.clip(idx, 0, x.shape[0] - 1)], fill_value).astype(x.dtype)\n",
        },
        "loses": {"test_safe_take"},
        "says": ["cannot be traced by JAX", "jnp twin"],
        "bypass": "jax.numpy: traceable, so jit, vmap and grad apply",
    },
    # Correct but slow: the row loop itself.
    "pairwise_row_loop": {
        "answers": {
            "pairwise": "def pairwise_sq_dists(x, y):\n"
            "    return jnp.stack([jnp.sum((x[i] - y) ** 2, axis=1) for i in range(x.shape[0])])\n",
        },
        "loses": {"test_pairwise", "test_pairwise_speed"},
        "says": {
            "test_pairwise": ["grows with the problem size", "Python loop"],
            "test_pairwise_speed": ["as fast as the row-by-row loop", "x[:, None, :] - y[None, :, :]"],
        },
    },
    # The operands the other way round: the distances from each y to each x, shape (m, n) instead of (n, m).
    "pairwise_transposed": {
        "answers": {
            "pairwise": "def pairwise_sq_dists(x, y):\n"
            "    return jnp.sum((y[:, None, :] - x[None, :, :]) ** 2, axis=-1)\n"
        },
        "loses": {"test_pairwise", "test_pairwise_speed"},
        "says": ["transpose", "which operand gets the new axis"],
    },
    # Correct but slow: a new jitted function, so a compilation, on every call.
    "pairwise_jit_every_call": {
        "answers": {
            "pairwise": "def pairwise_sq_dists(x, y):\n"
            "    return jax.jit(lambda a, b: jnp.sum((a[:, None] - b[None]) ** 2, axis=-1))(x, y)\n",
        },
        "loses": {"test_pairwise_speed"},
        "says": ["a jax.jit created inside the function compiles on every call"],
    },
    # Bypass: jit around the row loop, which unrolls it into one program of a copy per row.
    "pairwise_jit_of_loop": {
        "answers": {"pairwise": "pairwise_sq_dists = jax.jit(pairwise_sq_dists_loop)\n"},
        "loses": {"test_pairwise", "test_pairwise_speed"},
        "says": {
            "test_pairwise": ["grows with the problem size", "Python loop"],
            "test_pairwise_speed": ["a Python loop inside jax.jit is unrolled"],
        },
        "bypass": "broadcasting instead of a Python loop",
    },
    # Right values, but NumPy: it cannot be traced or jitted.
    "softmax_numpy": {
        "answers": {
            "softmax": "def softmax(x):\n"
            "    e = np.exp(x - np.max(x, axis=-1, keepdims=True))\n"
            "    return e / np.sum(e, axis=-1, keepdims=True)\n",
        },
        "loses": {"test_softmax", "test_softmax_stable"},
        "says": ["cannot be traced by JAX", "jnp twin"],
        "bypass": "a stable softmax that JAX can trace",
    },
    # Bypass: the library's softmax, stable and traceable, with none of it written by the student.
    "softmax_library": {
        "answers": {"softmax": "def softmax(x):\n    return jax.nn.softmax(x, axis=-1)\n"},
        "loses": {"test_softmax", "test_softmax_stable"},
        "says": ["jax.nn.softmax"],
        "bypass": "a softmax written with jnp, not the library's",
    },
    # No blocking: the clock stops once the work is dispatched, long before it is done.
    "timing_no_block": {
        "answers": {
            "timing": "import time\n\n\n"
            "def seconds_per_call(f, *args, repeats=5):\n"
            "    jax.block_until_ready(f(*args))\n"
            "    best = float('inf')\n"
            "    for _ in range(repeats):\n"
            "        t0 = time.perf_counter()\n"
            "        f(*args)\n"
            "        best = min(best, time.perf_counter() - t0)\n"
            "    return best\n",
        },
        "loses": {"test_timing"},
        "says": ["the clock stopped before the work finished", "block_until_ready"],
    },
    # No warm-up: the first call, compilation included, is timed too, and the mean keeps it.
    "timing_includes_warmup": {
        "answers": {
            "timing": "import time\n\n\n"
            "def seconds_per_call(f, *args, repeats=5):\n"
            "    total = 0.0\n"
            "    for _ in range(repeats):\n"
            "        t0 = time.perf_counter()\n"
            "        jax.block_until_ready(f(*args))\n"
            "        total += time.perf_counter() - t0\n"
            "    return total / repeats\n",
        },
        "loses": {"test_timing"},
        "says": ["your timing includes it", "warm-up"],
    },
    # A warm-up, then one timed call: a disturbed run is the whole answer.
    "timing_single_call": {
        "answers": {
            "timing": "import time\n\n\n"
            "def seconds_per_call(f, *args, repeats=5):\n"
            "    jax.block_until_ready(f(*args))\n"
            "    t0 = time.perf_counter()\n"
            "    jax.block_until_ready(f(*args))\n"
            "    return time.perf_counter() - t0\n",
        },
        "loses": {"test_timing"},
        "says": ["disturbed", "keep the minimum"],
    },
    # Bypass: the number the visible test expects, measured by nothing; the hidden wait is 3 times shorter.
    "timing_constant": {
        "answers": {"timing": "def seconds_per_call(f, *args, repeats=5):\n    return 0.04\n"},
        "loses": {"test_timing"},
        "says": ["without calling the function it was given"],
        "bypass": "a timer that warms up, blocks and repeats",
    },
    # Correct, written another way: timeit after a warm-up, with the median of the repeats.
    "alternative_timing_timeit_median": {
        "answers": {
            "timing": "import statistics\nimport timeit\n\n\n"
            "def seconds_per_call(f, *args, repeats=5):\n"
            "    jax.block_until_ready(f(*args))\n"
            "    runs = timeit.repeat(lambda: jax.block_until_ready(f(*args)), number=1, repeat=repeats)\n"
            "    return statistics.median(runs)\n",
        },
        "loses": set(),
        "alternative": "timeit.repeat after a warm-up, the median of the repeats",
    },
    # Correct, written another way: both keep full marks.
    "alternatives_expansion_logsumexp": {
        "answers": {
            "pairwise": "def pairwise_sq_dists(x, y):\n"
            "    return jnp.sum(x**2, axis=1)[:, None] + jnp.sum(y**2, axis=1)[None, :] - 2 * x @ y.T\n",
            "softmax": "from jax.scipy.special import logsumexp\n\n\n"
            "def softmax(x):\n"
            "    return jnp.exp(x - logsumexp(x, axis=-1, keepdims=True))\n",
        },
        "loses": set(),
        "alternative": "distances as |x|^2 + |y|^2 - 2 x.y (one matmul); a softmax through logsumexp, off by "
        "the rounding that inputs of 1000 carry",
    },
    # Right values for moderate inputs, nan for large ones.
    "softmax_unstable": {
        "answers": {
            "softmax": "def softmax(x):\n    e = jnp.exp(x)\n    return e / jnp.sum(e, axis=-1, keepdims=True)\n"
        },
        "loses": {"test_softmax_stable"},
        "says": ["nan", "overflow (exp of large numbers)"],
    },
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # The function's name spelt the British way in its answer cell: the test's NameError.
    "standardize_misspelt": {
        "answers": {
            "standardize": "def standardise(x):\n"
            "    x = jnp.asarray(x, dtype=jnp.float32)\n"
            "    return (x - x.mean(axis=0)) / x.std(axis=0)\n",
        },
        "loses": {"test_standardize"},
        "says": ["standardize", "spelling", "Reread:"],
    },
    # A chained comparison, 0 <= idx < len(x), asks Python for one truth value of a whole array of indices.
    "safe_take_chained_comparison": {
        "answers": {
            "safe_take": "def safe_take(x, idx, fill_value):\n"
            "    inside = 0 <= idx < x.shape[0]\n"
            "    return jnp.where(inside, x[jnp.clip(idx, 0, x.shape[0] - 1)], fill_value).astype(x.dtype)\n",
        },
        "loses": {"test_safe_take"},
        "says": ["(idx >= 0) & (idx < x.shape[0])", "Reread:"],
    },
    # The expansion |x|^2 + |y|^2 - 2 x.y with the norms added as they are: shapes (n,) and (m,) do not broadcast.
    "pairwise_norms_not_broadcast": {
        "answers": {
            "pairwise": "def pairwise_sq_dists(x, y):\n"
            "    return jnp.sum(x**2, axis=1) + jnp.sum(y**2, axis=1) - 2 * x @ y.T\n",
        },
        "loses": {"test_pairwise", "test_pairwise_speed"},
        "says": {"test_pairwise": ["incompatible shapes for broadcasting", "[:, None]", "Reread:"]},
    },
    # The row maxima and sums without keepdims=True: shape (rows,) does not broadcast against (rows, columns).
    "softmax_no_keepdims": {
        "answers": {
            "softmax": "def softmax(x):\n"
            "    e = jnp.exp(x - jnp.max(x, axis=-1))\n"
            "    return e / jnp.sum(e, axis=-1)\n",
        },
        "loses": {"test_softmax", "test_softmax_stable"},
        "says": ["keepdims=True", "Reread:"],
    },
}
