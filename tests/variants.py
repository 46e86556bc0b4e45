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
}
