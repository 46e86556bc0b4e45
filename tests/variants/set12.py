"""Wrong answers to set 12_control_flow (see tests/variants/__init__.py)."""

VARIANTS = {
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
            "recurrence": "def linear_recurrence(a, b):\n    P = jnp.cumprod(a)\n    return P * jnp.cumsum(b / P)\n",
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
}
