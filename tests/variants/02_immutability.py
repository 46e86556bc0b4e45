"""Wrong answers to set 02_immutability (see tests/variants/__init__.py)."""

VARIANTS = {
    # Duplicate indices overwrite instead of accumulating.
    "scatter_add_set": {
        "answers": {"scatter_add": "def scatter_add(x, idx, values):\n    return x.at[idx].set(x[idx] + values)\n"},
        "loses": {"test_scatter_add"},
        "says": ["repeated index", "x.at[idx].add(values)"],
    },
    # NumPy's habit: add in place. JAX arrays are immutable.
    "scatter_add_in_place_update": {
        "answers": {"scatter_add": "def scatter_add(x, idx, values):\n    x[idx] += values\n    return x\n"},
        "loses": {"test_scatter_add"},
        "says": ["immutable", "x.at[i].set"],
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
        "says": ["on the inputs of this check"],
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
        "says": ["cannot be traced by JAX", "jnp twin"],
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
        "says": ["grows with the problem size", "one x.at[idx].add(values)"],
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
        "says": ["stopped a level short of its leaves", "jax.tree.map"],
        "bypass": "an update of a pytree of any depth",
    },
    # The older name, removed from JAX: it cannot run, so the problem it is used in is lost, and only that one,
    # with a message naming the old name and the jax.tree module the lecture teaches.
    "sgd_removed_tree_map": {
        "answers": {
            "sgd_update": "def sgd_update(params, grads, lr):\n"
            "    return jax.tree_map(lambda p, g: p - lr * g, params, grads)\n",
        },
        "loses": {"test_sgd_update", "test_sgd_pure"},
        "says": ["has no attribute 'tree_map'", "jax.tree.map"],
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
        "says": ["changed its input in place", "build and return a new value"],
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
        "says": ["changes state outside itself", "steps_taken"],
    },
    # The default mode: -1 is not a stray for JAX but the last bin, and is counted there.
    "bins_default_mode": {
        "answers": {
            "count_in_bins": "def count_in_bins(bins, n_bins):\n"
            "    return jnp.zeros(n_bins, dtype=jnp.int32).at[bins].add(1)\n",
        },
        "loses": {"test_count_in_bins"},
        "says": ["wrap_negative_indices=False"],
    },
    # mode="drop" drops 5, but -1 still wraps to the last bin.
    "bins_drop_wraps_negative": {
        "answers": {
            "count_in_bins": "def count_in_bins(bins, n_bins):\n"
            "    return jnp.zeros(n_bins, dtype=jnp.int32).at[bins].add(1, mode='drop')\n",
        },
        "loses": {"test_count_in_bins"},
        "says": ["wrap_negative_indices=False"],
    },
    # mode="clip" counts the strays in the first and last bins.
    "bins_clip": {
        "answers": {
            "count_in_bins": "def count_in_bins(bins, n_bins):\n"
            "    return jnp.zeros(n_bins, dtype=jnp.int32).at[bins].add(1, mode='clip')\n",
        },
        "loses": {"test_count_in_bins"},
        "says": ["mode='clip' clamps"],
    },
    # The strays removed by a boolean mask: right counts eagerly, but a shape that depends on the data.
    "bins_boolean_mask": {
        "answers": {
            "count_in_bins": "def count_in_bins(bins, n_bins):\n"
            "    valid = (bins >= 0) & (bins < n_bins)\n"
            "    return jnp.zeros(n_bins, dtype=jnp.int32).at[bins[valid]].add(1)\n",
        },
        "loses": {"test_count_in_bins"},
        "says": ["size of a result depends", "jnp.where(mask, x, fill)"],
    },
    # .set with duplicate indices: a bin that occurs twice counts once.
    "bins_set": {
        "answers": {
            "count_in_bins": "def count_in_bins(bins, n_bins):\n"
            "    return jnp.zeros(n_bins, dtype=jnp.int32).at[bins].set(1, mode='drop', wrap_negative_indices=False)\n",
        },
        "loses": {"test_count_in_bins"},
        "says": [".set(1) writes a repeated bin once"],
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
        "says": ["on the inputs of this check"],
    },
    # Bypass: NumPy's bincount on the bins in range: right values, but no JAX program.
    "bins_numpy": {
        "answers": {
            "count_in_bins": "def count_in_bins(bins, n_bins):\n"
            "    b = np.asarray(bins)\n"
            "    return jnp.asarray(np.bincount(b[(b >= 0) & (b < n_bins)], minlength=n_bins), dtype=jnp.int32)\n",
        },
        "loses": {"test_count_in_bins"},
        "says": ["cannot be traced by JAX", "jnp twin"],
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
        "says": ["cannot be traced by JAX", "Python if"],
        "bypass": "one .at[].add over all bins, strays dropped by its options",
    },
    # Double precision switched on for the whole notebook (in the first answer cell), with the reference answers:
    # every answer returns its problem's values, in float64 where x64 makes them so, and keeps its points.
    "x64_switched_on": {
        "answers": {
            "scatter_add": (
                "jax.config.update('jax_enable_x64', True)\n"
                "\n"
                "\n"
                "def scatter_add(x, idx, values):\n"
                "    return x.at[idx].add(values)\n"
            ),
        },
        "setting": "jax_enable_x64",
        "loses": set(),
        "alternative": "the reference answers with jax_enable_x64 switched on for the whole notebook",
    },
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # .at[idx] assigned into, as NumPy's x[idx] = ...: the helper is not a place to write into.
    "scatter_add_assigns_to_at": {
        "answers": {
            "scatter_add": "def scatter_add(x, idx, values):\n    x.at[idx] = x[idx] + values\n    return x\n",
        },
        "loses": {"test_scatter_add"},
        "says": ["x.at[idx].add(values)", "Reread:"],
    },
    # The whole dicts in arithmetic, as if they were arrays: Python's TypeError.
    "sgd_whole_dicts": {
        "answers": {"sgd_update": "def sgd_update(params, grads, lr):\n    return params - lr * grads\n"},
        "loses": {"test_sgd_update", "test_sgd_pure"},
        "says": ["jax.tree.map(lambda p, g", "Reread:"],
    },
    # jax.tree.map given params alone, with a function of two leaves: the lambda's missing argument.
    "sgd_tree_map_one_tree": {
        "answers": {
            "sgd_update": "def sgd_update(params, grads, lr):\n"
            "    return jax.tree.map(lambda p, g: p - lr * g, params)\n",
        },
        "loses": {"test_sgd_update", "test_sgd_pure"},
        "says": ["one leaf of each tree", "params, grads)", "Reread:"],
    },
    # A chained comparison, 0 <= bins < n_bins, asks Python for one truth value of a whole array of bins.
    "bins_chained_comparison": {
        "answers": {
            "count_in_bins": "def count_in_bins(bins, n_bins):\n"
            "    valid = 0 <= bins < n_bins\n"
            "    counts = jnp.zeros(n_bins, dtype=jnp.int32)\n"
            "    return counts.at[jnp.where(valid, bins, n_bins)].add(1, mode='drop')\n",
        },
        "loses": {"test_count_in_bins"},
        "says": ["(bins >= 0) & (bins < n_bins)", "Reread:"],
    },
}
