"""Wrong answers to set 03_tracing (see tests/variants/__init__.py)."""

VARIANTS = {
    # Bypass: the right values from NumPy: nothing JAX can trace, so no jaxpr to read either.
    "affine_numpy": {
        "answers": {"affine": "def affine(W, x, b):\n    return np.asarray(W) @ np.asarray(x) + np.asarray(b)\n"},
        "loses": {"test_affine", "test_affine_jaxpr"},
        "bypass": "an affine map JAX can trace, read from its jaxpr",
        "says": ["cannot be traced by JAX", "NumPy"],
    },
    # Passes the visible test by returning its expected output: the hidden tests catch it.
    "affine_hardcoded": {
        "answers": {"affine": "def affine(W, x, b):\n    return jnp.array([-0.5, -0.5, -0.5])\n"},
        "loses": {"test_affine", "test_affine_jaxpr"},
        "says": {"test_affine": ["on a hidden input"], "test_affine_jaxpr": ["make the values right first"]},
    },
    # Right values, but an elementwise multiply and a sum instead of one matrix product.
    "affine_multiply_and_sum": {
        "answers": {"affine": "def affine(W, x, b):\n    return jnp.sum(W * x, axis=1) + b\n"},
        "loses": {"test_affine_jaxpr"},
        "says": ["should need only add, dot_general", "W @ x + b"],
    },
    # Right values, but a Python loop over rows, unrolled into the jaxpr.
    "affine_row_loop": {
        "answers": {
            "affine": "def affine(W, x, b):\n    return jnp.stack([jnp.dot(W[i], x) for i in range(W.shape[0])]) + b\n",
        },
        "loses": {"test_affine_jaxpr"},
        "says": ["should need only add, dot_general", "W @ x + b"],
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
        "says": ["prints while JAX traces it", "jax.debug.print"],
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
        "says": ["changes state outside itself", "total_calls"],
    },
    # Every call's counter kept in a global list: the list changes on every call, and under jit it keeps tracers.
    "pure_appends_to_global_list": {
        "answers": {
            "pure": "history = []\n\n\n"
            "def scale_by_calls_pure(calls, x):\n"
            "    calls = calls + 1\n"
            "    history.append(calls)\n"
            "    return calls, x * calls\n",
        },
        "loses": {"test_pure_check"},
        "says": ["leaks a traced value", "instead of saving it in a global, a list"],
    },
    # A Python if on the counter: right eagerly, but under jit the counter is traced and has no value to test.
    "pure_python_if": {
        "answers": {
            "pure": "def scale_by_calls_pure(calls, x):\n"
            "    calls = calls + 1\n"
            "    if calls == 1:\n"
            "        return calls, x\n"
            "    return calls, x * calls\n",
        },
        "loses": {"test_pure", "test_pure_check"},
        "says": ["Python if", "jax.lax.cond"],
    },
    # Bypass: the new signature around the old impure function, whose global counter counts traces.
    "pure_wraps_impure": {
        "answers": {
            "pure": "def scale_by_calls_pure(calls, x):\n    return calls + 1, scale_by_calls(x)\n",
        },
        "loses": {"test_pure", "test_pure_check"},
        "says": {"test_pure": ["once, while JAX traces"], "test_pure_check": ["make the values right first"]},
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
        "says": ["stores a traced value that outlives the call"],
        "bypass": "a method that keeps no traced value",
    },
    # Correct, written another way: jnp.dot for the product; the counter named anew; an apply with
    # no side effects at all.
    "affine_dot_pure_apply": {
        "answers": {
            "affine": "def affine(W, x, b):\n    return jnp.dot(W, x) + b\n",
            "pure": "def scale_by_calls_pure(calls, x):\n    new_calls = calls + 1\n    return new_calls, new_calls * x\n",
            "leak": "class FixedModel(Model):\n    def apply(self, x):\n        return jnp.tanh(x * self.scale), x\n",
        },
        "loses": set(),
        "alternative": "jnp.dot instead of @; an apply with no side effects at all",
    },
    # Double precision switched on for the whole notebook (in the first answer cell), with the reference answers:
    # every answer returns its problem's values, in float64 where x64 makes them so, and keeps its points.
    "x64_switched_on": {
        "answers": {
            "affine": ("jax.config.update('jax_enable_x64', True)\n\n\ndef affine(W, x, b):\n    return W @ x + b\n"),
        },
        "setting": "jax_enable_x64",
        "loses": set(),
        "alternative": "the reference answers with jax_enable_x64 switched on for the whole notebook",
    },
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # The product the wrong way round: x @ W, whose inner dimensions differ.
    "affine_operands_swapped": {
        "answers": {"affine": "def affine(W, x, b):\n    return x @ W + b\n"},
        "loses": {"test_affine", "test_affine_jaxpr"},
        "says": ["W @ x", "Reread:"],
    },
    # The counter turned into a Python int, as the impure version had it: under jit it is traced.
    "pure_int_counter": {
        "answers": {
            "pure": "def scale_by_calls_pure(calls, x):\n    calls = int(calls) + 1\n    return calls, x * calls\n",
        },
        "loses": {"test_pure", "test_pure_check"},
        "says": {
            "test_pure": ["int(calls)", "calls = calls + 1", "Reread:"],
            "test_pure_check": ["cannot be traced", "Reread:"],
        },
    },
    # The input kept as a NumPy copy instead of a tracer: under jit it has no values to copy.
    "leak_stores_numpy_copy": {
        "answers": {
            "leak": "class FixedModel(Model):\n"
            "    def apply(self, x):\n"
            "        self.calls += 1\n"
            "        y = x * self.scale\n"
            "        self.last_input = np.asarray(x)\n"
            "        z = jnp.tanh(y)\n"
            "        return z, x\n",
        },
        "loses": {"test_leak"},
        "says": ["beside the result", "return z, x", "Reread:"],
    },
}
