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
        "says": ["cannot be traced", "NumPy"],
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
        "says": ["grows with the problem size", "Python loop"],
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
        "says": {
            "test_rnn": ["h_1 ... h_T", "not the state it started from"],
            "test_rnn_structure": ["leaf [1] of rnn", "differs", "values right first"],
        },
    },
    # Bypass: the NumPy loop moved into jax.pure_callback: it jits and vmaps (sequentially) and its program has one
    # equation whatever the length, but JAX never sees the loop: no gradient, and the size check refuses callbacks.
    "rnn_pure_callback": {
        "answers": {
            "rnn": "def rnn(params, h0, xs):\n"
            "    def numpy_rnn(W, U, b, h, xs):\n"
            "        hs = []\n"
            "        for x in xs:\n"
            "            h = np.tanh(h @ W + x @ U + b)\n"
            "            hs.append(h)\n"
            "        return h, np.stack(hs)\n\n"
            "    shapes = (jax.ShapeDtypeStruct(h0.shape, h0.dtype), jax.ShapeDtypeStruct((xs.shape[0], *h0.shape), h0.dtype))\n"
            "    return jax.pure_callback(numpy_rnn, shapes, params['W'], params['U'], params['b'], h0, xs, vmap_method='sequential')\n",
        },
        "loses": {"test_rnn", "test_rnn_structure"},
        "bypass": "lax.scan: a loop JAX traces, so jit, vmap and grad apply",
        "says": {
            "test_rnn": ["jax.grad", "pure_callback"],
            "test_rnn_structure": ["calls back into Python", "pure_callback"],
        },
    },
    # Bypass: the same loop in io_callback, the other callback with a result: caught the same way.
    "rnn_io_callback": {
        "answers": {
            "rnn": "from jax.experimental import io_callback\n\n\n"
            "def rnn(params, h0, xs):\n"
            "    def numpy_rnn(W, U, b, h, xs):\n"
            "        hs = []\n"
            "        for x in xs:\n"
            "            h = np.tanh(h @ W + x @ U + b)\n"
            "            hs.append(h)\n"
            "        return h, np.stack(hs)\n\n"
            "    shapes = (jax.ShapeDtypeStruct(h0.shape, h0.dtype), jax.ShapeDtypeStruct((xs.shape[0], *h0.shape), h0.dtype))\n"
            "    return io_callback(numpy_rnn, shapes, params['W'], params['U'], params['b'], h0, xs)\n",
        },
        "loses": {"test_rnn", "test_rnn_structure"},
        "bypass": "lax.scan: a loop JAX traces, so jit, vmap and grad apply",
        "says": {
            "test_rnn": ["jax.grad", "io_callback"],
            "test_rnn_structure": ["calls back into Python", "io_callback"],
        },
    },
    # Bypass: the loop Problem 6 teaches, lax.while_loop, writing each state into a buffer: right values under
    # jit and vmap, one step in the program, but reverse mode cannot go through it, so jax.grad fails.
    "rnn_while_loop": {
        "answers": {
            "rnn": "def rnn(params, h0, xs):\n"
            "    def step(state):\n"
            "        t, h, hs = state\n"
            "        h = jnp.tanh(h @ params['W'] + xs[t] @ params['U'] + params['b'])\n"
            "        return t + 1, h, hs.at[t].set(h)\n\n"
            "    hs = jnp.zeros((xs.shape[0], *h0.shape), h0.dtype)\n"
            "    _, h, hs = lax.while_loop(lambda state: state[0] < xs.shape[0], step, (0, h0, hs))\n"
            "    return h, hs\n",
        },
        "loses": {"test_rnn"},
        "bypass": "lax.scan: a loop JAX traces, so jit, vmap and grad apply",
        "says": ["jax.grad cannot differentiate", "while_loop"],
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
        "says": ["loop of 1024 steps", "one after another"],
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
        "says": ["fori_loop", "one after another"],
    },
    # Bypass: a closed form from library one-liners: h_t = P_t * cumsum(b / P)_t with P = cumprod(a).
    # Depth O(1), but the running product underflows to 0 within a few hundred steps.
    "recurrence_cumprod": {
        "answers": {
            "recurrence": "def linear_recurrence(a, b):\n    P = jnp.cumprod(a)\n    return P * jnp.cumsum(b / P)\n",
        },
        "loses": {"test_recurrence", "test_recurrence_depth"},
        "says": {"test_recurrence": ["running product", "is 0"], "test_recurrence_depth": ["nan", "underflow"]},
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
        "says": {
            "test_recurrence": ["composed in order"],
            "test_recurrence_depth": ["hidden sizes", "values right first"],
        },
    },
    # Bypass: NumPy does the loop: the right numbers eagerly, but nothing JAX can trace or jit.
    "recurrence_numpy": {
        "answers": {
            "recurrence": "def linear_recurrence(a, b):\n"
            "    h, out = np.float32(0.0), []\n"
            "    for a_t, b_t in zip(np.asarray(a), np.asarray(b)):\n"
            "        h = a_t * h + b_t\n"
            "        out.append(h)\n"
            "    return jnp.asarray(np.array(out, np.float32))\n",
        },
        "loses": {"test_recurrence", "test_recurrence_depth"},
        "bypass": "pairs (a, b) combined by an associative operator in a program JAX traces, not a NumPy loop",
        "says": ["cannot be traced", "NumPy"],
    },
    # Bypass: the running product's closed form in log space, exp(cumsum(log a)): a zero or negative a_t gives
    # nan, and the product still underflows over long sequences.
    "recurrence_log_space": {
        "answers": {
            "recurrence": "def linear_recurrence(a, b):\n"
            "    P = jnp.exp(jnp.cumsum(jnp.log(a)))\n"
            "    return P * jnp.cumsum(b / P)\n",
        },
        "loses": {"test_recurrence", "test_recurrence_depth"},
        "bypass": "pairs (a, b) combined by an associative operator, not a closed form through a running product",
        "says": {
            "test_recurrence": ["running product", "log/sqrt of negatives"],
            "test_recurrence_depth": ["nan", "underflow"],
        },
    },
    # Bypass: a library does the work: h_t - a_t * h_{t-1} = b_t is a (bidiagonal) tridiagonal system, which
    # lax.linalg.tridiagonal_solve solves exactly in one equation of the program; but its algorithm takes the n
    # unknowns one after another, so it counts as n steps.
    "recurrence_tridiagonal_solve": {
        "answers": {
            "recurrence": "def linear_recurrence(a, b):\n"
            "    below = jnp.concatenate([jnp.zeros(1, a.dtype), -a[1:]])\n"
            "    h = lax.linalg.tridiagonal_solve(below, jnp.ones_like(a), jnp.zeros_like(a), b[:, None])\n"
            "    return h[:, 0]\n",
        },
        "loses": {"test_recurrence_depth"},
        "bypass": "lax.associative_scan: O(log n) rounds, not a library solver's n steps one after another",
        "says": ["tridiagonal_solve", "one after another"],
    },
    # Bypass: the sequential loop hidden in jax.pure_callback, one equation of depth 1 in the program: the depth
    # check refuses callbacks, and the grader cannot run Python, so its values are never verified.
    "recurrence_pure_callback": {
        "answers": {
            "recurrence": "def linear_recurrence(a, b):\n"
            "    def loop(a, b):\n"
            "        h, out = np.float32(0.0), []\n"
            "        for a_t, b_t in zip(a, b):\n"
            "            h = a_t * h + b_t\n"
            "            out.append(h)\n"
            "        return np.array(out, np.float32)\n\n"
            "    return jax.pure_callback(loop, jax.ShapeDtypeStruct(b.shape, b.dtype), a, b, vmap_method='sequential')\n",
        },
        "loses": {"test_recurrence", "test_recurrence_depth"},
        "lost_in_the_verifier": {"test_recurrence"},
        "bypass": "lax.associative_scan: O(log n) rounds, not a loop hidden in a Python callback",
        "says": ["calls back into Python", "pure_callback"],
    },
    # Bypass: the closed form without division: every product a_{s+1} ... a_t in an (n, n) matrix (cumprod along
    # rows), then h = its lower triangle times b. Exact and of depth O(1), but n times the work and memory.
    "recurrence_matrix_of_products": {
        "answers": {
            "recurrence": "def linear_recurrence(a, b):\n"
            "    n = a.shape[0]\n"
            "    row, col = jnp.arange(n)[:, None], jnp.arange(n)[None, :]\n"
            "    products = jnp.cumprod(jnp.where(col > row, a[None, :], 1.0), axis=1)\n"
            "    return jnp.sum(jnp.where(col >= row, products, 0.0) * b[:, None], axis=0)\n",
        },
        "loses": {"test_recurrence_depth"},
        "bypass": "lax.associative_scan: O(log n) rounds with arrays of n elements, not an (n, n) matrix of products",
        "says": ["(1024, 1024)", "at most 2,048 elements"],
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
        "says": ["cannot be traced", "Python if"],
        "bypass": "one program for the batch: lax.switch under vmap, or jnp.where",
    },
    # Bypass: traceable, but a Python loop over the batch: one switch per element, a program that grows with n.
    "activate_switch_loop": {
        "answers": {
            "activate": "def activate_all(xs, kinds):\n"
            "    branches = [lambda x: jnp.maximum(x, 0.0), jnp.tanh, lambda x: x / (1.0 + jnp.abs(x))]\n"
            "    return jnp.stack([lax.switch(kinds[i], branches, xs[i]) for i in range(xs.shape[0])])\n",
        },
        "loses": {"test_activate"},
        "bypass": "one program for the batch: lax.switch under vmap, or jnp.where, not a Python loop over it",
        "says": ["grows with the problem size", "Python loop over the batch"],
    },
    # JAX's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # One switch for the whole batch, with an array of kinds: each element must choose its own branch.
    "activate_switch_on_array": {
        "answers": {
            "activate": "def activate_all(xs, kinds):\n"
            "    branches = [lambda x: jnp.maximum(x, 0.0), jnp.tanh, lambda x: x / (1.0 + jnp.abs(x))]\n"
            "    return lax.switch(kinds, branches, xs)\n",
        },
        "loses": {"test_activate"},
        "says": ["Branch index must be scalar", "jax.vmap(lambda x, k: lax.switch(k, branches, x))", "Reread:"],
    },
    # A scan step that returns the new state alone, where scan needs (carry, output).
    "rnn_step_returns_state_only": {
        "answers": {
            "rnn": "def rnn(params, h0, xs):\n"
            "    def step(h, x):\n"
            "        return jnp.tanh(h @ params['W'] + x @ params['U'] + params['b'])\n"
            "\n"
            "    return lax.scan(step, h0, xs)\n",
        },
        "loses": {"test_rnn", "test_rnn_structure"},
        "says": {"test_rnn": ["must be a pair", "return h, h", "Reread:"], "test_rnn_structure": ["must be a pair"]},
    },
    # A step whose carry starts as an int: the carry's type is fixed.
    "collatz_float_carry": {
        "answers": {
            "collatz": "def collatz_steps(n):\n"
            "    def step(state):\n"
            "        m, count = state\n"
            "        return jnp.where(m % 2 == 0, m / 2, 3 * m + 1), count + 1\n"
            "\n"
            "    return lax.while_loop(lambda state: state[0] != 1, step, (n, jnp.zeros_like(n)))[1]\n",
        },
        "loses": {"test_collatz"},
        "says": ["must have equal types", "astype", "Reread:"],
    },
    "activate_branches_swapped": {
        "answers": {
            "activate": "def activate_all(xs, kinds):\n"
            "    branches = [lambda x: jnp.maximum(x, 0.0), lambda x: x / (1.0 + jnp.abs(x)), jnp.tanh]\n"
            "    return jax.vmap(lambda x, k: lax.switch(k, branches, x))(xs, kinds)\n",
        },
        "loses": {"test_activate"},
        "says": ["kinds[i]", "in this order"],
    },
    # Bypass: passes the visible test, whose kinds cycle 0, 1, 2, by assuming they always do (kinds is
    # ignored): the hidden test, whose kinds come in another order, catches it.
    "activate_hardcoded": {
        "answers": {
            "activate": "def activate_all(xs, kinds):\n"
            "    kinds = jnp.arange(xs.shape[0]) % 3\n"
            "    return jnp.where(kinds == 0, jnp.maximum(xs, 0.0), jnp.where(kinds == 1, jnp.tanh(xs), xs / (1.0 + jnp.abs(xs))))\n",
        },
        "loses": {"test_activate"},
        "bypass": "branches chosen by each element's kind, not a fixed pattern read off the visible test",
        "says": ["hidden inputs", "kinds[i]", "do not assume"],
    },
    # Bypass: NumPy's np.select does the branching inside jax.pure_callback: right values, and a program of one
    # equation whatever n is, but no branch is in the program: the size check refuses callbacks.
    "activate_pure_callback": {
        "answers": {
            "activate": "def activate_all(xs, kinds):\n"
            "    def numpy_activate(xs, kinds):\n"
            "        return np.select([kinds == 0, kinds == 1], [np.maximum(xs, 0.0), np.tanh(xs)], xs / (1.0 + np.abs(xs))).astype(xs.dtype)\n\n"
            "    return jax.pure_callback(numpy_activate, jax.ShapeDtypeStruct(xs.shape, xs.dtype), xs, kinds, vmap_method='sequential')\n",
        },
        "loses": {"test_activate"},
        "bypass": "one program for the batch: lax.switch under vmap, or jnp.where, not NumPy in a callback",
        "says": ["calls back into Python", "pure_callback"],
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
        "says": ["cannot be traced", "while_loop"],
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
        "says": ["never uses while", "fixed number of steps"],
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
        "says": ["not the numbers visited"],
    },
    # Bypass: a while_loop for show around a fixed number of steps (300, finished elements frozen): the program
    # has a `while`, but every number costs as much as the longest; counting the operations each input runs catches it.
    "collatz_while_fixed_length": {
        "answers": {
            "collatz": "def collatz_steps(n):\n"
            "    def step(state):\n"
            "        i, m, count = state\n"
            "        done = m == 1\n"
            "        return i + 1, jnp.where(done, m, jnp.where(m % 2 == 0, m // 2, 3 * m + 1)), count + jnp.where(done, 0, 1)\n\n"
            "    return lax.while_loop(lambda state: state[0] < 300, step, (0, n, jnp.zeros_like(n)))[2]\n",
        },
        "loses": {"test_collatz"},
        "bypass": "lax.while_loop that stops when each element is done, not a fixed number of steps",
        "says": ["fixed number of steps", "operations"],
    },
    # Bypass: a lookup table of every count up to 20 000, computed by Python before grading, read with a while_loop
    # that never runs: right counts for every input the tests use, no loop at all.
    "collatz_lookup_table": {
        "answers": {
            "collatz": "def _count(m):\n"
            "    steps = 0\n"
            "    while m != 1:\n"
            "        m = m // 2 if m % 2 == 0 else 3 * m + 1\n"
            "        steps += 1\n"
            "    return steps\n\n\n"
            "_TABLE = np.array([0] + [_count(m) for m in range(1, 20_001)], np.int32)\n\n\n"
            "def collatz_steps(n):\n"
            "    return lax.while_loop(lambda count: count < 0, lambda count: count + 1, jnp.asarray(_TABLE)[n])\n",
        },
        "loses": {"test_collatz"},
        "bypass": "lax.while_loop that computes each count, not a table of answers computed ahead",
        "says": ["table of answers", "20,001 elements"],
    },
    # Bypass: Python counts in jax.pure_callback, and a while_loop counts up to its answer: a `while` whose work
    # grows with the count, but the count comes from outside the program: the work check refuses callbacks.
    "collatz_callback_counted": {
        "answers": {
            "collatz": "def _count(m):\n"
            "    m, steps = int(m), 0\n"
            "    while m != 1:\n"
            "        m = m // 2 if m % 2 == 0 else 3 * m + 1\n"
            "        steps += 1\n"
            "    return np.int32(steps)\n\n\n"
            "def collatz_steps(n):\n"
            "    total = jax.pure_callback(_count, jax.ShapeDtypeStruct((), jnp.int32), n, vmap_method='sequential')\n"
            "    return lax.while_loop(lambda count: count < total, lambda count: count + 1, jnp.zeros_like(n))\n",
        },
        "loses": {"test_collatz"},
        "bypass": "lax.while_loop that computes each count, not Python in a callback",
        "says": ["calls back into Python", "pure_callback"],
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
    # Correct, in yet other ways: the scan's step under jax.checkpoint, unrolled by 2; the pairs in a dict; the kinds
    # picked by jnp.select; Collatz jitted, done at once for 1 by lax.cond, and two steps at a time for odd numbers
    # (3m + 1 is even): its loop runs fewer times than it counts, and still only as long as each number needs.
    "alternatives_checkpoint_dict_select_cond": {
        "answers": {
            "rnn": "def rnn(params, h0, xs):\n"
            "    @jax.checkpoint\n"
            "    def step(h, x):\n"
            "        h = jnp.tanh(h @ params['W'] + x @ params['U'] + params['b'])\n"
            "        return h, h\n\n"
            "    return lax.scan(step, h0, xs, unroll=2)\n",
            "recurrence": "def linear_recurrence(a, b):\n"
            "    def compose(first, then):\n"
            "        return {'a': then['a'] * first['a'], 'b': then['a'] * first['b'] + then['b']}\n\n"
            "    return lax.associative_scan(compose, {'a': a, 'b': b})['b']\n",
            "activate": "def activate_all(xs, kinds):\n"
            "    return jnp.select([kinds == 0, kinds == 1], [jnp.maximum(xs, 0.0), jnp.tanh(xs)], xs / (1.0 + jnp.abs(xs)))\n",
            "collatz": "@jax.jit\n"
            "def collatz_steps(n):\n"
            "    def step(state):\n"
            "        m, count = state\n"
            "        odd = m % 2 == 1\n"
            "        return jnp.where(odd, (3 * m + 1) // 2, m // 2), count + jnp.where(odd, 2, 1)\n\n"
            "    def loop(n):\n"
            "        return lax.while_loop(lambda state: state[0] != 1, step, (n, jnp.zeros_like(n)))[1]\n\n"
            "    return lax.cond(n == 1, jnp.zeros_like, loop, n)\n",
        },
        "loses": set(),
        "alternative": "jax.checkpoint and unroll in the scan; pairs in a dict; jnp.select; jit, lax.cond and two steps at a time",
    },
}
