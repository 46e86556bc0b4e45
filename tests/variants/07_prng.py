"""Wrong answers to set 07_prng (see tests/variants/__init__.py)."""

VARIANTS = {
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
        "says": {
            "test_pi_reproducible": ["independently"],
            "test_pi_speed": ["independently"],
            "test_pi_statistics": ["same PRNG key more than once", "jax.random.split"],
        },
    },
    "pi_normal_points": {
        "answers": {
            "pi": "@functools.partial(jax.jit, static_argnames='n')\n"
            "def estimate_pi(key, n):\n"
            "    x, y = jax.random.normal(key, (2, n))\n"
            "    return 4.0 * jnp.mean(x * x + y * y <= 1.0)\n",
        },
        "loses": {"test_pi_reproducible", "test_pi_speed", "test_pi_statistics"},
        "says": ["uniformly from [0, 1)"],
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
        "says": ["different answers for the same key", "np.random"],
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
        "says": ["does not use its key"],
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
        "says": ["cannot be traced", "jnp twin"],
    },
    # Correct but slow: the baseline itself.
    "pi_python_loop": {
        "answers": {"pi": "def estimate_pi(key, n):\n    return estimate_pi_loop(key, n)\n"},
        "loses": {"test_pi_reproducible", "test_pi_speed"},
        "says": {"test_pi_reproducible": ["cannot be traced"], "test_pi_speed": ["draw all n points in one call"]},
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
        "says": ["a jax.jit created inside the function compiles on every call"],
    },
    # One key for every row: identical rows, and the key-reuse checker objects.
    "batch_same_key": {
        "answers": {
            "batch": "def sample_batch(key, batch, d):\n    return jnp.stack([jax.random.normal(key, (d,)) for _ in range(batch)])\n"
        },
        "loses": {"test_batch_independent", "test_batch_key_reuse"},
        "says": {
            "test_batch_independent": ["drawn with the same key"],
            "test_batch_key_reuse": ["same PRNG key more than once"],
        },
    },
    # fold_in with a constant does not consume the key, so only the rows give it away.
    "batch_fold_in_constant": {
        "answers": {
            "batch": "def sample_batch(key, batch, d):\n"
            "    return jax.vmap(lambda i: jax.random.normal(jax.random.fold_in(key, 0), (d,)))(jnp.arange(batch))\n",
        },
        "loses": {"test_batch_independent", "test_batch_key_reuse"},
        "says": {
            "test_batch_independent": ["drawn with the same key"],
            "test_batch_key_reuse": ["make the values right first"],
        },
    },
    # Bypass: one draw for the whole batch: independent rows, but no key per example.
    "batch_one_draw": {
        "answers": {"batch": "def sample_batch(key, batch, d):\n    return jax.random.normal(key, (batch, d))\n"},
        "loses": {"test_batch_independent", "test_batch_key_reuse"},
        "bypass": "a key per example (split, then vmap)",
        "says": {
            "test_batch_independent": ["jax.random.split(key, 4)[i]"],
            "test_batch_key_reuse": ["make the values right first"],
        },
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
        "says": {
            "test_batch_independent": ["jax.random.split(key, 4)[i]"],
            "test_batch_key_reuse": ["same PRNG key more than once", "never use a key again after splitting"],
        },
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
        "says": ["jax.random.split(key, 2)[1]"],
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
        "says": ["jax.random.split(key, 2)[1]"],
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
        "says": ["one draw per value"],
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
        "says": ["1 - rate"],
    },
    "dropout_no_rescale": {
        "answers": {
            "dropout": "def dropout(key, x, rate):\n    return jnp.where(jax.random.bernoulli(key, 1 - rate, x.shape), x, 0.0)\n"
        },
        "loses": {"test_dropout"},
        "says": ["divide the values you keep by 1 - rate"],
    },
    # Passes the visible test by returning its expected output: the hidden test catches it.
    "dropout_hardcoded": {
        "answers": {
            "dropout": "def dropout(key, x, rate):\n"
            "    return jnp.array([[0.0, 0.0, 12.0, 16.0], [20.0, 24.0, 28.0, 32.0]])\n"
        },
        "loses": {"test_dropout"},
        "says": ["hidden input"],
    },
    # The classic mistakes (issue #35): what each costs, and the words that name it.
    # A fresh seed from the clock, read while tracing: each compilation draws other points, so no result
    # can be reproduced; the check traces anew between calls, as a new session would.
    "pi_clock_at_trace": {
        "answers": {
            "pi": "import time\n\n\n"
            "@functools.partial(jax.jit, static_argnames='n')\n"
            "def estimate_pi(key, n):\n"
            "    key = jax.random.fold_in(key, time.time_ns() % 2**31)\n"
            "    x, y = jax.random.uniform(key, (2, n))\n"
            "    return 4.0 * jnp.mean(x * x + y * y <= 1.0)\n",
        },
        "loses": {"test_pi_reproducible", "test_pi_speed"},
        "says": ["different answers for the same key", "the clock"],
    },
    # The same, with np.random read while tracing.
    "pi_np_random_at_trace": {
        "answers": {
            "pi": "@functools.partial(jax.jit, static_argnames='n')\n"
            "def estimate_pi(key, n):\n"
            "    key = jax.random.fold_in(key, np.random.randint(2**31))\n"
            "    x, y = jax.random.uniform(key, (2, n))\n"
            "    return 4.0 * jnp.mean(x * x + y * y <= 1.0)\n",
        },
        "loses": {"test_pi_reproducible", "test_pi_speed"},
        "says": ["different answers for the same key", "np.random"],
    },
    # The parent key used again after splitting it: the first layer drawn from the key itself.
    "init_parent_key_after_split": {
        "answers": {
            "init": "def init_mlp(key, sizes):\n"
            "    keys = jax.random.split(key, len(sizes) - 1)\n"
            "    keys = [key, *keys[1:]]\n"
            "    return [{'W': jax.random.normal(k, (m, n)) * jnp.sqrt(2 / m), 'b': jnp.zeros(n)}\n"
            "            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]\n",
        },
        "loses": {"test_init"},
        "says": ["same PRNG key more than once", "never use a key again after splitting"],
    },
    # NumPy's habit: zero the dropped values in place. JAX arrays are immutable.
    "dropout_in_place": {
        "answers": {
            "dropout": "def dropout(key, x, rate):\n"
            "    keep = jax.random.bernoulli(key, 1 - rate, x.shape)\n"
            "    out = x / (1 - rate)\n"
            "    out[~keep] = 0.0\n"
            "    return out\n",
        },
        "loses": {"test_dropout"},
        "says": ["immutable", "x.at[i].set"],
    },
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # n traced by jit (no static_argnames): the shape of the draw is not known while tracing.
    "pi_n_traced": {
        "answers": {
            "pi": "@jax.jit\n"
            "def estimate_pi(key, n):\n"
            "    x, y = jax.random.uniform(key, (2, n))\n"
            "    return 4.0 * jnp.mean(x * x + y * y <= 1.0)\n",
        },
        "loses": {"test_pi_reproducible", "test_pi_statistics", "test_pi_speed"},
        "says": ["static_argnames", "Reread:"],
    },
    # All the keys handed to one draw: jax.random.normal takes a single key, vmap maps over many.
    "batch_keys_to_one_draw": {
        "answers": {
            "batch": "def sample_batch(key, batch, d):\n"
            "    keys = jax.random.split(key, batch)\n"
            "    return jax.random.normal(keys, (batch, d))\n",
        },
        "loses": {"test_batch_independent", "test_batch_key_reuse"},
        "says": ["single key", "jax.vmap", "Reread:"],
    },
    # The shape mapped too: vmap maps every argument along axis 0 unless in_axes says otherwise.
    "batch_vmap_maps_the_shape": {
        "answers": {
            "batch": "def sample_batch(key, batch, d):\n"
            "    keys = jax.random.split(key, batch)\n"
            "    return jax.vmap(jax.random.normal)(keys, (d,))\n",
        },
        "loses": {"test_batch_independent", "test_batch_key_reuse"},
        "says": ["in_axes", "Reread:"],
    },
    # NumPy's habit, np.random.randn(m, n): the shape given as two arguments, the second read as a dtype.
    "init_shape_as_two_arguments": {
        "answers": {
            "init": "def init_mlp(key, sizes):\n"
            "    keys = jax.random.split(key, len(sizes) - 1)\n"
            "    return [{'W': jax.random.normal(k, m, n) * jnp.sqrt(2 / m), 'b': jnp.zeros(n)}\n"
            "            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]\n",
        },
        "loses": {"test_init"},
        "says": ["jax.random.normal(k, (m, n))", "Reread:"],
    },
    # The array itself where bernoulli expects its shape.
    "dropout_array_as_shape": {
        "answers": {
            "dropout": "def dropout(key, x, rate):\n"
            "    keep = jax.random.bernoulli(key, 1 - rate, x)\n"
            "    return jnp.where(keep, x / (1 - rate), 0.0)\n",
        },
        "loses": {"test_dropout"},
        "says": ["x.shape", "Reread:"],
    },
    # Double precision switched on for the whole notebook (in the first answer cell), with the reference answers.
    # jax.random draws by dtype, so with x64 on a draw left to the default dtype is another stream, in float64: the
    # problems that must reproduce the course's draws from a key lose their points, each naming the setting; the
    # estimate of pi, judged within its standard error, keeps its.
    "x64_switched_on": {
        "answers": {
            "pi": (
                "jax.config.update('jax_enable_x64', True)\n"
                "\n"
                "\n"
                '@functools.partial(jax.jit, static_argnames="n")\n'
                "def estimate_pi(key, n):\n"
                "    x, y = jax.random.uniform(key, (2, n))\n"
                "    return 4.0 * jnp.mean(x * x + y * y <= 1.0)\n"
            ),
        },
        "setting": "jax_enable_x64",
        "loses": {"test_batch_independent", "test_batch_key_reuse", "test_init", "test_dropout"},
        "lost_in_the_verifier": {"test_batch_independent"},
        "says": ["jax_enable_x64 is on", "random draws"],
    },
}
