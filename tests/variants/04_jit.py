"""Wrong answers to set 04_jit (see tests/variants/__init__.py)."""

VARIANTS = {
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
        "says": ["cannot be traced by JAX", "jnp twin"],
        "bypass": "a chain of steps JAX traces and compiles once (jax.jit)",
    },
    # jit around the Python loop, but steps not static: range() of a traced value.
    "logistic_steps_not_static": {
        "answers": {
            "logistic": "@jax.jit\n"
            "def logistic_map(x, r, steps):\n"
            "    for _ in range(steps):\n"
            "        x = r * x * (1.0 - x)\n"
            "    return x\n",
        },
        "loses": {"test_logistic", "test_logistic_speed"},
        "says": ["range()", "static_argnames"],
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
        "says": ["is not jitted", "@jax.jit"],
    },
    # Correct, but a new jitted function, so a compilation, on every call.
    "logistic_jit_every_call": {
        "answers": {
            "logistic": "def logistic_map(x, r, steps):\n"
            "    return jax.jit(lambda x, r: lax.fori_loop(0, steps, lambda i, x: r * x * (1.0 - x), x))(x, r)\n",
        },
        "loses": {"test_logistic_speed"},
        "says": ["a jax.jit created inside the function compiles on every call"],
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
        "says": ["cannot be traced by JAX", "NumPy"],
    },
    # Correct, but every new length compiles.
    "padded_plain_jit": {
        "answers": {"padded": "masked_energy = jax.jit(lambda x: jnp.sum((x - jnp.mean(x)) ** 2))\n"},
        "loses": {"test_padded_compiles"},
        "says": ["times over these calls; at most 2 allowed", "pad with np.pad to 16 or 64"],
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
        "says": ["jnp.pad on a new shape compiles too"],
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
        "says": {"test_padded": ["mask the padding"], "test_padded_compiles": ["make the values right first"]},
    },
    # The padding cut off again inside jit with padded[:n]: a slice whose size depends on the data.
    "padded_traced_slice": {
        "answers": {
            "padded": "@jax.jit\n"
            "def _energy(padded, n):\n"
            "    x = padded[:n]\n"
            "    return jnp.sum((x - jnp.mean(x)) ** 2)\n\n"
            "def masked_energy(x):\n"
            "    x = np.asarray(x, dtype=np.float32)\n"
            "    size = 16 if len(x) <= 16 else 64\n"
            "    return _energy(np.pad(x, (0, size - len(x))), np.int32(len(x)))\n",
        },
        "loses": {"test_padded", "test_padded_compiles"},
        "says": ["size of a result depends", "jnp.where(mask, x, fill)"],
    },
    # Bypass: NumPy computes it, so nothing compiles at all.
    "padded_numpy": {
        "answers": {
            "padded": "def masked_energy(x):\n"
            "    x = np.asarray(x, np.float32)\n"
            "    return np.float32(np.sum((x - x.mean()) ** 2))\n",
        },
        "loses": {"test_padded", "test_padded_compiles"},
        "says": ["compiled 0 times", "not NumPy"],
        "bypass": "padding to a few shapes, computed by JAX",
    },
    # Passes the visible tests by returning their expected outputs: the hidden tests catch it.
    "gcd_hardcoded": {
        "answers": {"gcd": "def gcd(a, b):\n    return jnp.where(b == 0, a, 6).astype(jnp.int32)\n"},
        "loses": {"test_gcd", "test_gcd_structure"},
        "says": {"test_gcd": ["on hidden inputs"], "test_gcd_structure": ["never uses while", "lax.while_loop"]},
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
        "says": ["int()", "while_loop"],
        "bypass": "lax.while_loop",
    },
    # A Python while on the values themselves (no int()): right eagerly, but it cannot be traced.
    "gcd_python_while_on_traced": {
        "answers": {
            "gcd": "def gcd(a, b):\n    while b != 0:\n        a, b = b, a % b\n    return a\n",
        },
        "loses": {"test_gcd", "test_gcd_structure"},
        "says": ["Python if, while", "jax.lax.while_loop"],
    },
    # Bypass: the library's gcd (a while_loop inside): right values, but no loop written.
    "gcd_jnp": {
        "answers": {"gcd": "gcd = jnp.gcd\n"},
        "loses": {"test_gcd", "test_gcd_structure"},
        "says": ["calls `jax.numpy.gcd`", "write it yourself"],
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
        "says": ["never uses while", "lax.while_loop"],
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
        "says": {
            "test_recurrence_structure": ["grows with the problem size", "Python loop"],
            "test_recurrence_speed": ["as fast as the eager .at[].set loop", "jax.jit or lax.fori_loop"],
        },
    },
    # NumPy's habit: assign each element in place. JAX arrays are immutable.
    "recurrence_in_place_update": {
        "answers": {
            "recurrence": "def recurrence(a0, a1, c1, c2, n):\n"
            "    a = jnp.zeros(n, dtype=jnp.float32)\n"
            "    a[0], a[1] = a0, a1\n"
            "    for i in range(2, n):\n"
            "        a[i] = c1 * a[i - 1] + c2 * a[i - 2]\n"
            "    return a\n",
        },
        "loses": {"test_recurrence", "test_recurrence_structure", "test_recurrence_speed"},
        "says": ["immutable", "x.at[i].set"],
    },
    # jit with fori_loop, but n, which sets the length of the result, not static.
    "recurrence_n_not_static": {
        "answers": {
            "recurrence": "@jax.jit\n"
            "def recurrence(a0, a1, c1, c2, n):\n"
            "    a = jnp.zeros(n, dtype=jnp.float32).at[0].set(a0).at[1].set(a1)\n"
            "    return lax.fori_loop(2, n, lambda i, a: a.at[i].set(c1 * a[i - 1] + c2 * a[i - 2]), a)\n",
        },
        "loses": {"test_recurrence", "test_recurrence_structure", "test_recurrence_speed"},
        "says": ["used as a shape or a size", "static_argnums"],
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
        "says": ["cannot be traced by JAX", "float()"],
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
        "says": ["a jax.jit created inside the function compiles on every call"],
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
        "says": {
            "test_recurrence_structure": ["grows with the problem size", "Python loop"],
            "test_recurrence_speed": ["a Python loop inside jax.jit is unrolled"],
        },
        "bypass": "a loop compiled once (lax.fori_loop)",
    },
    # Double precision switched on for the whole notebook (in the first answer cell), with the reference answers:
    # every answer returns its problem's values, in float64 where x64 makes them so, and keeps its points.
    "x64_switched_on": {
        "answers": {
            "logistic": (
                "jax.config.update('jax_enable_x64', True)\n"
                "\n"
                "\n"
                '@partial(jax.jit, static_argnames="steps")\n'
                "def logistic_map(x, r, steps):\n"
                "    return lax.fori_loop(0, steps, lambda i, x: r * x * (1.0 - x), x)\n"
            ),
        },
        "setting": "jax_enable_x64",
        "loses": set(),
        "alternative": "the reference answers with jax_enable_x64 switched on for the whole notebook",
    },
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # fori_loop's body written with the value alone: fori_loop calls it with the index too.
    "logistic_fori_body_without_index": {
        "answers": {
            "logistic": "@partial(jax.jit, static_argnames='steps')\n"
            "def logistic_map(x, r, steps):\n"
            "    return lax.fori_loop(0, steps, lambda x: r * x * (1.0 - x), x)\n",
        },
        "loses": {"test_logistic", "test_logistic_speed"},
        "says": ["lambda i, x", "Reread:"],
    },
    # The padding dropped with a boolean mask inside the jitted function: a shape that depends on n.
    "padded_boolean_mask": {
        "answers": {
            "padded": "@jax.jit\n"
            "def _energy(padded, n):\n"
            "    x = padded[jnp.arange(padded.shape[0]) < n]\n"
            "    return jnp.sum((x - jnp.mean(x)) ** 2)\n\n\n"
            "def masked_energy(x):\n"
            "    x = np.asarray(x, dtype=np.float32)\n"
            "    size = 16 if len(x) <= 16 else 64\n"
            "    return _energy(np.pad(x, (0, size - len(x))), np.int32(len(x)))\n",
        },
        "loses": {"test_padded", "test_padded_compiles"},
        "says": ["jnp.where(mask, x, fill)", "Reread:"],
    },
    # while_loop's functions written with the pair's parts as arguments: while_loop passes the carry whole.
    "gcd_while_loop_two_arguments": {
        "answers": {
            "gcd": "def gcd(a, b):\n"
            "    a, _ = lax.while_loop(lambda a, b: b != 0, lambda a, b: (b, a % b), (a, b))\n"
            "    return a\n",
        },
        "loses": {"test_gcd", "test_gcd_structure"},
        "says": ["one argument, the whole carry", "state[1] != 0", "Reread:"],
    },
}
