"""Wrong answers a student might submit, and the tests each must fail.

Each variant starts from the reference answers and replaces some answer cells
(by grade_id). `loses` names every test cell that must score 0; all other test
cells must keep full points. Together they prove that each timed or structural
problem costs its points, and only its points, for the mistakes it targets.
"""

# Set 14's `fit` answers share all but a line or two: Adam at `learning_rate` in an nnx.jit step, then
# `epochs`, the loop that fills `history`; `before` goes first (which data it trains on).
_EACH_EPOCH_A_NEW_ORDER = (
    "    for epoch in range(epochs):\n"
    "        rows = np.asarray(jax.random.permutation(jax.random.fold_in(key, epoch), len(X)))[: len(X) // 32 * 32].reshape(-1, 32)\n"
    "        history.append(float(jnp.mean(jnp.stack([step(model, optimizer, X[r], y[r]) for r in rows]))))\n"
)


def _fit(*, before: str = "", learning_rate: str = "1e-2", epochs: str = _EACH_EPOCH_A_NEW_ORDER) -> str:
    return (
        "def fit(model, X, y, *, epochs, key):\n"
        + before
        + f"    optimizer = nnx.Optimizer(model, optax.adam({learning_rate}), wrt=nnx.Param)\n\n"
        "    @nnx.jit\n"
        "    def step(model, optimizer, X, y):\n"
        "        loss, grads = nnx.value_and_grad(lambda m: optax.softmax_cross_entropy_with_integer_labels(m(X), y).mean())(model)\n"
        "        optimizer.update(model, grads)\n"
        "        return loss\n\n"
        "    history = []\n" + epochs + "    return history\n"
    )


