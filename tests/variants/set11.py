"""Wrong answers to set 11_custom_derivatives (see tests/variants/__init__.py)."""

VARIANTS = {
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
}
