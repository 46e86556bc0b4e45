"""Wrong answers to set 11_custom_derivatives (see tests/variants/__init__.py)."""

VARIANTS = {
    # Bypass: the formula differentiated by JAX: nan at the zero row.
    "norm_autodiff": {
        "answers": {"safe_norm": "def safe_norm(x):\n    return jnp.sqrt(jnp.sum(x**2))\n"},
        "loses": {"test_safe_norm"},
        "bypass": "a derivative rule that is finite at 0, in both modes (custom_jvp)",
        "says": ["nan", "autodiff of sqrt", "custom_jvp"],
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
        "says": ["nan", "divides by the norm"],
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
        "says": ["custom_vjp", "forward mode"],
    },
    # Bypass: an epsilon under the sqrt: finite at 0 with no rule, but the norm and its derivative move near 0.
    "norm_epsilon": {
        "answers": {"safe_norm": "def safe_norm(x):\n    return jnp.sqrt(jnp.sum(x**2) + 1e-12)\n"},
        "loses": {"test_safe_norm"},
        "bypass": "a derivative rule that is finite at 0, in both modes (custom_jvp)",
        "says": ["epsilon", "custom_jvp"],
    },
    # Bypass: a Python if for the zero vector: right under jax.grad alone, but vmap traces the if.
    "norm_python_if": {
        "answers": {
            "safe_norm": "def safe_norm(x):\n"
            "    if jnp.all(x == 0):\n"
            "        return jnp.float32(0.0)\n"
            "    return jnp.sqrt(jnp.sum(x**2))\n",
        },
        "loses": {"test_safe_norm"},
        "bypass": "a derivative rule that is finite at 0, in both modes (custom_jvp)",
        "says": ["Python if", "jax.vmap", "custom_jvp"],
    },
    # Bypass: the library's safe norm (a double where inside): right numbers, no rule written.
    "norm_optax": {
        "answers": {"safe_norm": "import optax\n\n\ndef safe_norm(x):\n    return optax.safe_norm(x, 0.0)\n"},
        "loses": {"test_safe_norm"},
        "bypass": "a derivative rule that is finite at 0, in both modes (custom_jvp)",
        "says": ["optax.safe_norm", "write it yourself"],
    },
    # A rule that gives 0 below a threshold: safe at 0, but wrong for tiny x that are not 0.
    "norm_rule_threshold": {
        "answers": {
            "safe_norm": "@jax.custom_jvp\n"
            "def safe_norm(x):\n"
            "    return jnp.sqrt(jnp.sum(x**2))\n\n\n"
            "@safe_norm.defjvp\n"
            "def safe_norm_jvp(primals, tangents):\n"
            "    (x,), (t,) = primals, tangents\n"
            "    y = safe_norm(x)\n"
            "    big = y > 1e-6\n"
            "    return y, jnp.where(big, jnp.dot(x / jnp.where(big, y, 1.0), t), 0.0)\n",
        },
        "loses": {"test_safe_norm"},
        "says": ["tiny", "threshold"],
    },
    # Bypass: jnp.clip, the one-liner: it clips the values, and its gradient is 0 outside the bounds.
    "clip_forward": {
        "answers": {"clip": "def clip_gradient(x, lo, hi):\n    return jnp.clip(x, lo, hi)\n"},
        "loses": {"test_clip_gradient"},
        "bypass": "a custom backward pass: identity forward, clipped cotangent (custom_vjp)",
        "says": ["forward pass", "custom_vjp"],
    },
    "clip_wrong_sign": {
        "answers": {
            "clip": "@partial(jax.custom_vjp, nondiff_argnums=(1, 2))\n"
            "def clip_gradient(x, lo, hi):\n"
            "    return x\n\n\n"
            "clip_gradient.defvjp(lambda x, lo, hi: (x, None), lambda lo, hi, _, g: (-jnp.clip(g, lo, hi),))\n",
        },
        "loses": {"test_clip_gradient"},
        "says": ["sign is flipped"],
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
        "says": ["other bounds than the lo and hi"],
    },
    # Bypass: custom_jvp where custom_vjp is taught: clipping the tangent is fine forward, but reverse mode must
    # transpose the rule, and a clipped tangent is not linear.
    "clip_custom_jvp": {
        "answers": {
            "clip": "@partial(jax.custom_jvp, nondiff_argnums=(1, 2))\n"
            "def clip_gradient(x, lo, hi):\n"
            "    return x\n\n\n"
            "@clip_gradient.defjvp\n"
            "def clip_gradient_jvp(lo, hi, primals, tangents):\n"
            "    (x,), (t,) = primals, tangents\n"
            "    return x, jnp.clip(t, lo, hi)\n",
        },
        "loses": {"test_clip_gradient"},
        "bypass": "a custom backward pass: identity forward, clipped cotangent (custom_vjp)",
        "says": ["custom_jvp", "linear", "custom_vjp"],
    },
    # Bypass: the lecture's straight-through estimator: forward x, but its gradient masks by x, not a clipped cotangent.
    "clip_straight_through": {
        "answers": {
            "clip": "def clip_gradient(x, lo, hi):\n"
            "    clipped = jnp.clip(x, lo, hi)\n"
            "    return clipped + jax.lax.stop_gradient(x - clipped)\n",
        },
        "loses": {"test_clip_gradient"},
        "bypass": "a custom backward pass: identity forward, clipped cotangent (custom_vjp)",
        "says": ["straight-through", "custom_vjp"],
    },
    # Bypass: no checkpoint: every layer keeps its wide activations.
    "remat_none": {
        "answers": {"remat": "def block_remat(p, x):\n    return block(p, x)\n"},
        "loses": {"test_remat_memory"},
        "bypass": "jax.checkpoint around each block, keeping residuals under a bound",
        "says": ["no jax.checkpoint"],
    },
    # Checkpointed, but the policy saves the wide x @ W1 of every layer.
    "remat_dots_saveable": {
        "answers": {
            "remat": "def block_remat(p, x):\n"
            "    return jax.checkpoint(block, policy=jax.checkpoint_policies.dots_saveable)(p, x)\n",
        },
        "loses": {"test_remat_memory"},
        "says": ["policy dots_saveable"],
    },
    # Bypass: few residuals, bought with a wrong gradient: nothing flows back through the layers' inputs.
    "remat_stops_gradient": {
        "answers": {
            "remat": "def block_remat(p, x):\n"
            "    return jax.checkpoint(lambda p, x: block(p, jax.lax.stop_gradient(x)))(p, x)\n",
        },
        "loses": {"test_remat"},
        "bypass": "the plain block's gradient, from a checkpointed block",
        "says": ["stop_gradient"],
    },
    # Bypass: a custom_vjp that keeps nothing and passes no gradient to the parameters: no residuals, wrong gradient.
    "remat_custom_vjp_no_backward": {
        "answers": {
            "remat": "@jax.custom_vjp\n"
            "def block_remat(p, x):\n"
            "    return block(p, x)\n\n\n"
            "def block_remat_fwd(p, x):\n"
            "    return block(p, x), p\n\n\n"
            "def block_remat_bwd(p, g):\n"
            "    return jax.tree.map(jnp.zeros_like, p), g\n\n\n"
            "block_remat.defvjp(block_remat_fwd, block_remat_bwd)\n",
        },
        "loses": {"test_remat"},
        "bypass": "the plain block's gradient, from a checkpointed block",
        "says": ["custom_vjp", "not block's derivative"],
    },
    # Bypass: a cheap backward pass in closed form that takes tanh's derivative as 1, so 1 - tanh**2 is never kept.
    "remat_backward_without_tanh": {
        "answers": {
            "remat": "@jax.custom_vjp\n"
            "def block_remat(p, x):\n"
            "    return block(p, x)\n\n\n"
            "def block_remat_fwd(p, x):\n"
            "    return block(p, x), (p, x)\n\n\n"
            "def block_remat_bwd(residuals, g):\n"
            "    p, x = residuals\n"
            "    return jax.vjp(lambda p, x: x + (x @ p['W1']) @ p['W2'], p, x)[1](g)\n\n\n"
            "block_remat.defvjp(block_remat_fwd, block_remat_bwd)\n",
        },
        "loses": {"test_remat"},
        "bypass": "the plain block's gradient, from a checkpointed block",
        "says": ["custom_vjp", "not block's derivative"],
    },
    # Bypass: jax.jit where jax.checkpoint is taught: compiled, but it keeps the same residuals.
    "remat_jit": {
        "answers": {"remat": "block_remat = jax.jit(block)\n"},
        "loses": {"test_remat_memory"},
        "bypass": "jax.checkpoint around each block, keeping residuals under a bound",
        "says": ["no jax.checkpoint", "jax.jit"],
    },
    # Bypass: a checkpoint in name only: its policy saves everything, so nothing is recomputed.
    "remat_everything_saveable": {
        "answers": {
            "remat": "def block_remat(p, x):\n"
            "    return jax.checkpoint(block, policy=jax.checkpoint_policies.everything_saveable)(p, x)\n",
        },
        "loses": {"test_remat_memory"},
        "bypass": "jax.checkpoint around each block, keeping residuals under a bound",
        "says": ["policy everything_saveable", "nothing_saveable"],
    },
    # A checkpoint around part of the block: the wide tanh(x @ W1) it returns is kept for the product outside it.
    "remat_part_of_block": {
        "answers": {
            "remat": "def block_remat(p, x):\n"
            "    h = jax.checkpoint(lambda x, W1: jnp.tanh(x @ W1))(x, p['W1'])\n"
            "    return x + h @ p['W2']\n",
        },
        "loses": {"test_remat_memory"},
        "says": ["only part"],
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
        "says": ["while_loop", "reverse mode"],
    },
    # Bypass: the library's eigenvalue: the converged answer, whatever the number of steps.
    "eigen_library": {
        "answers": {"eigen": "def top_eigenvalue(A, steps):\n    return jnp.linalg.eigvalsh(A)[-1]\n"},
        "loses": {"test_eigen", "test_eigen_structure"},
        "bypass": "the power iteration itself, differentiated through its loop",
        "says": ["converged"],
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
        "says": ["Python loop", "unrolled"],
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
        "says": ["Python loop", "unrolled"],
    },
    # Bypass: the loop in a while_loop, v held still by stop_gradient so reverse mode never enters it: the
    # gradient is outer(v, v), the converged eigenvalue's, not that of the steps taken.
    "eigen_stop_gradient": {
        "answers": {
            "eigen": "def top_eigenvalue(A, steps):\n"
            "    def step(carry):\n"
            "        i, v = carry\n"
            "        w = A @ v\n"
            "        return i + 1, w / jnp.linalg.norm(w)\n\n"
            "    v0 = jnp.ones(A.shape[0], A.dtype) / np.sqrt(A.shape[0])\n"
            "    _, v = jax.lax.while_loop(lambda carry: carry[0] < steps, step, (0, v0))\n"
            "    v = jax.lax.stop_gradient(v)\n"
            "    return v @ A @ v\n",
        },
        "loses": {"test_eigen"},
        "bypass": "the power iteration itself, differentiated through its loop",
        "says": ["outer(v, v)", "stop_gradient"],
    },
    # Bypass: a closed form instead of the loop's derivative: a custom_jvp rule v @ dA @ v, right only once v has converged.
    "eigen_closed_form_rule": {
        "answers": {
            "eigen": "def _power_iteration(A, steps):\n"
            "    def step(carry):\n"
            "        i, v = carry\n"
            "        w = A @ v\n"
            "        return i + 1, w / jnp.linalg.norm(w)\n\n"
            "    v0 = jnp.ones(A.shape[0], A.dtype) / np.sqrt(A.shape[0])\n"
            "    return jax.lax.while_loop(lambda carry: carry[0] < steps, step, (0, v0))[1]\n\n\n"
            "@partial(jax.custom_jvp, nondiff_argnums=(1,))\n"
            "def top_eigenvalue(A, steps):\n"
            "    v = _power_iteration(A, steps)\n"
            "    return v @ A @ v\n\n\n"
            "@top_eigenvalue.defjvp\n"
            "def top_eigenvalue_jvp(steps, primals, tangents):\n"
            "    (A,), (dA,) = primals, tangents\n"
            "    v = _power_iteration(A, steps)\n"
            "    return v @ A @ v, v @ dA @ v\n",
        },
        "loses": {"test_eigen"},
        "bypass": "the power iteration itself, differentiated through its loop",
        "says": ["outer(v, v)", "custom derivative rule"],
    },
    # Bypass: the loop in NumPy inside jax.pure_callback: one equation whatever the steps, and no derivative.
    "eigen_pure_callback": {
        "answers": {
            "eigen": "def top_eigenvalue(A, steps):\n"
            "    def iterate(A):\n"
            "        A = np.asarray(A)\n"
            "        v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])\n"
            "        for _ in range(steps):\n"
            "            w = A @ v\n"
            "            v = w / np.linalg.norm(w)\n"
            "        return np.asarray(v @ A @ v, A.dtype)\n\n"
            "    return jax.pure_callback(iterate, jax.ShapeDtypeStruct((), A.dtype), A)\n",
        },
        "loses": {"test_eigen", "test_eigen_structure"},
        "bypass": "the power iteration itself, differentiated through its loop",
        "says": ["pure_callback"],
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
    # Correct, another way: the clipped backward pass with jax.custom_gradient, the bounds closed over; the
    # checkpoint written by hand, a custom_vjp that keeps the block's inputs and recomputes it in the backward pass.
    "alternatives_custom_gradient_hand_written_remat": {
        "answers": {
            "clip": "def clip_gradient(x, lo, hi):\n"
            "    @jax.custom_gradient\n"
            "    def identity(x):\n"
            "        return x, lambda g: jnp.clip(g, lo, hi)\n\n"
            "    return identity(x)\n",
            "remat": "@jax.custom_vjp\n"
            "def block_remat(p, x):\n"
            "    return block(p, x)\n\n\n"
            "def block_remat_fwd(p, x):\n"
            "    return block(p, x), (p, x)\n\n\n"
            "def block_remat_bwd(inputs, g):\n"
            "    return jax.vjp(block, *inputs)[1](g)\n\n\n"
            "block_remat.defvjp(block_remat_fwd, block_remat_bwd)\n",
        },
        "loses": set(),
        "alternative": "jax.custom_gradient instead of custom_vjp; a checkpoint written by hand as a custom_vjp that recomputes",
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
}