VARIANTS = {
    "01_arrays": {
        "standardize_sample_std": {
            "answers": {
                "standardize": "def standardize(x):\n"
                "    x = jnp.asarray(x, dtype=jnp.float32)\n"
                "    return (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)\n",
            },
            "loses": {"test_standardize"},
        },
        # Bypass: NumPy does the work, so nothing of it runs under jit, vmap or grad.
        "standardize_numpy": {
            "answers": {
                "standardize": "def standardize(x):\n"
                "    x = np.asarray(x, dtype=np.float32)\n"
                "    return (x - x.mean(axis=0)) / x.std(axis=0)\n",
            },
            "loses": {"test_standardize"},
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
        },
        "safe_take_clamps": {
            "answers": {"safe_take": "def safe_take(x, idx, fill_value):\n    return x[idx]\n"},
            "loses": {"test_safe_take"},
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
            "bypass": "jax.numpy: traceable, so jit, vmap and grad apply",
        },
        # Correct but slow: the row loop itself.
        "pairwise_row_loop": {
            "answers": {
                "pairwise": "def pairwise_sq_dists(x, y):\n"
                "    return jnp.stack([jnp.sum((x[i] - y) ** 2, axis=1) for i in range(x.shape[0])])\n",
            },
            "loses": {"test_pairwise", "test_pairwise_speed"},
        },
        # Correct but slow: a new jitted function, so a compilation, on every call.
        "pairwise_jit_every_call": {
            "answers": {
                "pairwise": "def pairwise_sq_dists(x, y):\n"
                "    return jax.jit(lambda a, b: jnp.sum((a[:, None] - b[None]) ** 2, axis=-1))(x, y)\n",
            },
            "loses": {"test_pairwise_speed"},
        },
        # Bypass: jit around the row loop, which unrolls it into one program of a copy per row.
        "pairwise_jit_of_loop": {
            "answers": {"pairwise": "pairwise_sq_dists = jax.jit(pairwise_sq_dists_loop)\n"},
            "loses": {"test_pairwise", "test_pairwise_speed"},
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
            "bypass": "a stable softmax that JAX can trace",
        },
        # Bypass: the library's softmax, stable and traceable, with none of it written by the student.
        "softmax_library": {
            "answers": {"softmax": "def softmax(x):\n    return jax.nn.softmax(x, axis=-1)\n"},
            "loses": {"test_softmax", "test_softmax_stable"},
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
        },
        # Bypass: the number the visible test expects, measured by nothing; the hidden wait is 3 times shorter.
        "timing_constant": {
            "answers": {"timing": "def seconds_per_call(f, *args, repeats=5):\n    return 0.04\n"},
            "loses": {"test_timing"},
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
        },
    },
    "02_immutability": {
        # Duplicate indices overwrite instead of accumulating.
        "scatter_add_set": {
            "answers": {"scatter_add": "def scatter_add(x, idx, values):\n    return x.at[idx].set(x[idx] + values)\n"},
            "loses": {"test_scatter_add"},
        },
        # Passes the visible tests by returning their expected outputs: the hidden tests catch it.
        "scatter_add_hardcoded": {
            "answers": {
                "scatter_add": "def scatter_add(x, idx, values):\n"
                "    if len(idx) == 2:\n"
                "        return jnp.array([1.0, 0.0, 5.0, 0.0])\n"
                "    return jnp.array([0.0, 3.0, 0.0, 4.0])\n",
            },
            "loses": {"test_scatter_add"},
        },
        # Bypass: NumPy's np.add.at on a copy: right values, but no JAX program to jit, vmap or differentiate.
        "scatter_add_numpy": {
            "answers": {
                "scatter_add": "def scatter_add(x, idx, values):\n"
                "    out = np.array(x)\n"
                "    np.add.at(out, np.asarray(idx), np.asarray(values))\n"
                "    return jnp.asarray(out)\n",
            },
            "loses": {"test_scatter_add"},
            "bypass": "one .at[].add for every index, in JAX",
        },
        # Bypass: one .at[].add per index in a Python loop: right values, one copy of the update per index.
        "scatter_add_python_loop": {
            "answers": {
                "scatter_add": "def scatter_add(x, idx, values):\n"
                "    for i, v in zip(idx, values):\n"
                "        x = x.at[i].add(v)\n"
                "    return x\n",
            },
            "loses": {"test_scatter_add"},
            "bypass": "one .at[].add for every index, in JAX",
        },
        # Correct, written another way: the sums per index with segment_sum, added to x; parameters
        # updated by a recursive dict comprehension instead of jax.tree.map; bins counted by comparing
        # every entry with every bin number, so strays match none.
        "segment_sum_recursive_dict_one_hot": {
            "answers": {
                "scatter_add": "def scatter_add(x, idx, values):\n"
                "    return x + jax.ops.segment_sum(values, idx, num_segments=x.shape[0])\n",
                "sgd_update": "def sgd_update(params, grads, lr):\n"
                "    return {k: sgd_update(v, grads[k], lr) if isinstance(v, dict) else v - lr * grads[k]\n"
                "            for k, v in params.items()}\n",
                "count_in_bins": "def count_in_bins(bins, n_bins):\n"
                "    return jnp.sum(bins[:, None] == jnp.arange(n_bins)[None, :], axis=0, dtype=jnp.int32)\n",
            },
            "loses": set(),
            "alternative": "segment_sum plus x; a recursive dict comprehension; bins counted by a one-hot comparison",
        },
        # Bypass: written for the two levels of the examples, not for any depth as jax.tree.map is.
        "sgd_two_levels": {
            "answers": {
                "sgd_update": "def sgd_update(params, grads, lr):\n"
                "    new = {}\n"
                "    for k, v in params.items():\n"
                "        if isinstance(v, dict):\n"
                "            new[k] = {kk: vv - lr * grads[k][kk] for kk, vv in v.items()}\n"
                "        else:\n"
                "            new[k] = v - lr * grads[k]\n"
                "    return new\n",
            },
            "loses": {"test_sgd_update"},
            "bypass": "an update of a pytree of any depth",
        },
        # Bypass: the caller's params change under it (the right result, updated in place).
        "sgd_mutates_input": {
            "answers": {
                "sgd_update": "def sgd_update(params, grads, lr):\n"
                "    for key, value in params.items():\n"
                "        if isinstance(value, dict):\n"
                "            sgd_update(value, grads[key], lr)\n"
                "        else:\n"
                "            params[key] = value - lr * grads[key]\n"
                "    return params\n",
            },
            "loses": {"test_sgd_pure"},
            "bypass": "new parameters, the caller's left unchanged",
        },
        # Right result, but state kept in a global.
        "sgd_global_counter": {
            "answers": {
                "sgd_update": "steps_taken = 0\n\n"
                "def sgd_update(params, grads, lr):\n"
                "    global steps_taken\n"
                "    steps_taken += 1\n"
                "    return jax.tree.map(lambda p, g: p - lr * g, params, grads)\n",
            },
            "loses": {"test_sgd_pure"},
        },
        # The default mode: -1 is not a stray for JAX but the last bin, and is counted there.
        "bins_default_mode": {
            "answers": {
                "count_in_bins": "def count_in_bins(bins, n_bins):\n"
                "    return jnp.zeros(n_bins, dtype=jnp.int32).at[bins].add(1)\n",
            },
            "loses": {"test_count_in_bins"},
        },
        # mode="drop" drops 5, but -1 still wraps to the last bin.
        "bins_drop_wraps_negative": {
            "answers": {
                "count_in_bins": "def count_in_bins(bins, n_bins):\n"
                "    return jnp.zeros(n_bins, dtype=jnp.int32).at[bins].add(1, mode='drop')\n",
            },
            "loses": {"test_count_in_bins"},
        },
        # mode="clip" counts the strays in the first and last bins.
        "bins_clip": {
            "answers": {
                "count_in_bins": "def count_in_bins(bins, n_bins):\n"
                "    return jnp.zeros(n_bins, dtype=jnp.int32).at[bins].add(1, mode='clip')\n",
            },
            "loses": {"test_count_in_bins"},
        },
        # .set with duplicate indices: a bin that occurs twice counts once.
        "bins_set": {
            "answers": {
                "count_in_bins": "def count_in_bins(bins, n_bins):\n"
                "    return jnp.zeros(n_bins, dtype=jnp.int32).at[bins].set(1, mode='drop', wrap_negative_indices=False)\n",
            },
            "loses": {"test_count_in_bins"},
        },
        # Passes the visible tests by returning their expected outputs: the hidden tests catch it.
        "bins_hardcoded": {
            "answers": {
                "count_in_bins": "def count_in_bins(bins, n_bins):\n"
                "    if bins.shape[0] == 4:\n"
                "        return jnp.array([1, 1, 2], dtype=jnp.int32)\n"
                "    return jnp.array([1, 0, 2, 0][:n_bins], dtype=jnp.int32)\n",
            },
            "loses": {"test_count_in_bins"},
        },
        # Bypass: NumPy's bincount on the bins in range: right values, but no JAX program.
        "bins_numpy": {
            "answers": {
                "count_in_bins": "def count_in_bins(bins, n_bins):\n"
                "    b = np.asarray(bins)\n"
                "    return jnp.asarray(np.bincount(b[(b >= 0) & (b < n_bins)], minlength=n_bins), dtype=jnp.int32)\n",
            },
            "loses": {"test_count_in_bins"},
            "bypass": "one .at[].add over all bins, strays dropped by its options",
        },
        # Bypass: a Python loop that tests each bin number: right values eagerly, but not traceable.
        "bins_python_loop": {
            "answers": {
                "count_in_bins": "def count_in_bins(bins, n_bins):\n"
                "    counts = jnp.zeros(n_bins, dtype=jnp.int32)\n"
                "    for b in bins:\n"
                "        if 0 <= b < n_bins:\n"
                "            counts = counts.at[b].add(1)\n"
                "    return counts\n",
            },
            "loses": {"test_count_in_bins"},
            "bypass": "one .at[].add over all bins, strays dropped by its options",
        },
    },
    "03_tracing": {
        # Bypass: the right values from NumPy: nothing JAX can trace, so no jaxpr to read either.
        "affine_numpy": {
            "answers": {"affine": "def affine(W, x, b):\n    return np.asarray(W) @ np.asarray(x) + np.asarray(b)\n"},
            "loses": {"test_affine", "test_affine_jaxpr"},
            "bypass": "an affine map JAX can trace, read from its jaxpr",
        },
        # Passes the visible test by returning its expected output: the hidden tests catch it.
        "affine_hardcoded": {
            "answers": {"affine": "def affine(W, x, b):\n    return jnp.array([-0.5, -0.5, -0.5])\n"},
            "loses": {"test_affine", "test_affine_jaxpr"},
        },
        # Right values, but an elementwise multiply and a sum instead of one matrix product.
        "affine_multiply_and_sum": {
            "answers": {"affine": "def affine(W, x, b):\n    return jnp.sum(W * x, axis=1) + b\n"},
            "loses": {"test_affine_jaxpr"},
        },
        # Right values, but a Python loop over rows, unrolled into the jaxpr.
        "affine_row_loop": {
            "answers": {
                "affine": "def affine(W, x, b):\n    return jnp.stack([jnp.dot(W[i], x) for i in range(W.shape[0])]) + b\n",
            },
            "loses": {"test_affine_jaxpr"},
        },
        # Pure arithmetic, but still prints while traced.
        "pure_still_prints": {
            "answers": {
                "pure": "def scale_by_calls_pure(calls, x):\n"
                "    calls = calls + 1\n"
                "    print('call number', calls)\n"
                "    return calls, x * calls\n",
            },
            "loses": {"test_pure_check"},
        },
        # Right results, but still counts in a global on the side.
        "pure_still_counts_globally": {
            "answers": {
                "pure": "total_calls = 0\n\n"
                "def scale_by_calls_pure(calls, x):\n"
                "    global total_calls\n"
                "    total_calls += 1\n"
                "    calls = calls + 1\n"
                "    return calls, x * calls\n",
            },
            "loses": {"test_pure_check"},
        },
        # Bypass: the new signature around the old impure function, whose global counter counts traces.
        "pure_wraps_impure": {
            "answers": {
                "pure": "def scale_by_calls_pure(calls, x):\n    return calls + 1, scale_by_calls(x)\n",
            },
            "loses": {"test_pure", "test_pure_check"},
            "bypass": "state passed in and returned, nothing changed outside",
        },
        # Bypass: returns the input as asked, but still keeps it on self, where the tracer outlives the call.
        "leak_still_stored": {
            "answers": {
                "leak": "class FixedModel(Model):\n"
                "    def apply(self, x):\n"
                "        self.last_input = x\n"
                "        return jnp.tanh(x * self.scale), x\n",
            },
            "loses": {"test_leak"},
            "bypass": "a method that keeps no traced value",
        },
        # Correct, written another way: jnp.dot for the product; the counter named anew; an apply with
        # no side effects at all.
        "affine_dot_pure_apply": {
            "answers": {
                "affine": "def affine(W, x, b):\n    return jnp.dot(W, x) + b\n",
                "pure": "def scale_by_calls_pure(calls, x):\n    new_calls = calls + 1\n    return new_calls, new_calls * x\n",
                "leak": "class FixedModel(Model):\n"
                "    def apply(self, x):\n"
                "        return jnp.tanh(x * self.scale), x\n",
            },
            "loses": set(),
            "alternative": "jnp.dot instead of @; an apply with no side effects at all",
        },
    },
    "04_jit": {
        # Bypass: a NumPy loop: right values and fast, but nothing JAX can trace or compile.
        "logistic_numpy": {
            "answers": {
                "logistic": "def logistic_map(x, r, steps):\n"
                "    x = np.asarray(x, dtype=np.float32)\n"
                "    for _ in range(steps):\n"
                "        x = r * x * (1.0 - x)\n"
                "    return x\n",
            },
            "loses": {"test_logistic", "test_logistic_speed"},
            "bypass": "a chain of steps JAX traces and compiles once (jax.jit)",
        },
        # Correct but slow: the eager loop itself.
        "logistic_eager": {
            "answers": {
                "logistic": "def logistic_map(x, r, steps):\n"
                "    for _ in range(steps):\n"
                "        x = r * x * (1.0 - x)\n"
                "    return x\n",
            },
            "loses": {"test_logistic_speed"},
        },
        # Correct, but a new jitted function, so a compilation, on every call.
        "logistic_jit_every_call": {
            "answers": {
                "logistic": "def logistic_map(x, r, steps):\n"
                "    return jax.jit(lambda x, r: lax.fori_loop(0, steps, lambda i, x: r * x * (1.0 - x), x))(x, r)\n",
            },
            "loses": {"test_logistic_speed"},
        },
        # Correct but slow, and remembers its results: calls repeated on the same input would look
        # fast. The timing check feeds every call new values (autograder/INTEGRITY.md).
        "logistic_cached": {
            "answers": {
                "logistic": "_seen = {}\n\n"
                "def logistic_map(x, r, steps):\n"
                "    key = (np.asarray(x).tobytes(), float(r), steps)\n"
                "    if key not in _seen:\n"
                "        for _ in range(steps):\n"
                "            x = r * x * (1.0 - x)\n"
                "        _seen[key] = x\n"
                "    return _seen[key]\n",
            },
            "loses": {"test_logistic", "test_logistic_speed"},
        },
        # Correct, but every new length compiles.
        "padded_plain_jit": {
            "answers": {"padded": "masked_energy = jax.jit(lambda x: jnp.sum((x - jnp.mean(x)) ** 2))\n"},
            "loses": {"test_padded_compiles"},
        },
        # Pads to two sizes, but with eager jnp.pad, which compiles for every input shape.
        "padded_with_jnp_pad": {
            "answers": {
                "padded": "@jax.jit\n"
                "def _energy(padded, n):\n"
                "    mask = jnp.arange(padded.shape[0]) < n\n"
                "    mean = jnp.sum(jnp.where(mask, padded, 0.0)) / n\n"
                "    return jnp.sum(jnp.where(mask, (padded - mean) ** 2, 0.0))\n\n"
                "def masked_energy(x):\n"
                "    size = 16 if len(x) <= 16 else 64\n"
                "    return _energy(jnp.pad(jnp.asarray(x), (0, size - len(x))), len(x))\n",
            },
            "loses": {"test_padded_compiles"},
        },
        # Pads to two sizes and compiles twice, but does not mask: the zeros move the mean and add to the sum.
        "padded_unmasked": {
            "answers": {
                "padded": "@jax.jit\n"
                "def _energy(padded, n):\n"
                "    return jnp.sum((padded - jnp.sum(padded) / n) ** 2)\n\n"
                "def masked_energy(x):\n"
                "    size = 16 if len(x) <= 16 else 64\n"
                "    return _energy(np.pad(np.asarray(x, np.float32), (0, size - len(x))), np.int32(len(x)))\n",
            },
            "loses": {"test_padded", "test_padded_compiles"},
        },
        # Bypass: NumPy computes it, so nothing compiles at all.
        "padded_numpy": {
            "answers": {
                "padded": "def masked_energy(x):\n"
                "    x = np.asarray(x, np.float32)\n"
                "    return np.float32(np.sum((x - x.mean()) ** 2))\n",
            },
            "loses": {"test_padded", "test_padded_compiles"},
            "bypass": "padding to a few shapes, computed by JAX",
        },
        # Passes the visible tests by returning their expected outputs: the hidden tests catch it.
        "gcd_hardcoded": {
            "answers": {"gcd": "def gcd(a, b):\n    return jnp.where(b == 0, a, 6).astype(jnp.int32)\n"},
            "loses": {"test_gcd", "test_gcd_structure"},
        },
        # Correct eagerly, but a Python while on the values: it cannot be traced.
        "gcd_python_while": {
            "answers": {
                "gcd": "def gcd(a, b):\n"
                "    a, b = int(a), int(b)\n"
                "    while b != 0:\n"
                "        a, b = b, a % b\n"
                "    return jnp.int32(a)\n",
            },
            "loses": {"test_gcd", "test_gcd_structure"},
            "bypass": "lax.while_loop",
        },
        # Bypass: the library's gcd (a while_loop inside): right values, but no loop written.
        "gcd_jnp": {
            "answers": {"gcd": "gcd = jnp.gcd\n"},
            "loses": {"test_gcd", "test_gcd_structure"},
            "bypass": "Euclid's loop written with lax.while_loop",
        },
        # Correct, written another way: jit around the eager loop (unrolled into one program of 50 steps);
        # the length masked with sum(where=), as in the lecture; Euclid's state in a dict; the recurrence
        # with lax.scan.
        "jit_of_loop_sum_where_dict_state_scan": {
            "answers": {
                "logistic": "logistic_map = jax.jit(logistic_map_eager, static_argnames='steps')\n",
                "padded": "BUCKETS = (16, 64)\n\n"
                "@jax.jit\n"
                "def _energy(padded, n):\n"
                "    mask = jnp.arange(padded.shape[0]) < n\n"
                "    mean = jnp.sum(padded, where=mask) / n\n"
                "    return jnp.sum((padded - mean) ** 2, where=mask)\n\n"
                "def masked_energy(x):\n"
                "    size = next(b for b in BUCKETS if b >= len(x))\n"
                "    return _energy(np.pad(x, (0, size - len(x))), len(x))\n",
                "gcd": "def gcd(a, b):\n"
                "    state = {'a': jnp.asarray(a, jnp.int32), 'b': jnp.asarray(b, jnp.int32)}\n"
                "    state = lax.while_loop(lambda s: s['b'] > 0, lambda s: {'a': s['b'], 'b': s['a'] % s['b']}, state)\n"
                "    return state['a']\n",
                "recurrence": "@partial(jax.jit, static_argnames='n')\n"
                "def recurrence(a0, a1, c1, c2, n):\n"
                "    def step(carry, _):\n"
                "        before, last = carry\n"
                "        new = c1 * last + c2 * before\n"
                "        return (last, new), new\n"
                "    first = jnp.array([a0, a1], dtype=jnp.float32)\n"
                "    _, rest = lax.scan(step, (first[0], first[1]), length=n - 2)\n"
                "    return jnp.concatenate([first, rest])\n",
            },
            "loses": set(),
            "alternative": "jax.jit around the Python loop instead of lax.fori_loop; sum(where=mask); a dict as loop "
            "state; lax.scan for the recurrence",
        },
        # Correct for these inputs, but always runs 64 steps instead of stopping when b is 0.
        "gcd_fixed_steps": {
            "answers": {
                "gcd": "def gcd(a, b):\n"
                "    def step(i, state):\n"
                "        a, b = state\n"
                "        done = b == 0\n"
                "        return jnp.where(done, a, b), jnp.where(done, b, a % jnp.where(done, 1, b))\n"
                "    return lax.fori_loop(0, 64, step, (jnp.asarray(a, jnp.int32), jnp.asarray(b, jnp.int32)))[0]\n",
            },
            "loses": {"test_gcd_structure"},
        },
        # Correct, but an eager Python loop: unrolled when traced, and slow.
        "recurrence_eager_loop": {
            "answers": {
                "recurrence": "def recurrence(a0, a1, c1, c2, n):\n"
                "    a = jnp.zeros(n, dtype=jnp.float32).at[0].set(a0).at[1].set(a1)\n"
                "    for i in range(2, n):\n"
                "        a = a.at[i].set(c1 * a[i - 1] + c2 * a[i - 2])\n"
                "    return a\n",
            },
            "loses": {"test_recurrence_structure", "test_recurrence_speed"},
        },
        # Bypass: correct and fast, but a NumPy loop that JAX cannot trace.
        "recurrence_numpy_loop": {
            "answers": {
                "recurrence": "def recurrence(a0, a1, c1, c2, n):\n"
                "    a = np.zeros(n, dtype=np.float32)\n"
                "    a[0], a[1] = a0, a1\n"
                "    for i in range(2, n):\n"
                "        a[i] = c1 * a[i - 1] + c2 * a[i - 2]\n"
                "    return jnp.asarray(a)\n",
            },
            "loses": {"test_recurrence", "test_recurrence_structure"},
            "bypass": "a loop JAX can trace",
        },
        # Correct, constant-size program, but compiled anew on every call.
        "recurrence_jit_every_call": {
            "answers": {
                "recurrence": "def recurrence(a0, a1, c1, c2, n):\n"
                "    def run(a0, a1, c1, c2):\n"
                "        a = jnp.zeros(n, dtype=jnp.float32).at[0].set(a0).at[1].set(a1)\n"
                "        return lax.fori_loop(2, n, lambda i, a: a.at[i].set(c1 * a[i - 1] + c2 * a[i - 2]), a)\n"
                "    return jax.jit(run)(a0, a1, c1, c2)\n",
            },
            "loses": {"test_recurrence_speed"},
        },
        # A source tutorial's version: jit with n static around a Python loop. At the timed n = 1000 it
        # would compile for many minutes; the speed check refuses it from its trace, in seconds.
        "recurrence_unrolled_under_jit": {
            "answers": {
                "recurrence": "@partial(jax.jit, static_argnums=4)\n"
                "def recurrence(a0, a1, c1, c2, n):\n"
                "    a = jnp.zeros(n).at[0].set(a0).at[1].set(a1)\n"
                "    for i in range(2, n):\n"
                "        a = a.at[i].set(c1 * a[i - 1] + c2 * a[i - 2])\n"
                "    return a\n",
            },
            "loses": {"test_recurrence_structure", "test_recurrence_speed"},
            "bypass": "a loop compiled once (lax.fori_loop)",
        },
    },
    "05_vmap": {
        # Bypass: a formula for the cosine of whole matrices, which ignores f: the tests pass another f too.
        "all_pairs_cosine_formula": {
            "answers": {
                "pairwise": "def all_pairs(f, X, Y):\n"
                "    Xn = X / jnp.linalg.norm(X, axis=1, keepdims=True)\n"
                "    Yn = Y / jnp.linalg.norm(Y, axis=1, keepdims=True)\n"
                "    return Xn @ Yn.T\n",
            },
            "loses": {"test_pairwise"},
            "bypass": "vmap applies any per-pair function to all pairs",
        },
        # Correct, one vmap inside a loop over the rows of X: the program grows with n, and is too big to time.
        "all_pairs_row_loop": {
            "answers": {
                "pairwise": "def all_pairs(f, X, Y):\n"
                "    return jnp.stack([jax.vmap(lambda y: f(x, y))(Y) for x in X])\n",
            },
            "loses": {"test_pairwise", "test_pairwise_speed"},
        },
        # Correct but slow: the row loop itself.
        "pairwise_row_loop": {
            "answers": {
                "pairwise_cosine": "def pairwise_cosine(X, Y):\n"
                "    return jnp.stack([(Y @ x) / (jnp.linalg.norm(Y, axis=1) * jnp.linalg.norm(x)) for x in X])\n",
            },
            "loses": {"test_pairwise_speed"},
        },
        # Correct, but a new jitted function, so a compilation, on every call.
        "pairwise_jit_every_call": {
            "answers": {
                "pairwise_cosine": "def pairwise_cosine(X, Y):\n"
                "    return jax.jit(lambda X, Y: all_pairs(cosine, X, Y))(X, Y)\n",
            },
            "loses": {"test_pairwise_speed"},
        },
        # Bypass: jit around the row loop, which unrolls it into one program of a copy per row.
        "pairwise_jit_of_loop": {
            "answers": {"pairwise_cosine": "pairwise_cosine = jax.jit(pairwise_cosine_loop)\n"},
            "loses": {"test_pairwise_speed"},
            "bypass": "one compiled program that does not grow with the batch",
        },
        # Passes the visible test by returning its expected output: the hidden tests catch it.
        "scores_hardcoded": {
            "answers": {
                "scores": "def batch_scores(W, b, X):\n"
                "    return jnp.array([0.0, np.tanh(-2 * np.tanh(1.0)), 0.0], jnp.float32)\n"
            },
            "loses": {"test_scores", "test_scores_structure"},
        },
        # Bypass: batching by hand with one library call: the N-d convolution mixes the examples.
        "scores_convolve_whole_batch": {
            "answers": {
                "scores": "def batch_scores(W, b, X):\n"
                "    kernels = jnp.tanh(X @ W.T + b)\n"
                "    return jnp.sum(jnp.tanh(jax.scipy.signal.convolve(X, kernels, mode='valid')), axis=1)\n",
            },
            "loses": {"test_scores", "test_scores_structure"},
            "bypass": "vmap with shared arguments (in_axes None)",
        },
        # Bypass: a Python loop over the batch, unrolled into the jaxpr.
        "scores_python_loop": {
            "answers": {"scores": "def batch_scores(W, b, X):\n    return jnp.stack([score(W, b, x) for x in X])\n"},
            "loses": {"test_scores_structure"},
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
        },
        # Bypass: lax.map keeps the program small but still scores one example at a time (a scan).
        "scores_lax_map": {
            "answers": {"scores": "def batch_scores(W, b, X):\n    return jax.lax.map(lambda x: score(W, b, x), X)\n"},
            "loses": {"test_scores_structure"},
            "bypass": "vectorised by vmap, not a loop over the batch",
        },
        # The batch axis of the result is left first: shape (B, m) instead of (m, B).
        "columns_default_out_axes": {
            "answers": {
                "columns": "def filter_columns(W, Xcols, Hs):\n"
                "    return jax.vmap(filter_one, in_axes=(None, 1, 0))(W, Xcols, Hs)\n",
            },
            "loses": {"test_columns"},
        },
        # in_axes in the wrong order (rows of Xcols, columns of Hs): JAX's "inconsistent sizes" error.
        "columns_in_axes_swapped": {
            "answers": {
                "columns": "def filter_columns(W, Xcols, Hs):\n"
                "    return jax.vmap(filter_one, in_axes=(None, 0, 1), out_axes=1)(W, Xcols, Hs)\n",
            },
            "loses": {"test_columns"},
        },
        # Bypass: a Python loop over the columns, stacked as columns: right values, no vmap.
        "columns_python_loop": {
            "answers": {
                "columns": "def filter_columns(W, Xcols, Hs):\n"
                "    return jnp.stack([filter_one(W, Xcols[:, k], Hs[k]) for k in range(Xcols.shape[1])], axis=1)\n",
            },
            "loses": {"test_columns"},
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
    },
    "06_grad": {
        # Passes the visible test by returning its expected outputs: the hidden test catches it.
        "grads_hardcoded": {
            "answers": {
                "grads": "def grads_xy(f, x, y):\n"
                "    return (jnp.array([2.0, 0.52829945, -3.7452471]), jnp.array([0.0, 1.6279187, -5.455834]))\n",
            },
            "loses": {"test_grads"},
        },
        "grads_only_x": {
            "answers": {"grads": "def grads_xy(f, x, y):\n    return jax.grad(f)(x, y)\n"},
            "loses": {"test_grads"},
        },
        # Bypass: derivatives of the visible f worked out by hand (the test cell shows them): no autodiff.
        "grads_by_hand": {
            "answers": {
                "grads": "def grads_xy(f, x, y):\n"
                "    sech2 = 1 / jnp.cosh(x * y) ** 2\n"
                "    return y * sech2 + jnp.cos(x) * y**2, x * sech2 + 2 * jnp.sin(x) * y\n",
            },
            "loses": {"test_grads"},
            "bypass": "jax.grad with argnums, for any f",
        },
        # Differentiates with respect to the data instead of the parameters.
        "tree_wrt_inputs": {
            "answers": {
                "tree": "def loss_and_grads(loss, params, X, y):\n"
                "    return jax.value_and_grad(loss, argnums=1)(params, X, y)\n"
            },
            "loses": {"test_tree"},
        },
        # Bypass: central differences on every entry of the flattened parameters: no autodiff, and
        # float32 differences are only good to about 1e-4.
        "tree_finite_differences": {
            "answers": {
                "tree": "def loss_and_grads(loss, params, X, y):\n"
                "    from jax.flatten_util import ravel_pytree\n"
                "    flat, unravel = ravel_pytree(params)\n"
                "    steps = 1e-3 * jnp.eye(flat.size)\n"
                "    slopes = [(loss(unravel(flat + e), X, y) - loss(unravel(flat - e), X, y)) / 2e-3 for e in steps]\n"
                "    return loss(params, X, y), unravel(jnp.stack(slopes))\n",
            },
            "loses": {"test_tree"},
            "bypass": "jax.value_and_grad of a pytree",
        },
        "train_gradient_ascent": {
            "answers": {
                "train": "def train(loss, params, X, y, lr, steps):\n"
                "    losses = []\n"
                "    for _ in range(steps):\n"
                "        value, grads = jax.value_and_grad(loss)(params, X, y)\n"
                "        params = jax.tree.map(lambda p, g: p + lr * g, params, grads)\n"
                "        losses.append(value)\n"
                "    return params, jnp.stack(losses)\n",
            },
            "loses": {"test_train"},
        },
        # Records the loss after each step, not before it: the curve is shifted by one step.
        "train_loss_after_step": {
            "answers": {
                "train": "def train(loss, params, X, y, lr, steps):\n"
                "    losses = []\n"
                "    for _ in range(steps):\n"
                "        grads = jax.grad(loss)(params, X, y)\n"
                "        params = jax.tree.map(lambda p, g: p - lr * g, params, grads)\n"
                "        losses.append(loss(params, X, y))\n"
                "    return params, jnp.stack(losses)\n",
            },
            "loses": {"test_train"},
        },
        # Bypass: the logistic loss's gradient written by hand (X.T @ (sigmoid - y) / n): no autodiff.
        "train_hand_gradient": {
            "answers": {
                "train": "def train(loss, params, X, y, lr, steps):\n"
                "    losses = []\n"
                "    for _ in range(steps):\n"
                "        logits = X @ params['w'] + params['b']\n"
                "        losses.append(jnp.mean(jnp.logaddexp(0.0, logits) - y * logits))\n"
                "        error = jax.nn.sigmoid(logits) - y\n"
                "        params = {'w': params['w'] - lr * X.T @ error / y.shape[0], 'b': params['b'] - lr * jnp.mean(error)}\n"
                "    return params, jnp.stack(losses)\n",
            },
            "loses": {"test_train"},
            "bypass": "a training step from jax.value_and_grad, for any loss",
        },
        # Bypass: a central difference of two gradients: no Hessian, but only good to about 1e-4.
        "hvp_finite_differences": {
            "answers": {
                "hvp": "def hvp(f, x, v):\n"
                "    eps = 1e-3\n"
                "    return (jax.grad(f)(x + eps * v) - jax.grad(f)(x - eps * v)) / (2 * eps)\n",
            },
            "loses": {"test_hvp", "test_hvp_memory"},
            "bypass": "an exact HVP by composing JAX transformations",
        },
        # Bypass: right values, but the n x n Hessian first.
        "hvp_full_hessian": {
            "answers": {"hvp": "def hvp(f, x, v):\n    return jax.hessian(f)(x) @ v\n"},
            "loses": {"test_hvp_memory"},
            "bypass": "an HVP without forming the Hessian",
        },
        # Right values, but each builds the n x n Hessian first.
        "hvp_jacfwd_of_grad": {
            "answers": {"hvp": "def hvp(f, x, v):\n    return jax.jacfwd(jax.grad(f))(x) @ v\n"},
            "loses": {"test_hvp_memory"},
        },
        "hvp_basis_vectors": {
            "answers": {
                "hvp": "def hvp(f, x, v):\n"
                "    columns = jax.vmap(lambda e: jax.jvp(jax.grad(f), (x,), (e,))[1])(jnp.eye(x.shape[0]))\n"
                "    return columns @ v\n",
            },
            "loses": {"test_hvp_memory"},
        },
        # Correct, written another way: forward-mode gradients (jacfwd of a scalar function), a dict
        # comprehension for the update, a reverse-over-reverse HVP, and jnp.maximum keeping the log's input
        # positive instead of a second jnp.where.
        "alternatives_jacfwd_comprehension_reverse_hvp_clamp": {
            "answers": {
                "grads": "def grads_xy(f, x, y):\n    return jax.jacfwd(f, argnums=(0, 1))(x, y)\n",
                "train": "def train(loss, params, X, y, lr, steps):\n"
                "    step = jax.jit(jax.value_and_grad(loss))\n"
                "    losses = []\n"
                "    for _ in range(steps):\n"
                "        value, grads = step(params, X, y)\n"
                "        params = {name: params[name] - lr * grads[name] for name in params}\n"
                "        losses.append(value)\n"
                "    return params, jnp.stack(losses)\n",
                "hvp": "def hvp(f, x, v):\n    return jax.grad(lambda x: jnp.vdot(jax.grad(f)(x), v))(x)\n",
                "nan": "def xlogx(x):\n    return jnp.where(x > 0, x * jnp.log(jnp.maximum(x, 1e-30)), 0.0)\n",
            },
            "loses": set(),
            "alternative": "jax.jacfwd for the two gradients, a dict comprehension for the update, reverse-over-reverse HVP, "
            "a clamped log instead of a second jnp.where",
        },
        # Right values, NaN gradient where x <= 0.
        "nan_single_where": {
            "answers": {"nan": "def xlogx(x):\n    return jnp.where(x > 0, x * jnp.log(x), 0.0)\n"},
            "loses": {"test_nan"},
        },
        # Bypass: nan_to_num cleans the values, not the gradient: the where's other branch still sends NaN back.
        "nan_to_num_forward": {
            "answers": {"nan": "def xlogx(x):\n    return jnp.nan_to_num(jnp.where(x > 0, x * jnp.log(x), 0.0))\n"},
            "loses": {"test_nan"},
            "bypass": "a where whose unselected branch has a finite gradient",
        },
    },
    "07_prng": {
        # x and y drawn from one key are equal: the points lie on the diagonal, and the estimate is 2.83.
        "pi_reuses_key": {
            "answers": {
                "pi": "@functools.partial(jax.jit, static_argnames='n')\n"
                "def estimate_pi(key, n):\n"
                "    x = jax.random.uniform(key, (n,))\n"
                "    y = jax.random.uniform(key, (n,))\n"
                "    return 4.0 * jnp.mean(x * x + y * y <= 1.0)\n",
            },
            "loses": {"test_pi_reproducible", "test_pi_speed", "test_pi_statistics"},
        },
        "pi_normal_points": {
            "answers": {
                "pi": "@functools.partial(jax.jit, static_argnames='n')\n"
                "def estimate_pi(key, n):\n"
                "    x, y = jax.random.normal(key, (2, n))\n"
                "    return 4.0 * jnp.mean(x * x + y * y <= 1.0)\n",
            },
            "loses": {"test_pi_reproducible", "test_pi_speed", "test_pi_statistics"},
        },
        # Ignores the key: a new answer every call.
        "pi_numpy_state": {
            "answers": {
                "pi": "def estimate_pi(key, n):\n"
                "    x, y = np.random.default_rng().random((2, n))\n"
                "    return 4.0 * np.mean(x * x + y * y <= 1.0)\n",
            },
            # Fast, but the speed cell's hidden test checks the timed function is reproducible too.
            "loses": {"test_pi_reproducible", "test_pi_speed"},
        },
        # A key of its own instead of the one passed in: the same answer for every key.
        "pi_fixed_key": {
            "answers": {
                "pi": "@functools.partial(jax.jit, static_argnames='n')\n"
                "def estimate_pi(key, n):\n"
                "    x, y = jax.random.uniform(jax.random.key(42), (2, n))\n"
                "    return 4.0 * jnp.mean(x * x + y * y <= 1.0)\n",
            },
            "loses": {"test_pi_reproducible", "test_pi_speed"},
        },
        # Bypass: a NumPy generator seeded from the key's bits: reproducible, but no JAX randomness.
        "pi_numpy_seeded_from_key": {
            "answers": {
                "pi": "def estimate_pi(key, n):\n"
                "    rng = np.random.default_rng(np.asarray(jax.random.key_data(key)).tolist())\n"
                "    x, y = rng.random((2, n))\n"
                "    return 4.0 * np.mean(x * x + y * y <= 1.0)\n",
            },
            "loses": {"test_pi_reproducible"},
            "bypass": "randomness from jax.random keys",
        },
        # Correct but slow: the baseline itself.
        "pi_python_loop": {
            "answers": {"pi": "def estimate_pi(key, n):\n    return estimate_pi_loop(key, n)\n"},
            "loses": {"test_pi_reproducible", "test_pi_speed"},
        },
        # Correct but slow: a new jitted function, so a compilation, on every call.
        "pi_jit_every_call": {
            "answers": {
                "pi": "def estimate_pi(key, n):\n"
                "    draw = jax.jit(lambda k: jax.random.uniform(k, (2, n)))\n"
                "    x, y = draw(key)\n"
                "    return 4.0 * jnp.mean(x * x + y * y <= 1.0)\n",
            },
            "loses": {"test_pi_speed"},
        },
        # One key for every row: identical rows, and the key-reuse checker objects.
        "batch_same_key": {
            "answers": {
                "batch": "def sample_batch(key, batch, d):\n    return jnp.stack([jax.random.normal(key, (d,)) for _ in range(batch)])\n"
            },
            "loses": {"test_batch_independent", "test_batch_key_reuse"},
        },
        # fold_in with a constant does not consume the key, so only the rows give it away.
        "batch_fold_in_constant": {
            "answers": {
                "batch": "def sample_batch(key, batch, d):\n"
                "    return jax.vmap(lambda i: jax.random.normal(jax.random.fold_in(key, 0), (d,)))(jnp.arange(batch))\n",
            },
            "loses": {"test_batch_independent", "test_batch_key_reuse"},
        },
        # Bypass: one draw for the whole batch: independent rows, but no key per example.
        "batch_one_draw": {
            "answers": {"batch": "def sample_batch(key, batch, d):\n    return jax.random.normal(key, (batch, d))\n"},
            "loses": {"test_batch_independent", "test_batch_key_reuse"},
            "bypass": "a key per example (split, then vmap)",
        },
        # Rows look independent, but the parent key is used again after splitting.
        "batch_reuses_parent_key": {
            "answers": {
                "batch": "def sample_batch(key, batch, d):\n"
                "    keys = jax.random.split(key, batch)\n"
                "    samples = jax.vmap(lambda k: jax.random.normal(k, (d,)))(keys)\n"
                "    return samples.at[0].set(jax.random.normal(key, (d,)))\n",
            },
            "loses": {"test_batch_independent", "test_batch_key_reuse"},
        },
        # Bypass: every layer drawn from the one key passed in, so no key per layer: the layers'
        # weights are correlated, and the recipe-exact comparison (layer i from split(key, n)[i]) differs.
        "init_same_key": {
            "answers": {
                "init": "def init_mlp(key, sizes):\n"
                "    return [{'W': jax.random.normal(key, (m, n)) * jnp.sqrt(2 / m), 'b': jnp.zeros(n)}\n"
                "            for m, n in zip(sizes[:-1], sizes[1:])]\n",
            },
            "loses": {"test_init"},
            "bypass": "a key per layer (split), drawn by the recipe",
        },
        # A key per layer from fold_in(key, i): JAX 0.12's split is fold-like (split(key, n)[i] is
        # fold_in(key, i)), so these are the recipe's weights.
        "init_fold_in": {
            "answers": {
                "init": "def init_mlp(key, sizes):\n"
                "    return [\n"
                "        {'W': jax.random.normal(jax.random.fold_in(key, i), (m, n)) * jnp.sqrt(2 / m), 'b': jnp.zeros(n)}\n"
                "        for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:]))\n"
                "    ]\n",
            },
            "loses": set(),
            "alternative": "fold_in(key, i) for layer i, equal to split(key, n)[i] in JAX 0.12",
        },
        # A new key split off for each layer in turn (key, sub = split(key)): no key is reused,
        # but these are not the recipe's keys, so not its weights.
        "init_split_in_turn": {
            "answers": {
                "init": "def init_mlp(key, sizes):\n"
                "    params = []\n"
                "    for m, n in zip(sizes[:-1], sizes[1:]):\n"
                "        key, sub = jax.random.split(key)\n"
                "        params.append({'W': jax.random.normal(sub, (m, n)) * jnp.sqrt(2 / m), 'b': jnp.zeros(n)})\n"
                "    return params\n",
            },
            "loses": {"test_init"},
        },
        # Correct, another way: the library's initialiser, He normal written as variance_scaling.
        "init_variance_scaling": {
            "answers": {
                "init": "def init_mlp(key, sizes):\n"
                "    he = jax.nn.initializers.variance_scaling(2.0, 'fan_in', 'normal')\n"
                "    params = []\n"
                "    for i, k in enumerate(jax.random.split(key, len(sizes) - 1)):\n"
                "        params.append({'W': he(k, (sizes[i], sizes[i + 1])), 'b': jnp.zeros(sizes[i + 1])})\n"
                "    return params\n",
            },
            "loses": set(),
            "alternative": "jax.nn.initializers.variance_scaling(2, 'fan_in', 'normal') in an indexed loop",
        },
        # Bypass: one mask for the last axis, shared by every row (example): not a fresh draw per
        # value, which the 2-D inputs show.
        "dropout_one_mask_for_all_rows": {
            "answers": {
                "dropout": "def dropout(key, x, rate):\n"
                "    keep = jax.random.bernoulli(key, 1 - rate, x.shape[-1:])\n"
                "    return jnp.where(keep, x / (1 - rate), 0.0)\n",
            },
            "loses": {"test_dropout"},
            "bypass": "a mask drawn for every value from the key, kept values scaled by 1 / (1 - rate)",
        },
        # Correct, another way: the uniform draw bernoulli makes, compared by hand, and a product.
        "dropout_uniform_threshold": {
            "answers": {
                "dropout": "def dropout(key, x, rate):\n"
                "    keep = jax.random.uniform(key, x.shape) < 1 - rate\n"
                "    return x * keep / (1 - rate)\n",
            },
            "loses": set(),
            "alternative": "uniform(key, shape) < 1 - rate and a product, instead of bernoulli and where",
        },
        # `rate` taken as the probability to keep: with rate 0.5 the two are the same, so the
        # visible test uses 0.25.
        "dropout_rate_as_keep": {
            "answers": {
                "dropout": "def dropout(key, x, rate):\n"
                "    keep = jax.random.bernoulli(key, rate, x.shape)\n"
                "    return jnp.where(keep, x / rate, 0.0)\n",
            },
            "loses": {"test_dropout"},
        },
        "dropout_no_rescale": {
            "answers": {
                "dropout": "def dropout(key, x, rate):\n    return jnp.where(jax.random.bernoulli(key, 1 - rate, x.shape), x, 0.0)\n"
            },
            "loses": {"test_dropout"},
        },
        # Passes the visible test by returning its expected output: the hidden test catches it.
        "dropout_hardcoded": {
            "answers": {
                "dropout": "def dropout(key, x, rate):\n"
                "    return jnp.array([[0.0, 0.0, 12.0, 16.0], [20.0, 24.0, 28.0, 32.0]])\n"
            },
            "loses": {"test_dropout"},
        },
    },
    "08_parallel": {
        # Each device subtracts its own piece's mean: right only on one device.
        "pmap_local_mean": {
            "answers": {
                "pmap": "def center_piece(piece):\n"
                "    return piece - jnp.mean(piece)\n\n\n"
                "def center_pmap(x):\n"
                "    pieces = jax.pmap(center_piece)(x.reshape(jax.device_count(), -1))\n"
                "    return pieces.reshape(x.shape)\n",
            },
            "loses": {"test_pmap", "test_pmap_structure"},
        },
        # Bypass: psum where pmean is needed, a mean device_count() times too large: right only on
        # one device, so the test runs center_piece as 8 (and, hidden, 12) simulated devices with vmap.
        "pmap_psum_not_pmean": {
            "answers": {
                "pmap": "def center_piece(piece):\n"
                "    return piece - jax.lax.psum(jnp.mean(piece), 'devices')\n\n\n"
                "def center_pmap(x):\n"
                "    pieces = jax.pmap(center_piece, axis_name='devices')(x.reshape(jax.device_count(), -1))\n"
                "    return pieces.reshape(x.shape)\n",
            },
            "loses": {"test_pmap", "test_pmap_structure"},
            "bypass": "the global mean from a collective, for any number of devices",
        },
        # Divides by jax.device_count(), not the number of pieces the collective summed: right on
        # this machine's 8 devices, wrong on the tests' 6 and 12 simulated ones.
        "pmap_divides_by_device_count": {
            "answers": {
                "pmap": "def center_piece(piece):\n"
                "    return piece - jax.lax.psum(jnp.sum(piece), 'devices') / (piece.size * jax.device_count())\n\n\n"
                "def center_pmap(x):\n"
                "    pieces = jax.pmap(center_piece, axis_name='devices')(x.reshape(jax.device_count(), -1))\n"
                "    return pieces.reshape(x.shape)\n",
            },
            "loses": {"test_pmap"},
        },
        # Right values, but no device does any part of the work.
        "pmap_not_parallel": {
            "answers": {
                "pmap": "def center_piece(piece):\n"
                "    return piece - jax.lax.pmean(jnp.mean(piece), 'devices')\n\n\n"
                "def center_pmap(x):\n"
                "    return x - jnp.mean(x)\n",
            },
            "loses": {"test_pmap_structure"},
        },
        # Passes the visible tests by returning their expected outputs: the hidden test catches it.
        "pmap_hardcoded": {
            "answers": {
                "pmap": "def center_piece(piece):\n"
                "    return piece - 23.5\n\n\n"
                "def center_pmap(x):\n"
                "    return jnp.arange(8.0 * n_devices) - (8.0 * n_devices - 1) / 2\n",
            },
            "loses": {"test_pmap", "test_pmap_structure"},
        },
        # Not migrated: still pmap underneath.
        "shard_map_still_pmap": {
            "answers": {
                "shard_map": "def center_shard_map(x, mesh):\n    return center_pmap(x)\n",
            },
            "loses": {"test_shard_map_structure"},
        },
        # Bypass: the right values computed on one device, with no per-device program or collective.
        "shard_map_not_parallel": {
            "answers": {"shard_map": "def center_shard_map(x, mesh):\n    return x - jnp.mean(x)\n"},
            "loses": {"test_shard_map_structure"},
            "bypass": "a per-device program (shard_map) with a collective over the mesh axis",
        },
        # psum where pmean is needed: right only on a one-device mesh, and the tests' meshes hold
        # every CPU device (8), whatever the default devices are.
        "shard_map_psum_not_pmean": {
            "answers": {
                "shard_map": "def center_shard_map(x, mesh):\n"
                "    axis = mesh.axis_names[0]\n"
                "    x = jax.device_put(x, NamedSharding(mesh, P(axis)))\n"
                "    center = lambda p: p - jax.lax.psum(jnp.mean(p), axis)\n"
                "    return jax.shard_map(center, mesh=mesh, in_specs=P(axis), out_specs=P(axis))(x)\n",
            },
            "loses": {"test_shard_map", "test_shard_map_structure"},
        },
        # Correct, another way: the global sum over the devices, divided by the whole length.
        "shard_map_psum_of_sums": {
            "answers": {
                "shard_map": "def center_shard_map(x, mesh):\n"
                "    axis, total = mesh.axis_names[0], x.size\n"
                "    x = jax.device_put(x, NamedSharding(mesh, P(axis)))\n"
                "    center = lambda p: p - jax.lax.psum(p.sum(), axis) / total\n"
                "    return jax.shard_map(center, mesh=mesh, in_specs=P(axis), out_specs=P(axis))(x)\n",
            },
            "loses": set(),
            "alternative": "psum of the pieces' sums divided by the global length, instead of pmean",
        },
        # Forgets the collective: each device centres its own piece.
        "shard_map_local_mean": {
            "answers": {
                "shard_map": "def center_shard_map(x, mesh):\n"
                "    axis = mesh.axis_names[0]\n"
                "    x = jax.device_put(x, NamedSharding(mesh, P(axis)))\n"
                "    return jax.shard_map(lambda p: p - jnp.mean(p), mesh=mesh, in_specs=P(axis), out_specs=P(axis))(x)\n",
            },
            "loses": {"test_shard_map", "test_shard_map_structure"},
        },
        # Bypass: a plain matmul on one device, with the right values; the tests' mesh holds every
        # CPU device, so this is seen even where the default devices are one GPU.
        "matmul_unsharded": {
            "answers": {"matmul": "def sharded_matmul(A, B, mesh):\n    return A @ B\n"},
            "loses": {"test_matmul_sharding"},
            "bypass": "the result laid out across the mesh as asked",
        },
        # Correct, another way: shard the inputs (rows of A on "x", columns of B on "y") and let jit
        # propagate the layout to the product.
        "matmul_sharded_inputs": {
            "answers": {
                "matmul": "def sharded_matmul(A, B, mesh):\n"
                "    A = jax.device_put(A, NamedSharding(mesh, P('x', None)))\n"
                "    B = jax.device_put(B, NamedSharding(mesh, P(None, 'y')))\n"
                "    return jax.jit(jnp.matmul)(A, B)\n",
            },
            "loses": set(),
            "alternative": "sharded inputs, the product's layout propagated by jit",
        },
        "matmul_axes_swapped": {
            "answers": {
                "matmul": "def sharded_matmul(A, B, mesh):\n"
                "    return jax.jit(jnp.matmul, out_shardings=NamedSharding(mesh, P('y', 'x')))(A, B)\n",
            },
            "loses": {"test_matmul_sharding"},
        },
        # The right layout, the wrong values: a product in bfloat16 "for speed", as on a TPU, cast back,
        # is rounded (exact only where the inputs are small whole numbers, as in the layout tests).
        "matmul_bfloat16": {
            "answers": {
                "matmul": "def sharded_matmul(A, B, mesh):\n"
                "    half = lambda A, B: (A.astype(jnp.bfloat16) @ B.astype(jnp.bfloat16)).astype(A.dtype)\n"
                "    return jax.jit(half, out_shardings=NamedSharding(mesh, P('x', 'y')))(A, B)\n",
            },
            "loses": {"test_matmul"},
        },
        # The pmap recipe under shard_map: the gradient comes out device_count() times too large,
        # on the tests' mesh of every CPU device (8), whatever the default devices are.
        "dp_grad_pmap_recipe": {
            "answers": {
                "dp": "def dp_grad(w, X, y, mesh):\n"
                "    axis = mesh.axis_names[0]\n"
                "    X = jax.device_put(X, NamedSharding(mesh, P(axis)))\n"
                "    y = jax.device_put(y, NamedSharding(mesh, P(axis)))\n"
                "    local = lambda w, X, y: jax.lax.pmean(jax.grad(loss)(w, X, y), axis)\n"
                "    return jax.shard_map(local, mesh=mesh, in_specs=(P(), P(axis), P(axis)), out_specs=P())(w, X, y)\n",
            },
            "loses": {"test_dp_grad", "test_dp_grad_structure"},
        },
        # Bypass: the single-device gradient, right values with no data parallelism.
        "dp_grad_single_device": {
            "answers": {"dp": "def dp_grad(w, X, y, mesh):\n    return jax.grad(loss)(w, X, y)\n"},
            "loses": {"test_dp_grad_structure"},
            "bypass": "a data-parallel gradient: shard_map with a collective over the mesh axis",
        },
        # Correct, another way: w cast to varying first, so its gradient is each device's own, and
        # then the pmap recipe (pmean of the gradients) is right.
        "dp_grad_varying_w": {
            "answers": {
                "dp": "def dp_grad(w, X, y, mesh):\n"
                "    axis = mesh.axis_names[0]\n"
                "    X = jax.device_put(X, NamedSharding(mesh, P(axis)))\n"
                "    y = jax.device_put(y, NamedSharding(mesh, P(axis)))\n"
                "    def local(w, X, y):\n"
                "        w = jax.lax.pcast(w, axis, to='varying')\n"
                "        return jax.lax.pmean(jax.grad(loss)(w, X, y), axis)\n"
                "    return jax.shard_map(local, mesh=mesh, in_specs=(P(), P(axis), P(axis)), out_specs=P())(w, X, y)\n",
            },
            "loses": set(),
            "alternative": "w cast to varying (jax.lax.pcast), then the pmean of the local gradients",
        },
        # Sharded by jit alone: right values, but no explicit collective in the program.
        "dp_grad_jit_only": {
            "answers": {
                "dp": "def dp_grad(w, X, y, mesh):\n"
                "    X = jax.device_put(X, NamedSharding(mesh, P(mesh.axis_names[0])))\n"
                "    y = jax.device_put(y, NamedSharding(mesh, P(mesh.axis_names[0])))\n"
                "    w = jax.device_put(w, NamedSharding(mesh, P()))\n"
                "    return jax.jit(jax.grad(loss))(w, X, y)\n",
            },
            "loses": {"test_dp_grad_structure"},
        },
    },
    "09_capstone": {
        # Assumes two classes: right on the visible test, the wrong shape on the hidden one.
        "predict_two_classes_hardcoded": {
            "answers": {
                "predict": "def predict(params, X):\n    return jax.vmap(forward_one, in_axes=(None, 0))(params, X)[:, :2]\n"
            },
            "loses": {"test_predict"},
        },
        # Bypass: a Python loop over the rows instead of vmap: right values, but the traced program
        # holds one copy of the network per example (and so does every jitted step built on it).
        "predict_row_loop": {
            "answers": {
                "predict": "def predict(params, X):\n    return jnp.stack([forward_one(params, x) for x in X])\n"
            },
            "loses": {"test_predict"},
            "bypass": "a batch computed at once (vmap), not a Python loop over the rows",
        },
        # Correct, another way: the forward pass batched by hand, a matrix of rows through each layer.
        "predict_batched_by_hand": {
            "answers": {
                "predict": "def predict(params, X):\n"
                "    for layer in params[:-1]:\n"
                "        X = jnp.tanh(X @ layer['W'] + layer['b'])\n"
                "    return X @ params[-1]['W'] + params[-1]['b']\n",
            },
            "loses": set(),
            "alternative": "the forward pass written for a batch by hand, instead of vmap",
        },
        # Climbs the loss: the step, and everything trained with it, goes wrong.
        "step_gradient_ascent": {
            "answers": {
                "step": "@jax.jit\n"
                "def train_step(params, X, y, lr):\n"
                "    loss, grads = jax.value_and_grad(loss_fn)(params, X, y)\n"
                "    return jax.tree.map(lambda p, g: p + lr * g, params, grads), loss\n",
            },
            # Fast but wrong: the speed cell's hidden test checks the timed function's result too.
            "loses": {"test_epoch", "test_epoch_compiles_once", "test_fit", "test_speed", "test_step"},
        },
        # Bypass: the right step, not jitted: every operation dispatched from Python. Problem 2 asks
        # for it jitted (check_jitted), Problem 5 times it.
        "step_not_jitted": {
            "answers": {
                "step": "def train_step(params, X, y, lr):\n"
                "    loss, grads = jax.value_and_grad(loss_fn)(params, X, y)\n"
                "    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss\n",
            },
            "loses": {"test_step", "test_speed"},
            "bypass": "a step jitted as a whole, compiled once",
        },
        # Correct but slow: a new jitted function, so a compilation, on every call.
        "step_jit_every_call": {
            "answers": {
                "step": "def train_step(params, X, y, lr):\n"
                "    step = jax.jit(lambda p: jax.value_and_grad(loss_fn)(p, X, y))\n"
                "    loss, grads = step(params)\n"
                "    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss\n",
            },
            "loses": {"test_step", "test_speed"},
        },
        # Correct, another way: the loss and the gradient in two calls, each layer's dict updated by hand.
        "step_grad_then_loss": {
            "answers": {
                "step": "@jax.jit\n"
                "def train_step(params, X, y, lr):\n"
                "    grads = jax.grad(loss_fn)(params, X, y)\n"
                "    new = [{name: layer[name] - lr * g[name] for name in layer} for layer, g in zip(params, grads)]\n"
                "    return new, loss_fn(params, X, y)\n",
            },
            "loses": set(),
            "alternative": "jax.grad and loss_fn called apart, a list of dict comprehensions instead of jax.tree.map",
        },
        # Right values, but a Python loop dispatches every minibatch.
        "epoch_python_loop": {
            "answers": {
                "epoch": "def train_epoch(params, X, y, key, lr):\n"
                "    perm = jax.random.permutation(key, X.shape[0])\n"
                "    X, y = X[perm], y[perm]\n"
                "    losses = []\n"
                "    for b in range(X.shape[0] // BATCH):\n"
                "        params, loss = train_step(params, X[b * BATCH : (b + 1) * BATCH], y[b * BATCH : (b + 1) * BATCH], lr)\n"
                "        losses.append(loss)\n"
                "    return params, jnp.mean(jnp.stack(losses))\n",
            },
            "loses": {"test_epoch_compiles_once"},
        },
        # Right values, but the epoch is compiled again on every call.
        "epoch_jit_every_call": {
            "answers": {
                "epoch": "def train_epoch(params, X, y, key, lr):\n"
                "    def epoch(params, X, y, key):\n"
                "        perm = jax.random.permutation(key, X.shape[0])\n"
                "        batches = X.shape[0] // BATCH\n"
                "        Xb = X[perm][: batches * BATCH].reshape(batches, BATCH, -1)\n"
                "        yb = y[perm][: batches * BATCH].reshape(batches, BATCH)\n"
                "        params, losses = jax.lax.scan(lambda p, b: train_step(p, *b, lr), params, (Xb, yb))\n"
                "        return params, jnp.mean(losses)\n"
                "    return jax.jit(epoch)(params, X, y, key)\n",
            },
            "loses": {"test_epoch_compiles_once"},
        },
        # Never shuffles: another key gives the same epoch, and the values differ from the recipe.
        "epoch_no_shuffle": {
            "answers": {
                "epoch": "@jax.jit\n"
                "def train_epoch(params, X, y, key, lr):\n"
                "    batches = X.shape[0] // BATCH\n"
                "    Xb = X[: batches * BATCH].reshape(batches, BATCH, -1)\n"
                "    yb = y[: batches * BATCH].reshape(batches, BATCH)\n"
                "    params, losses = jax.lax.scan(lambda p, b: train_step(p, *b, lr), params, (Xb, yb))\n"
                "    return params, jnp.mean(losses)\n",
            },
            "loses": {"test_epoch", "test_epoch_compiles_once"},
        },
        # Bypass: jit around a Python loop over minibatches, one copy of the step per minibatch.
        "epoch_unrolled_under_jit": {
            "answers": {
                "epoch": "@jax.jit\n"
                "def train_epoch(params, X, y, key, lr):\n"
                "    perm = jax.random.permutation(key, X.shape[0])\n"
                "    X, y = X[perm], y[perm]\n"
                "    losses = []\n"
                "    for b in range(X.shape[0] // BATCH):\n"
                "        rows = slice(b * BATCH, (b + 1) * BATCH)\n"
                "        params, loss = train_step(params, X[rows], y[rows], lr)\n"
                "        losses.append(loss)\n"
                "    return params, jnp.mean(jnp.stack(losses))\n",
            },
            "loses": {"test_epoch_compiles_once"},
            "bypass": "an epoch compiled once, looping with lax.scan",
        },
        # Starts every epoch from the initial params: ten epochs train as much as one.
        "fit_forgets_params": {
            "answers": {
                "fit": "def fit(key, X, y, epochs):\n"
                "    init_key, shuffle_key = jax.random.split(key)\n"
                "    params = init_mlp(init_key, SIZES)\n"
                "    for epoch in range(epochs):\n"
                "        trained, _ = train_epoch(params, X, y, jax.random.fold_in(shuffle_key, epoch), 0.5)\n"
                "    return trained\n",
            },
            "loses": {"test_fit"},
        },
        # Bypass: params trained once on the notebook's own data, returned whatever fit is given:
        # accurate on any rings, but not trained by the loop on the data passed in.
        "fit_returns_precomputed": {
            "answers": {
                "fit": "def _fit(key, X, y, epochs):\n"
                "    init_key, shuffle_key = jax.random.split(key)\n"
                "    params = init_mlp(init_key, SIZES)\n"
                "    for epoch in range(epochs):\n"
                "        params, _ = train_epoch(params, X, y, jax.random.fold_in(shuffle_key, epoch), 0.5)\n"
                "    return params\n\n\n"
                "TRAINED = _fit(jax.random.key(2), X_train, y_train, 10)\n\n\n"
                "def fit(key, X, y, epochs):\n"
                "    return TRAINED\n",
            },
            "loses": {"test_fit"},
            "bypass": "the training loop itself, on the data and key given",
        },
        # Correct, another way: the epochs in a lax.fori_loop, params as its carry.
        "fit_fori_loop": {
            "answers": {
                "fit": "def fit(key, X, y, epochs):\n"
                "    init_key, shuffle_key = jax.random.split(key)\n"
                "    epoch = lambda e, p: train_epoch(p, X, y, jax.random.fold_in(shuffle_key, e), 0.5)[0]\n"
                "    return jax.lax.fori_loop(0, epochs, epoch, init_mlp(init_key, SIZES))\n",
            },
            "loses": set(),
            "alternative": "jax.lax.fori_loop over the epochs instead of a Python loop",
        },
    },
    "10_pytrees": {
        # register_dataclass with no field lists treats every field as data: the activation string becomes a leaf.
        "dense_all_data": {
            "answers": {
                "dense": "@dataclasses.dataclass\n"
                "class Dense:\n"
                "    w: jax.Array\n"
                "    b: jax.Array\n"
                "    activation: str\n\n\n"
                "jax.tree_util.register_dataclass(Dense)\n",
            },
            "loses": {"test_dense"},
        },
        # Bypass: a NamedTuple, a container JAX knows already, instead of registering a node: every field is a leaf.
        "dense_namedtuple": {
            "answers": {
                "dense": "from typing import NamedTuple\n\n\n"
                "class Dense(NamedTuple):\n"
                "    w: jax.Array\n"
                "    b: jax.Array\n"
                "    activation: str\n",
            },
            "loses": {"test_dense"},
            "bypass": "a registered custom node whose static field is in the treedef",
        },
        # Unflatten rebuilds with the visible test's activation, not the one kept in the treedef.
        "dense_unflatten_hardcoded": {
            "answers": {
                "dense": "@dataclasses.dataclass\n"
                "class Dense:\n"
                "    w: jax.Array\n"
                "    b: jax.Array\n"
                "    activation: str\n\n\n"
                "jax.tree_util.register_pytree_node(\n"
                "    Dense, lambda d: ((d.w, d.b), d.activation), lambda aux, children: Dense(*children, 'tanh'))\n",
            },
            "loses": {"test_dense"},
        },
        # Bypass: deciding by shape (ndim >= 2) instead of the name: a 1-D "w" is not decayed, a 2-D bias is.
        "decay_by_shape": {
            "answers": {
                "decay": "def decay_weights(params, rate):\n"
                "    return jax.tree.map(lambda x: x * (1 - rate) if x.ndim >= 2 else x, params)\n",
            },
            "loses": {"test_decay"},
            "bypass": "the key path decides, on any nesting",
        },
        # Bypass: the visible tree's shape hard-coded, {layer: {"w", "b"}}: fails on lists, None and deeper nesting.
        "decay_hardcoded_structure": {
            "answers": {
                "decay": "def decay_weights(params, rate):\n"
                "    return {name: {'w': layer['w'] * (1 - rate), 'b': layer['b']} for name, layer in params.items()}\n",
            },
            "loses": {"test_decay"},
            "bypass": "the key path decides, on any nesting",
        },
        # "w" anywhere on the path, not as its last key: {"w": {"b": ...}} is decayed too.
        "decay_w_anywhere": {
            "answers": {
                "decay": "def decay_weights(params, rate):\n"
                "    return jax.tree_util.tree_map_with_path(\n"
                "        lambda path, x: x * (1 - rate) if \"['w']\" in jax.tree_util.keystr(path) else x, params)\n",
            },
            "loses": {"test_decay"},
        },
        # The colleague's declaration left as it was: every new step and learning rate compiles again.
        "schedule_left_static": {
            "answers": {
                "schedule": "@jax.tree_util.register_dataclass\n"
                "@dataclasses.dataclass\n"
                "class TrainState:\n"
                "    params: dict\n"
                "    step: int = dataclasses.field(metadata=dict(static=True))\n"
                "    lr: float = dataclasses.field(metadata=dict(static=True))\n"
                "    optimizer: str = dataclasses.field(metadata=dict(static=True))\n",
            },
            "loses": {"test_schedule"},
        },
        # Half fixed: step is data, but the learning rate still static, so each new rate compiles again.
        "schedule_lr_static": {
            "answers": {
                "schedule": "@jax.tree_util.register_dataclass\n"
                "@dataclasses.dataclass\n"
                "class TrainState:\n"
                "    params: dict\n"
                "    step: int\n"
                "    lr: float = dataclasses.field(metadata=dict(static=True))\n"
                "    optimizer: str = dataclasses.field(metadata=dict(static=True))\n",
            },
            "loses": {"test_schedule"},
        },
        # Everything data: the optimizer's name becomes a leaf, and a string is not a JAX type.
        "schedule_all_data": {
            "answers": {
                "schedule": "@jax.tree_util.register_dataclass\n"
                "@dataclasses.dataclass\n"
                "class TrainState:\n"
                "    params: dict\n"
                "    step: int\n"
                "    lr: float\n"
                "    optimizer: str\n",
            },
            "loses": {"test_schedule"},
        },
        # Bypass: step and lr dropped from the tree, so nothing recompiles because the program never sees them
        # (inside train_step they are the defaults).
        "schedule_drop_fields": {
            "answers": {
                "schedule": "@dataclasses.dataclass\n"
                "class TrainState:\n"
                "    params: dict\n"
                "    step: int = 0\n"
                "    lr: float = 0.1\n"
                "    optimizer: str = 'sgd'\n\n\n"
                "jax.tree_util.register_dataclass(TrainState, data_fields=['params'], meta_fields=['optimizer'],\n"
                "                                 drop_fields=['step', 'lr'])\n",
            },
            "loses": {"test_schedule"},
            "bypass": "step and lr as data fields, traced, so one compilation serves every value",
        },
        # Bypass: the visible tree's keys hard-coded: fails on another structure.
        "stack_hardcoded_keys": {
            "answers": {
                "stack": "def stack_trees(trees):\n"
                "    return {'w': jnp.stack([t['w'] for t in trees]), 'b': jnp.stack([t['b'] for t in trees])}\n",
            },
            "loses": {"test_stack"},
            "bypass": "jax.tree.map over all the trees, for any structure",
        },
        # NumPy stacks the right values, but cannot be traced inside a jitted function.
        "stack_numpy": {
            "answers": {
                "stack": "def stack_trees(trees):\n    return jax.tree.map(lambda *leaves: np.stack(leaves), *trees)\n",
            },
            "loses": {"test_stack"},
        },
        # Bypass: a Python loop over the layers, one copy of the layer per layer in the traced program.
        "scan_python_loop": {
            "answers": {
                "scan": "def run_stack(layer_fn, stacked, x):\n"
                "    for i in range(jax.tree.leaves(stacked)[0].shape[0]):\n"
                "        x = layer_fn(jax.tree.map(lambda a: a[i], stacked), x)\n"
                "    return x\n",
            },
            "loses": {"test_scan"},
            "bypass": "lax.scan over the stacked tree: one copy of the layer",
        },
        # A scan that runs the layers last to first.
        "scan_reversed": {
            "answers": {
                "scan": "def run_stack(layer_fn, stacked, x):\n"
                "    x, _ = jax.lax.scan(lambda h, p: (layer_fn(p, h), None), x, stacked, reverse=True)\n"
                "    return x\n",
            },
            "loses": {"test_scan"},
        },
        # Correct, written another way: both keep full marks.
        "alternatives_pytree_node_flatten_fori": {
            "answers": {
                "dense": "@dataclasses.dataclass\n"
                "class Dense:\n"
                "    w: jax.Array\n"
                "    b: jax.Array\n"
                "    activation: str\n\n\n"
                "jax.tree_util.register_pytree_with_keys(\n"
                "    Dense,\n"
                "    lambda d: (((jax.tree_util.GetAttrKey('w'), d.w), (jax.tree_util.GetAttrKey('b'), d.b)), d.activation),\n"
                "    lambda activation, children: Dense(*children, activation),\n"
                ")\n",
                "decay": "def decay_weights(params, rate):\n"
                "    with_paths, treedef = jax.tree_util.tree_flatten_with_path(params)\n"
                "    leaves = [x * (1 - rate) if jax.tree_util.keystr(path).endswith(\"['w']\") else x\n"
                "              for path, x in with_paths]\n"
                "    return jax.tree.unflatten(treedef, leaves)\n",
                "stack": "def stack_trees(trees):\n"
                "    columns = zip(*[jax.tree.leaves(t) for t in trees])\n"
                "    return jax.tree.unflatten(jax.tree.structure(trees[0]), [jnp.stack(c) for c in columns])\n",
                "scan": "def run_stack(layer_fn, stacked, x):\n"
                "    n = jax.tree.leaves(stacked)[0].shape[0]\n"
                "    layer = lambda i, h: layer_fn(jax.tree.map(lambda a: a[i], stacked), h)\n"
                "    return jax.lax.fori_loop(0, n, layer, x)\n",
            },
            "loses": set(),
            "alternative": "register_pytree_with_keys with flatten/unflatten functions; flatten_with_path, keystr and "
            "unflatten; stacking columns of leaves and unflattening; lax.fori_loop indexing the stacked leaves",
        },
        # Correct, another way: the static field marked with jax.tree.static(), register_dataclass's explicit lists.
        "alternatives_field_metadata": {
            "answers": {
                "dense": "@jax.tree_util.register_dataclass\n"
                "@dataclasses.dataclass\n"
                "class Dense:\n"
                "    w: jax.Array\n"
                "    b: jax.Array\n"
                "    activation: str = jax.tree.static()\n",
                "schedule": "@dataclasses.dataclass\n"
                "class TrainState:\n"
                "    params: dict\n"
                "    step: int\n"
                "    lr: float\n"
                "    optimizer: str\n\n\n"
                "jax.tree_util.register_dataclass(TrainState, data_fields=['params', 'step', 'lr'], meta_fields=['optimizer'])\n",
            },
            "loses": set(),
            "alternative": "the static field marked with jax.tree.static(); "
            "register_dataclass with explicit data_fields and meta_fields",
        },
    },
    "11_custom_derivatives": {
        # Bypass: the formula differentiated by JAX: nan at the zero row.
        "norm_autodiff": {
            "answers": {"safe_norm": "def safe_norm(x):\n    return jnp.sqrt(jnp.sum(x**2))\n"},
            "loses": {"test_safe_norm"},
            "bypass": "a derivative rule that is finite at 0, in both modes (custom_jvp)",
        },
        # A rule that divides by the norm unguarded: nan at the zero row again.
        "norm_rule_divides_by_zero": {
            "answers": {
                "safe_norm": "@jax.custom_jvp\n"
                "def safe_norm(x):\n"
                "    return jnp.sqrt(jnp.sum(x**2))\n\n\n"
                "@safe_norm.defjvp\n"
                "def safe_norm_jvp(primals, tangents):\n"
                "    (x,), (t,) = primals, tangents\n"
                "    y = safe_norm(x)\n"
                "    return y, jnp.dot(x / y, t)\n",
            },
            "loses": {"test_safe_norm"},
        },
        # Right in reverse mode, but a custom_vjp has no forward mode: jax.jvp raises.
        "norm_custom_vjp": {
            "answers": {
                "safe_norm": "@jax.custom_vjp\n"
                "def safe_norm(x):\n"
                "    return jnp.sqrt(jnp.sum(x**2))\n\n\n"
                "def safe_norm_fwd(x):\n"
                "    y = safe_norm(x)\n"
                "    return y, (x, y)\n\n\n"
                "def safe_norm_bwd(residuals, g):\n"
                "    x, y = residuals\n"
                "    return (jnp.where(y > 0, g / jnp.where(y > 0, y, 1.0), 0.0) * x,)\n\n\n"
                "safe_norm.defvjp(safe_norm_fwd, safe_norm_bwd)\n",
            },
            "loses": {"test_safe_norm"},
        },
        # Bypass: jnp.clip, the one-liner: it clips the values, and its gradient is 0 outside the bounds.
        "clip_forward": {
            "answers": {"clip": "def clip_gradient(x, lo, hi):\n    return jnp.clip(x, lo, hi)\n"},
            "loses": {"test_clip_gradient"},
            "bypass": "a custom backward pass: identity forward, clipped cotangent (custom_vjp)",
        },
        "clip_wrong_sign": {
            "answers": {
                "clip": "@partial(jax.custom_vjp, nondiff_argnums=(1, 2))\n"
                "def clip_gradient(x, lo, hi):\n"
                "    return x\n\n\n"
                "clip_gradient.defvjp(lambda x, lo, hi: (x, None), lambda lo, hi, _, g: (-jnp.clip(g, lo, hi),))\n",
            },
            "loses": {"test_clip_gradient"},
        },
        # Passes the visible test, whose bounds are -1 and 1, by clipping to those: the hidden test catches it.
        "clip_bounds_hardcoded": {
            "answers": {
                "clip": "@jax.custom_vjp\n"
                "def _clip(x):\n"
                "    return x\n\n\n"
                "_clip.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1.0, 1.0),))\n\n\n"
                "def clip_gradient(x, lo, hi):\n"
                "    return _clip(x)\n",
            },
            "loses": {"test_clip_gradient"},
        },
        # Bypass: no checkpoint: every layer keeps its wide activations.
        "remat_none": {
            "answers": {"remat": "def block_remat(p, x):\n    return block(p, x)\n"},
            "loses": {"test_remat_memory"},
            "bypass": "jax.checkpoint around each block, keeping residuals under a bound",
        },
        # Checkpointed, but the policy saves the wide x @ W1 of every layer.
        "remat_dots_saveable": {
            "answers": {
                "remat": "def block_remat(p, x):\n"
                "    return jax.checkpoint(block, policy=jax.checkpoint_policies.dots_saveable)(p, x)\n",
            },
            "loses": {"test_remat_memory"},
        },
        # Bypass: few residuals, bought with a wrong gradient: nothing flows back through the layers' inputs.
        "remat_stops_gradient": {
            "answers": {
                "remat": "def block_remat(p, x):\n"
                "    return jax.checkpoint(lambda p, x: block(p, jax.lax.stop_gradient(x)))(p, x)\n",
            },
            "loses": {"test_remat"},
            "bypass": "the plain block's gradient, from a checkpointed block",
        },
        # Right values and jvp, but reverse mode refuses a while_loop.
        "eigen_while_loop": {
            "answers": {
                "eigen": "def top_eigenvalue(A, steps):\n"
                "    def step(carry):\n"
                "        i, v = carry\n"
                "        w = A @ v\n"
                "        return i + 1, w / jnp.linalg.norm(w)\n\n"
                "    v0 = jnp.ones(A.shape[0], A.dtype) / np.sqrt(A.shape[0])\n"
                "    _, v = jax.lax.while_loop(lambda carry: carry[0] < steps, step, (0, v0))\n"
                "    return v @ A @ v\n",
            },
            "loses": {"test_eigen"},
        },
        # Bypass: the library's eigenvalue: the converged answer, whatever the number of steps.
        "eigen_library": {
            "answers": {"eigen": "def top_eigenvalue(A, steps):\n    return jnp.linalg.eigvalsh(A)[-1]\n"},
            "loses": {"test_eigen", "test_eigen_structure"},
            "bypass": "the power iteration itself, differentiated through its loop",
        },
        # Bypass: a Python loop under jit: right gradients, but unrolled into one copy of the step per iteration.
        "eigen_unrolled_under_jit": {
            "answers": {
                "eigen": "@partial(jax.jit, static_argnums=1)\n"
                "def top_eigenvalue(A, steps):\n"
                "    v = jnp.ones(A.shape[0], A.dtype) / np.sqrt(A.shape[0])\n"
                "    for _ in range(steps):\n"
                "        w = A @ v\n"
                "        v = w / jnp.linalg.norm(w)\n"
                "    return v @ A @ v\n",
            },
            "loses": {"test_eigen_structure"},
            "bypass": "a loop reverse mode goes through, compiled once (fori_loop or scan)",
        },
        "eigen_python_loop": {
            "answers": {
                "eigen": "def top_eigenvalue(A, steps):\n"
                "    v = jnp.ones(A.shape[0]) / jnp.sqrt(A.shape[0])\n"
                "    for _ in range(steps):\n"
                "        v = A @ v / jnp.sqrt(jnp.sum((A @ v) ** 2))\n"
                "    return jnp.dot(v, A @ v)\n",
            },
            "loses": {"test_eigen_structure"},
        },
        # Correct, written another way: lecture 6's double where instead of a custom_jvp rule (0 at 0, in
        # both modes); the bounds as ordinary arguments saved as residuals, with None as their cotangents.
        "alternatives_double_where_residual_bounds": {
            "answers": {
                "safe_norm": "def safe_norm(x):\n"
                "    zero = jnp.all(x == 0)\n"
                "    safe_x = jnp.where(zero, jnp.ones_like(x), x)\n"
                "    return jnp.where(zero, 0.0, jnp.sqrt(jnp.sum(safe_x**2)))\n",
                "clip": "@jax.custom_vjp\n"
                "def clip_gradient(x, lo, hi):\n"
                "    return x\n\n\n"
                "def clip_gradient_fwd(x, lo, hi):\n"
                "    return x, (lo, hi)\n\n\n"
                "def clip_gradient_bwd(bounds, g):\n"
                "    lo, hi = bounds\n"
                "    return jnp.minimum(jnp.maximum(g, lo), hi), None, None\n\n\n"
                "clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)\n",
            },
            "loses": set(),
            "alternative": "a double where instead of a custom_jvp rule; the bounds saved as residuals instead of nondiff_argnums",
        },
        # Correct, another way: jax.checkpoint with its default policy, made once; the steps in a lax.scan.
        "alternatives_default_checkpoint_scan": {
            "answers": {
                "remat": "block_remat = jax.checkpoint(block)\n",
                "eigen": "def top_eigenvalue(A, steps):\n"
                "    def step(v, _):\n"
                "        w = A @ v\n"
                "        return w / jnp.sqrt(jnp.sum(w * w)), None\n\n"
                "    v, _ = jax.lax.scan(step, jnp.full(A.shape[0], 1 / np.sqrt(A.shape[0]), A.dtype), length=steps)\n"
                "    return jnp.dot(v, A @ v)\n",
            },
            "loses": set(),
            "alternative": "jax.checkpoint's default policy; lax.scan instead of fori_loop",
        },
    },
    "12_control_flow": {
        # Bypass: NumPy does the loop: the right numbers, but nothing JAX can trace, jit, vmap or grad.
        "rnn_numpy": {
            "answers": {
                "rnn": "def rnn(params, h0, xs):\n"
                "    W, U, b = (np.asarray(params[name]) for name in ('W', 'U', 'b'))\n"
                "    h, hs = np.asarray(h0), []\n"
                "    for x in np.asarray(xs):\n"
                "        h = np.tanh(h @ W + x @ U + b)\n"
                "        hs.append(h)\n"
                "    return h, np.stack(hs)\n",
            },
            "loses": {"test_rnn", "test_rnn_structure"},
            "bypass": "lax.scan: a loop JAX traces, so jit, vmap and grad apply",
        },
        # Bypass: a Python loop under jit: right values, unrolled into one copy of the step per time step.
        "rnn_unrolled_under_jit": {
            "answers": {
                "rnn": "@jax.jit\n"
                "def rnn(params, h0, xs):\n"
                "    h, hs = h0, []\n"
                "    for t in range(xs.shape[0]):\n"
                "        h = jnp.tanh(h @ params['W'] + xs[t] @ params['U'] + params['b'])\n"
                "        hs.append(h)\n"
                "    return h, jnp.stack(hs)\n",
            },
            "loses": {"test_rnn_structure"},
            "bypass": "lax.scan: one step in the program whatever the length",
        },
        # Stacks the state each step starts from, h_0 ... h_{T-1}, not the one it computes.
        "rnn_stacks_previous_state": {
            "answers": {
                "rnn": "def rnn(params, h0, xs):\n"
                "    def step(h, x):\n"
                "        return jnp.tanh(h @ params['W'] + x @ params['U'] + params['b']), h\n\n"
                "    return lax.scan(step, h0, xs)\n",
            },
            "loses": {"test_rnn", "test_rnn_structure"},
        },
        # Bypass: the sequential scan: right values, but n steps one after another.
        "recurrence_scan": {
            "answers": {
                "recurrence": "def linear_recurrence(a, b):\n"
                "    def step(h, ab):\n"
                "        h = ab[0] * h + ab[1]\n"
                "        return h, h\n\n"
                "    return lax.scan(step, jnp.zeros((), b.dtype), (a, b))[1]\n",
            },
            "loses": {"test_recurrence_depth"},
            "bypass": "lax.associative_scan: O(log n) rounds, not a sequential scan",
        },
        "recurrence_fori_loop": {
            "answers": {
                "recurrence": "def linear_recurrence(a, b):\n"
                "    def step(t, h):\n"
                "        previous = jnp.where(t > 0, h[t - 1], 0.0)\n"
                "        return h.at[t].set(a[t] * previous + b[t])\n\n"
                "    return lax.fori_loop(0, a.shape[0], step, jnp.zeros_like(b))\n",
            },
            "loses": {"test_recurrence_depth"},
        },
        # Bypass: a closed form from library one-liners: h_t = P_t * cumsum(b / P)_t with P = cumprod(a).
        # Depth O(1), but the running product underflows to 0 within a few hundred steps.
        "recurrence_cumprod": {
            "answers": {
                "recurrence": "def linear_recurrence(a, b):\n"
                "    P = jnp.cumprod(a)\n"
                "    return P * jnp.cumsum(b / P)\n",
            },
            "loses": {"test_recurrence", "test_recurrence_depth"},
            "bypass": "pairs (a, b) combined by an associative operator, not a closed form through a running product",
        },
        # The maps composed in the wrong order: h_t = a_t * (b-part) mixed up.
        "recurrence_wrong_order": {
            "answers": {
                "recurrence": "def linear_recurrence(a, b):\n"
                "    def compose(first, then):\n"
                "        a1, b1 = first\n"
                "        a2, b2 = then\n"
                "        return a1 * a2, a1 * b2 + b1\n\n"
                "    return lax.associative_scan(compose, (a, b))[1]\n",
            },
            "loses": {"test_recurrence", "test_recurrence_depth"},
        },
        # Bypass: Python `if` on each element's kind: right values eagerly, but it cannot be traced.
        "activate_python_if": {
            "answers": {
                "activate": "def activate_all(xs, kinds):\n"
                "    out = []\n"
                "    for x, k in zip(xs, kinds):\n"
                "        if k == 0:\n"
                "            out.append(jnp.maximum(x, 0.0))\n"
                "        elif k == 1:\n"
                "            out.append(jnp.tanh(x))\n"
                "        else:\n"
                "            out.append(x / (1.0 + jnp.abs(x)))\n"
                "    return jnp.stack(out)\n",
            },
            "loses": {"test_activate"},
            "bypass": "one program for the batch: lax.switch under vmap, or jnp.where",
        },
        # Traceable, but a Python loop over the batch: one switch per element, a program that grows with n.
        "activate_switch_loop": {
            "answers": {
                "activate": "def activate_all(xs, kinds):\n"
                "    branches = [lambda x: jnp.maximum(x, 0.0), jnp.tanh, lambda x: x / (1.0 + jnp.abs(x))]\n"
                "    return jnp.stack([lax.switch(kinds[i], branches, xs[i]) for i in range(xs.shape[0])])\n",
            },
            "loses": {"test_activate"},
        },
        "activate_branches_swapped": {
            "answers": {
                "activate": "def activate_all(xs, kinds):\n"
                "    branches = [lambda x: jnp.maximum(x, 0.0), lambda x: x / (1.0 + jnp.abs(x)), jnp.tanh]\n"
                "    return jax.vmap(lambda x, k: lax.switch(k, branches, x))(xs, kinds)\n",
            },
            "loses": {"test_activate"},
        },
        # Passes the visible test, whose kinds cycle 0, 1, 2, by assuming they always do: the hidden test catches it.
        "activate_hardcoded": {
            "answers": {
                "activate": "def activate_all(xs, kinds):\n"
                "    kinds = jnp.arange(xs.shape[0]) % 3\n"
                "    return jnp.where(kinds == 0, jnp.maximum(xs, 0.0), jnp.where(kinds == 1, jnp.tanh(xs), xs / (1.0 + jnp.abs(xs))))\n",
            },
            "loses": {"test_activate"},
        },
        # Bypass: a Python `while` on the value: it cannot be traced, so it fails under vmap.
        "collatz_python_while": {
            "answers": {
                "collatz": "def collatz_steps(n):\n"
                "    count = 0\n"
                "    while n != 1:\n"
                "        n = n // 2 if n % 2 == 0 else 3 * n + 1\n"
                "        count += 1\n"
                "    return jnp.int32(count)\n",
            },
            "loses": {"test_collatz"},
            "bypass": "lax.while_loop: a loop of data-dependent length, under vmap",
        },
        # Bypass: a fixed number of steps, large enough, with finished elements frozen: right counts, but
        # every element pays for the longest count anyone could need, and no while_loop.
        "collatz_fixed_steps": {
            "answers": {
                "collatz": "def collatz_steps(n):\n"
                "    def step(i, state):\n"
                "        m, count = state\n"
                "        done = m == 1\n"
                "        return jnp.where(done, m, jnp.where(m % 2 == 0, m // 2, 3 * m + 1)), count + jnp.where(done, 0, 1)\n\n"
                "    return lax.fori_loop(0, 300, step, (n, jnp.zeros_like(n)))[1]\n",
            },
            "loses": {"test_collatz"},
            "bypass": "lax.while_loop that stops when each element is done, not a fixed number of steps",
        },
        # Counts the numbers visited, not the steps between them.
        "collatz_counts_one_extra": {
            "answers": {
                "collatz": "def collatz_steps(n):\n"
                "    def step(state):\n"
                "        m, count = state\n"
                "        return jnp.where(m % 2 == 0, m // 2, 3 * m + 1), count + 1\n\n"
                "    return lax.while_loop(lambda state: state[0] != 1, step, (n, jnp.ones_like(n)))[1]\n",
            },
            "loses": {"test_collatz"},
        },
        # Correct, written another way: the states written into a buffer by fori_loop; the kinds picked
        # by nested jnp.where (every activation computed for every element, then selected).
        "alternatives_fori_buffer_where": {
            "answers": {
                "rnn": "def rnn(params, h0, xs):\n"
                "    def step(t, state):\n"
                "        h, hs = state\n"
                "        h = jnp.tanh(h @ params['W'] + xs[t] @ params['U'] + params['b'])\n"
                "        return h, hs.at[t].set(h)\n\n"
                "    hs = jnp.zeros((xs.shape[0], h0.shape[0]), h0.dtype)\n"
                "    return lax.fori_loop(0, xs.shape[0], step, (h0, hs))\n",
                "activate": "def activate_all(xs, kinds):\n"
                "    return jnp.where(kinds == 0, jnp.maximum(xs, 0.0),\n"
                "                     jnp.where(kinds == 1, jnp.tanh(xs), xs / (1.0 + jnp.abs(xs))))\n",
            },
            "loses": set(),
            "alternative": "fori_loop writing into a buffer instead of scan; nested jnp.where instead of lax.switch",
        },
        # Correct, another way: the maps as a stacked array of pairs; Collatz with lax.cond in the body.
        "alternatives_stacked_pairs_cond": {
            "answers": {
                "recurrence": "def linear_recurrence(a, b):\n"
                "    def compose(first, then):\n"
                "        return jnp.stack([then[0] * first[0], then[0] * first[1] + then[1]])\n\n"
                "    return lax.associative_scan(compose, jnp.stack([a, b]), axis=1)[1]\n",
                "collatz": "def collatz_steps(n):\n"
                "    def step(state):\n"
                "        m, count = state\n"
                "        m = lax.cond(m % 2 == 0, lambda m: m // 2, lambda m: 3 * m + 1, m)\n"
                "        return m, count + 1\n\n"
                "    return lax.while_loop(lambda state: state[0] > 1, step, (n, jnp.int32(0)))[1]\n",
            },
            "loses": set(),
            "alternative": "the pairs stacked in one array; lax.cond in the while body instead of jnp.where",
        },
    },
    "13_debugging": {
        # Bypass: a Python if on the id: fine on a concrete number, a TracerBoolConversionError under jit.
        "lookup_python_if": {
            "answers": {
                "checked_lookup": "def checked_lookup(table, ids):\n"
                "    if jnp.any(ids < 0) or jnp.any(ids >= table.shape[0]):\n"
                "        raise IndexError(f'bad id in {ids}')\n"
                "    return checkify.checkify(lookup)(table, ids)\n",
            },
            "loses": {"test_checked_lookup"},
            "bypass": "checkify under jit: an error value that names the bad id",
        },
        # Bypass: clamping the ids: every lookup succeeds, silently, and no error names the bad id.
        "lookup_clamps": {
            "answers": {
                "checked_lookup": "checked_lookup = checkify.checkify(lambda table, ids: lookup(table, jnp.clip(ids, 0, table.shape[0] - 1)),\n"
                "                                  errors=checkify.index_checks)\n",
            },
            "loses": {"test_checked_lookup"},
            "bypass": "checkify under jit: an error value that names the bad id",
        },
        # checkify's index checks alone: a negative id is valid NumPy indexing, so it goes unreported.
        "lookup_index_checks_only": {
            "answers": {"checked_lookup": "checked_lookup = checkify.checkify(lookup, errors=checkify.index_checks)\n"},
            "loses": {"test_checked_lookup"},
        },
        # Bypass: no checkify; a pytree of its own with a get() method, built from jnp under jit.
        "lookup_own_error_class": {
            "answers": {
                "checked_lookup": "@jax.tree_util.register_pytree_node_class\n"
                "class BadId:\n"
                "    def __init__(self, found, bad):\n"
                "        self.found, self.bad = found, bad\n\n"
                "    def get(self):\n"
                "        return f'bad id {int(self.bad)}' if bool(self.found) else None\n\n"
                "    def tree_flatten(self):\n"
                "        return (self.found, self.bad), None\n\n"
                "    @classmethod\n"
                "    def tree_unflatten(cls, aux, children):\n"
                "        return cls(*children)\n\n\n"
                "def checked_lookup(table, ids):\n"
                "    wrong = (ids < 0) | (ids >= table.shape[0])\n"
                "    return BadId(jnp.any(wrong), ids[jnp.argmax(wrong)]), lookup(table, ids)\n",
            },
            "loses": {"test_checked_lookup"},
            "bypass": "checkify's checks and its Error, not an error object of one's own",
        },
        # Bypass: checkify's NaN checks name the same primitive, with jax_debug_nans never on; with the flag
        # already on when it is called, checkify fails inside JAX.
        "nan_checkify": {
            "answers": {
                "nan_source": "def nan_source(f, *args):\n"
                "    error, _ = checkify.checkify(f, errors=checkify.nan_checks)(*args)\n"
                "    message = error.get()\n"
                "    if message is None:\n"
                "        return None\n"
                "    found = re.search(r'primitive: (\\w+)', message)\n"
                "    return found.group(1) if found else message\n",
            },
            "loses": {"test_nan_source", "test_nan_flags"},
            "bypass": "jax_debug_nans, not checkify's nan_checks",
        },
        # Bypass: guessing from the program instead of running it: the first operation that could make a NaN.
        # It runs f with the flag as it finds it, so with the flag on it raises instead of answering.
        "nan_first_risky_primitive": {
            "answers": {
                "nan_source": "def nan_source(f, *args):\n"
                "    if not np.isnan(np.asarray(f(*args))).any():\n"
                "        return None\n"
                "    risky = ('log', 'log1p', 'sqrt', 'div', 'acos', 'asin', 'pow')\n"
                "    eqns = jax.make_jaxpr(f)(*args).jaxpr.eqns\n"
                "    while eqns and eqns[0].primitive.name not in risky and 'jaxpr' not in eqns[0].params:\n"
                "        eqns = eqns[1:]\n"
                "    if eqns and 'jaxpr' in eqns[0].params:\n"
                "        eqns = eqns[0].params['jaxpr'].jaxpr.eqns + eqns[1:]\n"
                "    names = [e.primitive.name for e in eqns if e.primitive.name in risky]\n"
                "    return names[0] if names else None\n",
            },
            "loses": {"test_nan_source", "test_nan_flags"},
            "bypass": "the primitive that made the first NaN, found by running with jax_debug_nans",
        },
        # Turns the flag on and leaves it on.
        "nan_flag_left_on": {
            "answers": {
                "nan_source": "def nan_source(f, *args):\n"
                "    jax.config.update('jax_debug_nans', True)\n"
                "    try:\n"
                "        jax.block_until_ready(f(*args))\n"
                "    except FloatingPointError as error:\n"
                "        return re.search(r'encountered in (\\w+)', str(error)).group(1)\n"
                "    return None\n",
            },
            "loses": {"test_nan_flags"},
        },
        # Bypass: turns it off afterwards, assuming it was off: a caller who had it on loses it.
        "nan_flag_forced_off": {
            "answers": {
                "nan_source": "def nan_source(f, *args):\n"
                "    jax.config.update('jax_debug_nans', True)\n"
                "    try:\n"
                "        jax.block_until_ready(f(*args))\n"
                "    except FloatingPointError as error:\n"
                "        return re.search(r'encountered in (\\w+)', str(error)).group(1)\n"
                "    finally:\n"
                "        jax.config.update('jax_debug_nans', False)\n"
                "    return None\n",
            },
            "loses": {"test_nan_flags"},
            "bypass": "the flag as the caller left it, on or off",
        },
        # Bypass: the name the visible test's trace gives on this machine, typed in.
        "hottest_hardcoded": {
            "answers": {"hottest_op": "def hottest_op(f, *args):\n    return 'ynn_fusion.1'\n"},
            "loses": {"test_hottest_op"},
            "bypass": "the operation with the most time, read from a recorded trace",
        },
        # Bypass: no trace at all; the program's text, with the names the failure messages taught. Both hidden
        # programs hold the same two kinds of work, each the big one in one of them: one answer fits only one.
        "hottest_from_the_jaxpr": {
            "answers": {
                "hottest_op": "def hottest_op(f, *args):\n"
                "    text = str(jax.make_jaxpr(f)(*args))\n"
                "    for primitive, op in (('sort', 'sort'), ('conv_general_dilated', 'convolution'), ('dot_general', 'ynn_fusion')):\n"
                "        if primitive in text:\n"
                "            return op\n"
                "    return 'ynn_fusion'\n",
            },
            "loses": {"test_hottest_op"},
            "bypass": "the operation with the most time, read from a recorded trace, not guessed from the program's text",
        },
        # Reads only the line of the Python thread that called f: the device's operations run on other lines (threads),
        # so it names a host event in every run, whatever the timing.
        "hottest_python_thread": {
            "answers": {
                "hottest_op": "def hottest_op(f, *args):\n"
                "    jitted = jax.jit(f)\n"
                "    jax.block_until_ready(jitted(*args))\n"
                "    with tempfile.TemporaryDirectory() as folder:\n"
                "        with jax.profiler.trace(folder):\n"
                "            for _ in range(3):\n"
                "                jax.block_until_ready(jitted(*args))\n"
                "        (path,) = pathlib.Path(folder).rglob('*.xplane.pb')\n"
                "        data = jax.profiler.ProfileData.from_file(str(path))\n"
                "        totals = Counter()\n"
                "        for plane in data.planes:\n"
                "            for line in plane.lines:\n"
                "                if line.name != 'python':\n"
                "                    continue\n"
                "                for event in line.events:\n"
                "                    totals[event.name] += event.duration_ns\n"
                "    return totals.most_common(1)[0][0]\n",
            },
            "loses": {"test_hottest_op"},
        },
        # Bypass: a Python side effect: it runs once, while JAX traces, and logs a tracer.
        "hook_python_append": {
            "answers": {
                "hook": "def make_hook():\n"
                "    log = []\n\n"
                "    def hook(i, x):\n"
                "        log.append(x)\n\n"
                "    return hook, log\n",
            },
            "loses": {"test_hook"},
            "bypass": "jax.debug.callback: a value from every step of a compiled loop",
        },
        # pure_callback's result is unused, so the compiler drops the call: nothing is logged.
        "hook_pure_callback": {
            "answers": {
                "hook": "def make_hook():\n"
                "    log = []\n\n"
                "    def record(x):\n"
                "        log.append(np.asarray(x))\n"
                "        return np.asarray(x)\n\n"
                "    def hook(i, x):\n"
                "        jax.pure_callback(record, jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n\n"
                "    return hook, log\n",
            },
            "loses": {"test_hook"},
        },
        # Correct, written another way: jit around checkify; the flag saved and restored by hand; the JSON
        # trace (create_perfetto_trace) read instead of the XSpace; an unordered callback that files each value by its step.
        "alternatives_by_hand": {
            "answers": {
                "checked_lookup": "def lookup_with_checks(table, ids):\n"
                "    checkify.check(~jnp.any(ids < 0), 'lookup got the negative id {bad}', bad=jnp.min(ids))\n"
                "    return table[ids]\n\n\n"
                "checked_lookup = jax.jit(checkify.checkify(lookup_with_checks, errors=checkify.all_checks))\n",
                "nan_source": "def nan_source(f, *args):\n"
                "    before = jax.config.jax_debug_nans\n"
                "    jax.config.update('jax_debug_nans', True)\n"
                "    try:\n"
                "        f(*args).block_until_ready()\n"
                "        return None\n"
                "    except FloatingPointError as error:\n"
                "        return str(error).split()[-1]\n"
                "    finally:\n"
                "        jax.config.update('jax_debug_nans', before)\n",
                "hottest_op": "import gzip\nimport json\n\n\n"
                "def hottest_op(f, *args):\n"
                "    jitted = jax.jit(f)\n"
                "    jitted(*args).block_until_ready()\n"
                "    with tempfile.TemporaryDirectory() as folder:\n"
                "        jax.profiler.start_trace(folder, create_perfetto_trace=True)\n"
                "        for _ in range(4):\n"
                "            jitted(*args).block_until_ready()\n"
                "        jax.profiler.stop_trace()\n"
                "        (path,) = pathlib.Path(folder).rglob('perfetto_trace.json.gz')\n"
                "        events = json.loads(gzip.decompress(path.read_bytes()))['traceEvents']\n"
                "    totals = {}\n"
                "    for event in events:\n"
                "        op = (event.get('args') or {}).get('hlo_op')\n"
                "        if op and 'dur' in event:\n"
                "            totals[op] = totals.get(op, 0.0) + event['dur']\n"
                "    return max(totals, key=totals.get)\n",
                "hook": "def make_hook():\n"
                "    log, by_step = [], {}\n\n"
                "    def keep(i, x):\n"
                "        by_step[int(i)] = np.array(x)\n"
                "        log[:] = [by_step[k] for k in sorted(by_step)]\n\n"
                "    def hook(i, x):\n"
                "        jax.debug.callback(keep, i, x)\n\n"
                "    return hook, log\n",
            },
            "loses": set(),
            "alternative": "jit around checkify and all_checks; the flag restored by hand; the Perfetto JSON trace; "
            "an unordered callback filed by step",
        },
    },
    "14_ecosystem": {
        # The convolutions without their biases: two parameters missing.
        "cnn_no_bias": {
            "answers": {
                "cnn": "class TinyCNN(nnx.Module):\n"
                "    def __init__(self, channels, classes, *, rngs):\n"
                "        self.conv1 = nnx.Conv(1, channels, (3, 3), use_bias=False, rngs=rngs)\n"
                "        self.conv2 = nnx.Conv(channels, 2 * channels, (3, 3), use_bias=False, rngs=rngs)\n"
                "        self.head = nnx.Linear(4 * 4 * 2 * channels, classes, rngs=rngs)\n\n"
                "    def __call__(self, x):\n"
                "        x = jax.nn.relu(self.conv1(x))\n"
                "        x = jax.nn.relu(self.conv2(x))\n"
                "        x = nnx.avg_pool(x, (2, 2), strides=(2, 2))\n"
                "        return self.head(x.reshape(x.shape[0], -1))\n",
            },
            "loses": {"test_cnn"},
        },
        # The head created first: it draws the first key from rngs, so every layer gets another key.
        "cnn_rngs_order": {
            "answers": {
                "cnn": "class TinyCNN(nnx.Module):\n"
                "    def __init__(self, channels, classes, *, rngs):\n"
                "        self.head = nnx.Linear(4 * 4 * 2 * channels, classes, rngs=rngs)\n"
                "        self.conv1 = nnx.Conv(1, channels, (3, 3), rngs=rngs)\n"
                "        self.conv2 = nnx.Conv(channels, 2 * channels, (3, 3), rngs=rngs)\n\n"
                "    def __call__(self, x):\n"
                "        x = jax.nn.relu(self.conv1(x))\n"
                "        x = jax.nn.relu(self.conv2(x))\n"
                "        x = nnx.avg_pool(x, (2, 2), strides=(2, 2))\n"
                "        return self.head(x.reshape(x.shape[0], -1))\n",
            },
            "loses": {"test_cnn"},
        },
        # Bypass: a pure-JAX function with the same initialisers and keys: the right logits, but no
        # nnx.Module, so nothing of Flax's (nnx.state, nnx.Optimizer, checkpoints of its state) applies.
        "cnn_pure_jax": {
            "answers": {
                "cnn": "def TinyCNN(channels, classes, *, rngs):\n"
                "    init = jax.nn.initializers.lecun_normal()\n"
                "    k1 = init(rngs.params(), (3, 3, 1, channels))\n"
                "    k2 = init(rngs.params(), (3, 3, channels, 2 * channels))\n"
                "    k3 = init(rngs.params(), (32 * channels, classes))\n\n"
                "    def conv(x, k):\n"
                "        return jax.lax.conv_general_dilated(x, k, (1, 1), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))\n\n"
                "    def model(x):\n"
                "        x = jax.nn.relu(conv(jax.nn.relu(conv(x, k1)), k2))\n"
                "        x = jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1), 'VALID') / 4\n"
                "        return x.reshape(x.shape[0], -1) @ k3\n\n"
                "    return model\n",
            },
            "loses": {"test_cnn"},
            "bypass": "an nnx.Module whose layers own nnx.Params, not a closure over arrays",
        },
        # Clipping after AdamW clips the updates, which are small anyway: the gradients reach Adam unclipped.
        "optimizer_clip_after_adam": {
            "answers": {
                "optimizer": "def make_optimizer(peak_value, total_steps):\n"
                "    schedule = optax.warmup_cosine_decay_schedule(0.0, peak_value, total_steps // 10, total_steps)\n"
                "    return optax.chain(optax.adamw(schedule, weight_decay=1e-2), optax.clip_by_global_norm(1.0))\n",
            },
            "loses": {"test_optimizer"},
        },
        # AdamW without its weight decay: Adam.
        "optimizer_no_weight_decay": {
            "answers": {
                "optimizer": "def make_optimizer(peak_value, total_steps):\n"
                "    schedule = optax.warmup_cosine_decay_schedule(0.0, peak_value, total_steps // 10, total_steps)\n"
                "    return optax.chain(optax.clip_by_global_norm(1.0), optax.adam(schedule))\n",
            },
            "loses": {"test_optimizer"},
        },
        # Bypass: AdamW written by hand inside a GradientTransformation, state and all: it is not Optax's.
        "optimizer_hand_written": {
            "answers": {
                "optimizer": "def make_optimizer(peak_value, total_steps):\n"
                "    schedule = optax.warmup_cosine_decay_schedule(0.0, peak_value, total_steps // 10, total_steps)\n\n"
                "    def init(params):\n"
                "        zeros = jax.tree.map(jnp.zeros_like, params)\n"
                "        return {'m': zeros, 'v': zeros, 't': jnp.zeros((), jnp.int32)}\n\n"
                "    def update(grads, state, params):\n"
                "        norm = optax.global_norm(grads)\n"
                "        grads = jax.tree.map(lambda g: g * jnp.minimum(1.0, 1.0 / norm), grads)\n"
                "        t = state['t'] + 1\n"
                "        m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, state['m'], grads)\n"
                "        v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, state['v'], grads)\n"
                "        rate = schedule(t - 1)\n"
                "        updates = jax.tree.map(lambda m, v, p: -rate * ((m / (1 - 0.9**t)) / (jnp.sqrt(v / (1 - 0.999**t)) + 1e-8) + 1e-2 * p),\n"
                "                               m, v, params)\n"
                "        return updates, {'m': m, 'v': v, 't': t}\n\n"
                "    return optax.GradientTransformation(init, update)\n",
            },
            "loses": {"test_optimizer"},
            "bypass": "Optax's transformations composed with optax.chain, not Adam written by hand",
        },
        # Bypass: no jit: right losses, but every operation of every step dispatched (and compiled) on its own.
        "train_step_not_jitted": {
            "answers": {
                "train_step": "def loss_fn(model, X, y):\n"
                "    return optax.softmax_cross_entropy_with_integer_labels(model(X), y).mean()\n\n\n"
                "def train_step(model, optimizer, X, y):\n"
                "    loss, grads = nnx.value_and_grad(loss_fn)(model, X, y)\n"
                "    optimizer.update(model, grads)\n"
                "    return loss\n",
            },
            "loses": {"test_train_step"},
            "bypass": "nnx.jit: the whole step compiled once, not operation by operation",
        },
        # A new jitted function on every call: the right losses, and a compilation per step.
        "train_step_jit_every_call": {
            "answers": {
                "train_step": "def train_step(model, optimizer, X, y):\n"
                "    def step(model, optimizer, X, y):\n"
                "        loss, grads = nnx.value_and_grad(lambda m: optax.softmax_cross_entropy_with_integer_labels(m(X), y).mean())(model)\n"
                "        optimizer.update(model, grads)\n"
                "        return loss\n\n"
                "    return nnx.jit(step)(model, optimizer, X, y)\n",
            },
            "loses": {"test_train_step"},
        },
        # The gradient is computed and dropped: the model never changes, so the loss never goes down.
        "train_step_no_update": {
            "answers": {
                "train_step": "@nnx.jit\n"
                "def train_step(model, optimizer, X, y):\n"
                "    loss, grads = nnx.value_and_grad(lambda m: optax.softmax_cross_entropy_with_integer_labels(m(X), y).mean())(model)\n"
                "    return loss\n",
            },
            "loses": {"test_train_step"},
        },
        # jax.jit instead of nnx.jit: the step gets copies of the model and optimizer, and the update is lost.
        "train_step_jax_jit": {
            "answers": {
                "train_step": "def loss_fn(model, X, y):\n"
                "    return optax.softmax_cross_entropy_with_integer_labels(model(X), y).mean()\n\n\n"
                "@jax.jit\n"
                "def train_step(model, optimizer, X, y):\n"
                "    loss, grads = nnx.value_and_grad(loss_fn)(model, X, y)\n"
                "    optimizer.update(model, grads)\n"
                "    return loss\n",
            },
            "loses": {"test_train_step"},
        },
        # Only the parameters saved: BatchNorm's running statistics come back as make_model()'s fresh ones.
        "checkpoint_params_only": {
            "answers": {
                "checkpoint": "def save_checkpoint(model, directory):\n"
                "    checkpointer = ocp.StandardCheckpointer()\n"
                "    checkpointer.save(directory, nnx.state(model, nnx.Param))\n"
                "    checkpointer.wait_until_finished()\n\n\n"
                "def restore_checkpoint(directory, make_model):\n"
                "    model = make_model()\n"
                "    nnx.update(model, ocp.StandardCheckpointer().restore(directory, nnx.state(model, nnx.Param)))\n"
                "    return model\n",
            },
            "loses": {"test_checkpoint"},
        },
        # Restores the values, then returns make_model()'s own: restore returns a new state, it changes no model.
        "checkpoint_restore_dropped": {
            "answers": {
                "checkpoint": "def save_checkpoint(model, directory):\n"
                "    checkpointer = ocp.StandardCheckpointer()\n"
                "    checkpointer.save(directory, nnx.state(model))\n"
                "    checkpointer.wait_until_finished()\n\n\n"
                "def restore_checkpoint(directory, make_model):\n"
                "    model = make_model()\n"
                "    ocp.StandardCheckpointer().restore(directory, nnx.state(model))\n"
                "    return model\n",
            },
            "loses": {"test_checkpoint"},
        },
        # Bypass: the state's arrays in a NumPy .npz file instead of an Orbax checkpoint: identical predictions,
        # but a file only this code can read (no structure, no sharding, no asynchronous or partial restore).
        "checkpoint_numpy": {
            "answers": {
                "checkpoint": "def save_checkpoint(model, directory):\n"
                "    Path(directory).mkdir(parents=True)\n"
                "    np.savez(Path(directory) / 'state.npz', *[np.asarray(leaf) for leaf in jax.tree.leaves(nnx.state(model))])\n\n\n"
                "def restore_checkpoint(directory, make_model):\n"
                "    graphdef, state = nnx.split(make_model())\n"
                "    saved = np.load(Path(directory) / 'state.npz')\n"
                "    leaves = [jnp.asarray(saved[f'arr_{i}']) for i in range(len(saved.files))]\n"
                "    return nnx.merge(graphdef, jax.tree.unflatten(jax.tree.structure(state), leaves))\n",
            },
            "loses": {"test_checkpoint"},
            "bypass": "Orbax's checkpoint format, not the arrays in a NumPy file",
        },
        # Bypass: a real checkpoint is written, but restore returns a copy kept in memory, keyed by the folder.
        "checkpoint_kept_in_memory": {
            "answers": {
                "checkpoint": "saved = {}\n\n\n"
                "def save_checkpoint(model, directory):\n"
                "    checkpointer = ocp.StandardCheckpointer()\n"
                "    checkpointer.save(directory, nnx.state(model))\n"
                "    checkpointer.wait_until_finished()\n"
                "    saved[str(directory)] = nnx.clone(model)\n\n\n"
                "def restore_checkpoint(directory, make_model):\n"
                "    return nnx.clone(saved[str(directory)])\n",
            },
            "loses": {"test_checkpoint"},
            "bypass": "restoring reads the checkpoint's files",
        },
        # Images and labels shuffled with two different orders: every label lands on another image.
        "fit_labels_shuffled": {
            "answers": {
                "fit": _fit(
                    epochs="    for epoch in range(epochs):\n"
                    "        key_X, key_y = jax.random.split(jax.random.fold_in(key, epoch))\n"
                    "        rows_X = np.asarray(jax.random.permutation(key_X, len(X)))[: len(X) // 32 * 32].reshape(-1, 32)\n"
                    "        rows_y = np.asarray(jax.random.permutation(key_y, len(X)))[: len(X) // 32 * 32].reshape(-1, 32)\n"
                    "        history.append(float(jnp.mean(jnp.stack([step(model, optimizer, X[a], y[b]) for a, b in zip(rows_X, rows_y)]))))\n"
                ),
            },
            "loses": {"test_fit"},
        },
        # Trains on the notebook's X_train and y_train, not on the X and y it is given: it passes the visible
        # test, which passes those very arrays; the hidden test, with the labels renamed, catches it.
        "fit_hardcoded": {
            "answers": {
                "fit": _fit(before="    X, y = X_train, y_train\n"),
            },
            "loses": {"test_fit"},
        },
        # Bypass: trains on all 1797 digits with their own labels, test images included, instead of the data
        # it is given: above the floor on the visible test, and near zero when the hidden test renames the labels.
        "fit_all_digits": {
            "answers": {
                "fit": _fit(
                    before="    X = (load_digits().images / 16.0).astype(np.float32)[..., None]\n"
                    "    y = load_digits().target.astype(np.int32)\n"
                ),
            },
            "loses": {"test_fit"},
            "bypass": "learning from the images and labels fit is given, not from the whole data set",
        },
        # Bypass: one order drawn from the key, then the same minibatches in every epoch.
        "fit_same_order": {
            "answers": {
                "fit": _fit(
                    epochs="    rows = np.asarray(jax.random.permutation(key, len(X)))[: len(X) // 32 * 32].reshape(-1, 32)\n"
                    "    for epoch in range(epochs):\n"
                    "        history.append(float(jnp.mean(jnp.stack([step(model, optimizer, X[r], y[r]) for r in rows]))))\n"
                ),
            },
            "loses": {"test_fit"},
            "bypass": "a new order of the data in every epoch",
        },
        # Bypass: scikit-learn's MLPClassifier learns, and its weights are copied into the model; no Optax step.
        "fit_sklearn_weights": {
            "answers": {
                "fit": "def fit(model, X, y, *, epochs, key):\n"
                "    from sklearn.neural_network import MLPClassifier\n\n"
                "    hidden = model.hidden.out_features\n"
                "    learned = MLPClassifier((hidden,), max_iter=300, random_state=0).fit(X.reshape(len(X), -1), y)\n"
                "    model.hidden.kernel.value = jnp.asarray(learned.coefs_[0], jnp.float32)\n"
                "    model.hidden.bias.value = jnp.asarray(learned.intercepts_[0], jnp.float32)\n"
                "    model.out.kernel.value = jnp.asarray(learned.coefs_[1], jnp.float32)\n"
                "    model.out.bias.value = jnp.asarray(learned.intercepts_[1], jnp.float32)\n"
                "    return [float(learned.loss_)] * epochs\n",
            },
            "loses": {"test_fit"},
            "bypass": "training the model with an Optax optimiser, not copying another library's weights",
        },
        # A learning rate too small to learn in 5 epochs: the loss hardly falls.
        "fit_learning_rate_too_low": {
            "answers": {
                "fit": _fit(learning_rate="1e-6"),
            },
            "loses": {"test_fit"},
        },
        # Correct, written another way: nnx.Sequential; inject_hyperparams around adamw (its state nests Adam's);
        # a CheckpointManager (a numbered step folder) restoring into nnx.update.
        "alternatives_sequential_inject_manager": {
            "answers": {
                "cnn": "class TinyCNN(nnx.Module):\n"
                "    def __init__(self, channels, classes, *, rngs):\n"
                "        self.layers = nnx.Sequential(\n"
                "            nnx.Conv(1, channels, (3, 3), rngs=rngs), jax.nn.relu,\n"
                "            nnx.Conv(channels, 2 * channels, (3, 3), rngs=rngs), jax.nn.relu,\n"
                "            lambda x: nnx.avg_pool(x, (2, 2), strides=(2, 2)),\n"
                "            lambda x: x.reshape(x.shape[0], -1),\n"
                "            nnx.Linear(32 * channels, classes, rngs=rngs),\n"
                "        )\n\n"
                "    def __call__(self, x):\n"
                "        return self.layers(x)\n",
                "optimizer": "def make_optimizer(peak_value, total_steps):\n"
                "    schedule = optax.warmup_cosine_decay_schedule(init_value=0.0, peak_value=peak_value,\n"
                "                                                  warmup_steps=total_steps // 10, decay_steps=total_steps)\n"
                "    adamw = optax.inject_hyperparams(optax.adamw)(learning_rate=schedule, weight_decay=1e-2)\n"
                "    return optax.chain(optax.clip_by_global_norm(1.0), adamw)\n",
                "checkpoint": "def save_checkpoint(model, directory):\n"
                "    with ocp.CheckpointManager(Path(directory).absolute()) as manager:\n"
                "        manager.save(0, args=ocp.args.StandardSave(nnx.state(model)))\n"
                "        manager.wait_until_finished()\n\n\n"
                "def restore_checkpoint(directory, make_model):\n"
                "    model = make_model()\n"
                "    with ocp.CheckpointManager(Path(directory).absolute()) as manager:\n"
                "        state = manager.restore(manager.latest_step(), args=ocp.args.StandardRestore(nnx.state(model)))\n"
                "    nnx.update(model, state)\n"
                "    return model\n",
            },
            "loses": set(),
            "alternative": "nnx.Sequential instead of attributes; optax.inject_hyperparams around adamw; "
            "an Orbax CheckpointManager restoring into nnx.update",
        },
        # Correct, another way: the loss from log_softmax by hand; fit with AdamW, batches of 64 and its own loss.
        "alternatives_hand_loss_adamw_fit": {
            "answers": {
                "train_step": "@nnx.jit\n"
                "def train_step(model, optimizer, X, y):\n"
                "    def loss_fn(model):\n"
                "        log_probs = jax.nn.log_softmax(model(X))\n"
                "        return -jnp.mean(jnp.take_along_axis(log_probs, y[:, None], axis=1))\n\n"
                "    loss, grads = nnx.value_and_grad(loss_fn)(model)\n"
                "    optimizer.update(model, grads)\n"
                "    return loss\n",
                "fit": "def fit(model, X, y, *, epochs, key):\n"
                "    batch = 64\n"
                "    optimizer = nnx.Optimizer(model, optax.adamw(5e-3, weight_decay=1e-4), wrt=nnx.Param)\n"
                "    step = nnx.jit(lambda model, optimizer, X, y: optimizer.update(model, nnx.grad(\n"
                "        lambda m: optax.softmax_cross_entropy_with_integer_labels(m(X), y).mean())(model)))\n"
                "    loss = nnx.jit(lambda model, X, y: optax.softmax_cross_entropy_with_integer_labels(model(X), y).mean())\n"
                "    history = []\n"
                "    for epoch in range(epochs):\n"
                "        order = jax.random.permutation(jax.random.fold_in(key, epoch), len(X))\n"
                "        for start in range(0, len(X) - batch + 1, batch):\n"
                "            rows = np.asarray(order[start : start + batch])\n"
                "            step(model, optimizer, X[rows], y[rows])\n"
                "        history.append(float(loss(model, X, y)))\n"
                "    return history\n",
            },
            "loses": set(),
            "alternative": "the cross-entropy from log_softmax by hand; fit with AdamW, batches of 64, the loss per epoch "
            "measured on the whole training set",
        },
    },
}
