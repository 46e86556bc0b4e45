"""Wrong answers a student might submit, and the tests each must fail.

Each variant starts from the reference answers and replaces some answer cells
(by grade_id). `loses` names every test cell that must score 0; all other test
cells must keep full points. Together they prove that each timed or structural
problem costs its points, and only its points, for the mistakes it targets.
"""

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
        # Correct but slow: the row loop itself.
        "pairwise_row_loop": {
            "answers": {
                "pairwise": "def pairwise_sq_dists(x, y):\n"
                "    return jnp.stack([jnp.sum((x[i] - y) ** 2, axis=1) for i in range(x.shape[0])])\n",
            },
            "loses": {"test_pairwise_speed"},
        },
        # Correct but slow: a new jitted function, so a compilation, on every call.
        "pairwise_jit_every_call": {
            "answers": {
                "pairwise": "def pairwise_sq_dists(x, y):\n"
                "    return jax.jit(lambda a, b: jnp.sum((a[:, None] - b[None]) ** 2, axis=-1))(x, y)\n",
            },
            "loses": {"test_pairwise_speed"},
        },
        # Right values, but NumPy: it cannot be traced or jitted.
        "softmax_numpy": {
            "answers": {
                "softmax": "def softmax(x):\n"
                "    e = np.exp(x - np.max(x, axis=-1, keepdims=True))\n"
                "    return e / np.sum(e, axis=-1, keepdims=True)\n",
            },
            "loses": {"test_softmax_stable"},
        },
        # Right values for moderate inputs, nan for large ones.
        "softmax_unstable": {
            "answers": {"softmax": "def softmax(x):\n    e = jnp.exp(x)\n    return e / jnp.sum(e, axis=-1, keepdims=True)\n"},
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
        # Right result, but the caller's params change under it.
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
        # Correct and fast, but a NumPy loop that JAX cannot trace.
        "recurrence_numpy_loop": {
            "answers": {
                "recurrence": "def recurrence(a0, a1, c1, c2, n):\n"
                "    a = np.zeros(n, dtype=np.float32)\n"
                "    a[0], a[1] = a0, a1\n"
                "    for i in range(2, n):\n"
                "        a[i] = c1 * a[i - 1] + c2 * a[i - 2]\n"
                "    return jnp.asarray(a)\n",
            },
            "loses": {"test_recurrence_structure"},
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
    },
    "03_tracing": {
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
        # The counter increment changes state, but stores no tracer.
        "leak_wrong_line": {
            "answers": {"leak": "LEAKING_LINE = 1\n"},
            "loses": {"test_leak"},
        },
    },
    "04_jit": {
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
        # Correct, but every new length compiles.
        "padded_plain_jit": {
            "answers": {"padded": "masked_energy = jax.jit(lambda x: jnp.sum(x ** 2))\n"},
            "loses": {"test_padded_compiles"},
        },
        # Pads to two sizes, but with eager jnp.pad, which compiles for every input shape.
        "padded_with_jnp_pad": {
            "answers": {
                "padded": "@jax.jit\n"
                "def _energy(padded):\n"
                "    return jnp.sum(padded ** 2)\n\n"
                "def masked_energy(x):\n"
                "    size = 16 if len(x) <= 16 else 64\n"
                "    return _energy(jnp.pad(jnp.asarray(x), (0, size - len(x))))\n",
            },
            "loses": {"test_padded_compiles"},
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
            "loses": {"test_gcd_structure"},
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
    },
    "05_vmap": {
        # Correct but slow: the row loop itself.
        "pairwise_row_loop": {
            "answers": {
                "pairwise": "def pairwise_cosine(X, Y):\n"
                "    return jnp.stack([(Y @ x) / (jnp.linalg.norm(Y, axis=1) * jnp.linalg.norm(x)) for x in X])\n",
            },
            "loses": {"test_pairwise_speed"},
        },
        # Correct, but a new jitted function, so a compilation, on every call.
        "pairwise_jit_every_call": {
            "answers": {
                "pairwise": "def pairwise_cosine(X, Y):\n"
                "    inner = jax.vmap(cosine, in_axes=(None, 0))\n"
                "    return jax.jit(jax.vmap(inner, in_axes=(0, None)))(X, Y)\n",
            },
            "loses": {"test_pairwise_speed"},
        },
        # Passes the visible test by returning its expected output: the hidden tests catch it.
        "scores_hardcoded": {
            "answers": {"scores": "def batch_scores(W, b, X):\n    return jnp.array([0.0, 0.0, np.tanh(2.0)], jnp.float32)\n"},
            "loses": {"test_scores"},
        },
        # Correct, but a Python loop over the batch, unrolled into the jaxpr.
        "scores_python_loop": {
            "answers": {"scores": "def batch_scores(W, b, X):\n    return jnp.stack([score(W, b, x) for x in X])\n"},
            "loses": {"test_scores_structure"},
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
        # The batch axis of the result is left first: shape (B, m) instead of (m, B).
        "columns_default_out_axes": {
            "answers": {
                "columns": "def affine_columns(W, Xcols, Bs):\n"
                "    return jax.vmap(affine_one, in_axes=(None, 1, 0))(W, Xcols, Bs)\n",
            },
            "loses": {"test_columns"},
        },
    },
}
