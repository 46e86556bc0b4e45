"""Wrong answers to set 11_custom_derivatives (see tests/variants/__init__.py)."""

VARIANTS = {
    # Bypass: lecture 6's safe where and autodiff, no rule: the value is right, but the derivative at 0 is that of
    # the constant the where picks there, 0.
    "exprel_double_where": {
        "answers": {
            "exprel": "def exprel(x):\n"
            "    safe = jnp.where(x == 0, 1.0, x)\n"
            "    return jnp.where(x == 0, 1.0, jnp.expm1(safe) / safe)\n",
        },
        "loses": {"test_exprel"},
        "bypass": "a derivative right at a removable singularity and near it, in both modes (custom_jvp)",
        "says": ["jnp.where picks the constant", "limit 1/2", "custom_jvp"],
    },
    # Bypass: the formula alone: 0 / 0 at x = 0.
    "exprel_formula": {
        "answers": {"exprel": "def exprel(x):\n    return jnp.expm1(x) / x\n"},
        "loses": {"test_exprel"},
        "bypass": "a derivative right at a removable singularity and near it, in both modes (custom_jvp)",
        "says": ["0 / 0", "limit 1"],
    },
    # Bypass: x shifted away from 0: the values barely move, but autodiff near 0 still divides tiny, inexact numbers.
    "exprel_shifted": {
        "answers": {"exprel": "def exprel(x):\n    return jnp.expm1(x + 1e-6) / (x + 1e-6)\n"},
        "loses": {"test_exprel"},
        "bypass": "a derivative right at a removable singularity and near it, in both modes (custom_jvp)",
        "says": ["shifted x", "custom_jvp"],
    },
    # Bypass: a Python if for x = 0: fine on one concrete number, but a traced x has no truth value.
    "exprel_python_if": {
        "answers": {
            "exprel": "def exprel(x):\n    if x == 0:\n        return jnp.ones_like(x)\n    return jnp.expm1(x) / x\n",
        },
        "loses": {"test_exprel"},
        "bypass": "a derivative right at a removable singularity and near it, in both modes (custom_jvp)",
        "says": ["cannot be traced", "Python if"],
    },
    # Bypass: SciPy's exprel, in a callback: the right values, computed outside the program, with no derivative.
    "exprel_scipy_callback": {
        "answers": {
            "exprel": "import scipy.special\n\n\n"
            "def exprel(x):\n"
            "    host = lambda x: scipy.special.exprel(x).astype(x.dtype)\n"
            "    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method='expand_dims')\n",
        },
        "loses": {"test_exprel"},
        "bypass": "a derivative right at a removable singularity and near it, in both modes (custom_jvp)",
        "says": ["pure_callback", "cannot differentiate"],
    },
    # Bypass: the Taylor series alone: autodiff is fine at 0, but it is exprel only near 0.
    "exprel_series_only": {
        "answers": {"exprel": "def exprel(x):\n    return 1 + x / 2 + x**2 / 6 + x**3 / 24 + x**4 / 120\n"},
        "loses": {"test_exprel"},
        "bypass": "a derivative right at a removable singularity and near it, in both modes (custom_jvp)",
        "says": ["truncated series", "only near 0"],
    },
    # A rule that handles x == 0 only: at tiny x that are not 0, (e^x - exprel(x)) / x has no digits left.
    "exprel_rule_exact_zero": {
        "answers": {
            "exprel": "@jax.custom_jvp\n"
            "def exprel(x):\n"
            "    safe = jnp.where(x == 0, 1.0, x)\n"
            "    return jnp.where(x == 0, 1.0, jnp.expm1(safe) / safe)\n\n\n"
            "@exprel.defjvp\n"
            "def exprel_jvp(primals, tangents):\n"
            "    (x,), (t,) = primals, tangents\n"
            "    y = exprel(x)\n"
            "    safe = jnp.where(x == 0, 1.0, x)\n"
            "    return y, jnp.where(x == 0, 0.5, (jnp.exp(x) - y) / safe) * t\n",
        },
        "loses": {"test_exprel"},
        "says": ["1e-20", "inexact", "not only at x == 0"],
    },
    # A rule that divides by x unguarded: nan at x = 0.
    "exprel_rule_divides_by_zero": {
        "answers": {
            "exprel": "@jax.custom_jvp\n"
            "def exprel(x):\n"
            "    safe = jnp.where(x == 0, 1.0, x)\n"
            "    return jnp.where(x == 0, 1.0, jnp.expm1(safe) / safe)\n\n\n"
            "@exprel.defjvp\n"
            "def exprel_jvp(primals, tangents):\n"
            "    (x,), (t,) = primals, tangents\n"
            "    y = exprel(x)\n"
            "    return y, (jnp.exp(x) - y) / x * t\n",
        },
        "loses": {"test_exprel"},
        "says": ["nan", "divides by x"],
    },
    # A right rule, but the value left as the formula: 0 / 0 at x = 0.
    "exprel_rule_value_nan": {
        "answers": {
            "exprel": "@jax.custom_jvp\n"
            "def exprel(x):\n"
            "    return jnp.expm1(x) / x\n\n\n"
            "@exprel.defjvp\n"
            "def exprel_jvp(primals, tangents):\n"
            "    (x,), (t,) = primals, tangents\n"
            "    y = exprel(x)\n"
            "    small = jnp.abs(x) < 0.1\n"
            "    safe = jnp.where(small, 1.0, x)\n"
            "    return y, jnp.where(small, 0.5 + x / 3 + x**2 / 8 + x**3 / 30, (jnp.exp(x) - y) / safe) * t\n",
        },
        "loses": {"test_exprel"},
        "says": ["exprel(0) is nan", "0 / 0"],
    },
    # Right in reverse mode, but a custom_vjp has no forward mode: jax.jvp raises.
    "exprel_custom_vjp": {
        "answers": {
            "exprel": "@jax.custom_vjp\n"
            "def exprel(x):\n"
            "    safe = jnp.where(x == 0, 1.0, x)\n"
            "    return jnp.where(x == 0, 1.0, jnp.expm1(safe) / safe)\n\n\n"
            "def exprel_fwd(x):\n"
            "    y = exprel(x)\n"
            "    return y, (x, y)\n\n\n"
            "def exprel_bwd(residuals, g):\n"
            "    x, y = residuals\n"
            "    small = jnp.abs(x) < 0.1\n"
            "    safe = jnp.where(small, 1.0, x)\n"
            "    return (g * jnp.where(small, 0.5 + x / 3 + x**2 / 8 + x**3 / 30, (jnp.exp(x) - y) / safe),)\n\n\n"
            "exprel.defvjp(exprel_fwd, exprel_bwd)\n",
        },
        "loses": {"test_exprel"},
        "says": ["custom_vjp", "forward mode"],
    },
    # Bypass: the lecture's clip_gradient_to, names changed, its bounds -max_norm and max_norm: each entry is clipped
    # on its own, which turns the cotangent's direction.
    "clip_lecture_elementwise": {
        "answers": {
            "clip": "@partial(jax.custom_vjp, nondiff_argnums=(1,))\n"
            "def clip_gradient_norm(x, max_norm):\n"
            "    return x\n\n\n"
            "def clip_gradient_norm_fwd(x, max_norm):\n"
            "    return x, None\n\n\n"
            "def clip_gradient_norm_bwd(max_norm, _, g):\n"
            "    return (jax.tree.map(lambda leaf: jnp.clip(leaf, -max_norm, max_norm), g),)\n\n\n"
            "clip_gradient_norm.defvjp(clip_gradient_norm_fwd, clip_gradient_norm_bwd)\n",
        },
        "loses": {"test_clip_gradient"},
        "bypass": "a custom backward pass: identity forward, the cotangent scaled to a norm bound (custom_vjp)",
        "says": ["each entry", "direction"],
    },
    # Bypass: clipping the values by their norm, as an optimizer clips an update: the forward pass is no identity.
    "clip_forward": {
        "answers": {
            "clip": "def clip_gradient_norm(x, max_norm):\n"
            "    norm = jnp.sqrt(sum(jnp.sum(leaf**2) for leaf in jax.tree.leaves(x)))\n"
            "    return jax.tree.map(lambda leaf: leaf * jnp.minimum(1.0, max_norm / norm), x)\n",
        },
        "loses": {"test_clip_gradient"},
        "bypass": "a custom backward pass: identity forward, the cotangent scaled to a norm bound (custom_vjp)",
        "says": ["forward pass", "custom_vjp"],
    },
    # Bypass: custom_jvp where custom_vjp is taught: rescaling the tangent is fine forward, but reverse mode must
    # transpose the rule, and a tangent scaled by its own norm is not linear.
    "clip_custom_jvp": {
        "answers": {
            "clip": "@partial(jax.custom_jvp, nondiff_argnums=(1,))\n"
            "def clip_gradient_norm(x, max_norm):\n"
            "    return x\n\n\n"
            "@clip_gradient_norm.defjvp\n"
            "def clip_gradient_norm_jvp(max_norm, primals, tangents):\n"
            "    (x,), (t,) = primals, tangents\n"
            "    norm = jnp.sqrt(sum(jnp.sum(leaf**2) for leaf in jax.tree.leaves(t)))\n"
            "    return x, jax.tree.map(lambda leaf: leaf * jnp.minimum(1.0, max_norm / norm), t)\n",
        },
        "loses": {"test_clip_gradient"},
        "bypass": "a custom backward pass: identity forward, the cotangent scaled to a norm bound (custom_vjp)",
        "says": ["custom_jvp", "linear", "custom_vjp"],
    },
    # Bypass: lecture 11's stop_gradient trick: the value is x, but the gradient is that of clipping x by its norm,
    # computed from x, not from the cotangent.
    "clip_stop_gradient": {
        "answers": {
            "clip": "def clip_gradient_norm(x, max_norm):\n"
            "    norm = jnp.sqrt(sum(jnp.sum(leaf**2) for leaf in jax.tree.leaves(x)))\n"
            "    clipped = jax.tree.map(lambda leaf: leaf * jnp.minimum(1.0, max_norm / norm), x)\n"
            "    return jax.tree.map(lambda c, leaf: c + jax.lax.stop_gradient(leaf - c), clipped, x)\n",
        },
        "loses": {"test_clip_gradient"},
        "bypass": "a custom backward pass: identity forward, the cotangent scaled to a norm bound (custom_vjp)",
        "says": ["computed from g itself", "custom_vjp"],
    },
    # Bypass: passes the visible tests, whose max_norm is 1.0, by scaling to that: the hidden test catches it.
    "clip_norm_hardcoded": {
        "answers": {
            "clip": "@jax.custom_vjp\n"
            "def _clip(x):\n"
            "    return x\n\n\n"
            "def _clip_bwd(_, g):\n"
            "    norm = jnp.sqrt(sum(jnp.sum(leaf**2) for leaf in jax.tree.leaves(g)))\n"
            "    return (jax.tree.map(lambda leaf: leaf * jnp.minimum(1.0, 1.0 / norm), g),)\n\n\n"
            "_clip.defvjp(lambda x: (x, None), _clip_bwd)\n\n\n"
            "def clip_gradient_norm(x, max_norm):\n"
            "    return _clip(x)\n",
        },
        "loses": {"test_clip_gradient"},
        "bypass": "a custom backward pass: identity forward, the cotangent scaled to a norm bound (custom_vjp)",
        "says": ["on hidden inputs", "another length than the max_norm"],
    },
    # Each leaf clipped by its own norm, not by the norm of the whole tree.
    "clip_per_leaf": {
        "answers": {
            "clip": "@partial(jax.custom_vjp, nondiff_argnums=(1,))\n"
            "def clip_gradient_norm(x, max_norm):\n"
            "    return x\n\n\n"
            "def clip_leaf(leaf, max_norm):\n"
            "    return leaf * jnp.minimum(1.0, max_norm / jnp.sqrt(jnp.sum(leaf**2)))\n\n\n"
            "clip_gradient_norm.defvjp(lambda x, max_norm: (x, None),\n"
            "                          lambda max_norm, _, g: (jax.tree.map(lambda leaf: clip_leaf(leaf, max_norm), g),))\n",
        },
        "loses": {"test_clip_gradient"},
        "says": ["each leaf", "whole tree"],
    },
    # The factor written as g / |g| * min(|g|, max_norm): 0 / 0 for a cotangent of zeros.
    "clip_divides_by_zero": {
        "answers": {
            "clip": "@partial(jax.custom_vjp, nondiff_argnums=(1,))\n"
            "def clip_gradient_norm(x, max_norm):\n"
            "    return x\n\n\n"
            "def clip_gradient_norm_bwd(max_norm, _, g):\n"
            "    norm = jnp.sqrt(jax.tree.reduce(lambda total, leaf: total + jnp.sum(leaf**2), g, 0.0))\n"
            "    return (jax.tree.map(lambda leaf: leaf / norm * jnp.minimum(norm, max_norm), g),)\n\n\n"
            "clip_gradient_norm.defvjp(lambda x, max_norm: (x, None), clip_gradient_norm_bwd)\n",
        },
        "loses": {"test_clip_gradient"},
        "says": ["nan", "divides by |g|"],
    },
    # Every cotangent scaled to the length max_norm, short ones up too.
    "clip_always_normalises": {
        "answers": {
            "clip": "@partial(jax.custom_vjp, nondiff_argnums=(1,))\n"
            "def clip_gradient_norm(x, max_norm):\n"
            "    return x\n\n\n"
            "def clip_gradient_norm_bwd(max_norm, _, g):\n"
            "    norm = jnp.sqrt(jax.tree.reduce(lambda total, leaf: total + jnp.sum(leaf**2), g, 0.0))\n"
            "    return (jax.tree.map(lambda leaf: leaf * max_norm / jnp.where(norm > 0, norm, 1.0), g),)\n\n\n"
            "clip_gradient_norm.defvjp(lambda x, max_norm: (x, None), clip_gradient_norm_bwd)\n",
        },
        "loses": {"test_clip_gradient"},
        "says": ["a short one up too"],
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
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # The jvp rule returns the tangent alone: a custom_jvp rule returns (primal out, tangent out).
    "exprel_rule_returns_tangent_only": {
        "answers": {
            "exprel": "@jax.custom_jvp\n"
            "def exprel(x):\n"
            "    safe = jnp.where(x == 0, 1.0, x)\n"
            "    return jnp.where(x == 0, 1.0, jnp.expm1(safe) / safe)\n\n\n"
            "@exprel.defjvp\n"
            "def exprel_jvp(primals, tangents):\n"
            "    (x,), (t,) = primals, tangents\n"
            "    y = exprel(x)\n"
            "    small = jnp.abs(x) < 0.1\n"
            "    safe = jnp.where(small, 1.0, x)\n"
            "    slope = jnp.where(small, 0.5 + x / 3 + x**2 / 8 + x**3 / 30, (jnp.exp(x) - y) / safe)\n"
            "    return slope * t\n",
        },
        "loses": {"test_exprel"},
        "says": ["return y, slope * t", "Reread:"],
    },
    # The forward pass returns the output alone: a custom_vjp fwd returns (output, residuals).
    "clip_fwd_returns_output_only": {
        "answers": {
            "clip": "@partial(jax.custom_vjp, nondiff_argnums=(1,))\n"
            "def clip_gradient_norm(x, max_norm):\n"
            "    return x\n\n\n"
            "def clip_gradient_norm_fwd(x, max_norm):\n"
            "    return x\n\n\n"
            "def clip_gradient_norm_bwd(max_norm, _, g):\n"
            "    norm = jnp.sqrt(jax.tree.reduce(lambda total, leaf: total + jnp.sum(leaf**2), g, 0.0))\n"
            "    scale = jnp.minimum(1.0, max_norm / norm)\n"
            "    return (jax.tree.map(lambda leaf: scale * leaf, g),)\n\n\n"
            "clip_gradient_norm.defvjp(clip_gradient_norm_fwd, clip_gradient_norm_bwd)\n",
        },
        "loses": {"test_clip_gradient"},
        "says": ["return x, None", "Reread:"],
    },
    # The backward pass returns the clipped cotangent bare: bwd returns a tuple, one entry per differentiated input.
    "clip_bwd_returns_bare_cotangent": {
        "answers": {
            "clip": "@partial(jax.custom_vjp, nondiff_argnums=(1,))\n"
            "def clip_gradient_norm(x, max_norm):\n"
            "    return x\n\n\n"
            "def clip_gradient_norm_fwd(x, max_norm):\n"
            "    return x, None\n\n\n"
            "def clip_gradient_norm_bwd(max_norm, _, g):\n"
            "    norm = jnp.sqrt(jax.tree.reduce(lambda total, leaf: total + jnp.sum(leaf**2), g, 0.0))\n"
            "    scale = jnp.minimum(1.0, max_norm / norm)\n"
            "    return jax.tree.map(lambda leaf: scale * leaf, g)\n\n\n"
            "clip_gradient_norm.defvjp(clip_gradient_norm_fwd, clip_gradient_norm_bwd)\n",
        },
        "loses": {"test_clip_gradient"},
        "says": ["(cotangent,)", "trailing comma", "Reread:"],
    },
    # The backward pass written without the nondiff argument, which custom_vjp passes to it first.
    "clip_bwd_without_max_norm": {
        "answers": {
            "clip": "@partial(jax.custom_vjp, nondiff_argnums=(1,))\n"
            "def clip_gradient_norm(x, max_norm):\n"
            "    return x\n\n\n"
            "def clip_gradient_norm_fwd(x, max_norm):\n"
            "    return x, max_norm\n\n\n"
            "def clip_gradient_norm_bwd(max_norm, g):\n"
            "    norm = jnp.sqrt(jax.tree.reduce(lambda total, leaf: total + jnp.sum(leaf**2), g, 0.0))\n"
            "    scale = jnp.minimum(1.0, max_norm / norm)\n"
            "    return (jax.tree.map(lambda leaf: scale * leaf, g),)\n\n\n"
            "clip_gradient_norm.defvjp(clip_gradient_norm_fwd, clip_gradient_norm_bwd)\n",
        },
        "loses": {"test_clip_gradient"},
        "says": ["nondiff_argnums", "(max_norm, residuals, g)", "Reread:"],
    },
    # The fori_loop body written with the vector alone: fori_loop calls it with (i, v).
    "eigen_body_without_index": {
        "answers": {
            "eigen": "def top_eigenvalue(A, steps):\n"
            "    def step(v):\n"
            "        w = A @ v\n"
            "        return w / jnp.linalg.norm(w)\n\n"
            "    v = jax.lax.fori_loop(0, steps, step, jnp.ones(A.shape[0], A.dtype) / np.sqrt(A.shape[0]))\n"
            "    return v @ A @ v\n",
        },
        "loses": {"test_eigen", "test_eigen_structure"},
        "says": ["def step(i, v)", "Reread:"],
    },
    # Correct, written another way: no rule, but a value that autodiff differentiates right everywhere: the series
    # where |x| < 0.1, the formula elsewhere (its safe where keeps the branch not taken finite); the norm bound
    # passed as an ordinary argument and saved as a residual, with None as its cotangent; the norm of all the leaves
    # concatenated.
    "alternatives_series_value_residual_bound": {
        "answers": {
            "exprel": "def exprel(x):\n"
            "    small = jnp.abs(x) < 0.1\n"
            "    safe = jnp.where(small, 1.0, x)\n"
            "    series = 1 + x / 2 + x**2 / 6 + x**3 / 24 + x**4 / 120\n"
            "    return jnp.where(small, series, jnp.expm1(safe) / safe)\n",
            "clip": "@jax.custom_vjp\n"
            "def clip_gradient_norm(x, max_norm):\n"
            "    return x\n\n\n"
            "def clip_gradient_norm_fwd(x, max_norm):\n"
            "    return x, max_norm\n\n\n"
            "def clip_gradient_norm_bwd(max_norm, g):\n"
            "    norm = jnp.linalg.norm(jnp.concatenate([jnp.ravel(leaf) for leaf in jax.tree.leaves(g)]))\n"
            "    factor = jnp.where(norm > max_norm, max_norm / jnp.where(norm > 0, norm, 1.0), 1.0)\n"
            "    return jax.tree.map(lambda leaf: factor * leaf, g), None\n\n\n"
            "clip_gradient_norm.defvjp(clip_gradient_norm_fwd, clip_gradient_norm_bwd)\n",
        },
        "loses": set(),
        "alternative": "a series for the value near 0 instead of a custom_jvp rule; the norm bound saved as a residual "
        "instead of nondiff_argnums, the norm of the concatenated leaves",
    },
    # Correct, another way: the rule's slope written as (x e^x - expm1(x)) / x**2; the rescaled backward pass with
    # jax.custom_gradient, the bound closed over; the checkpoint written by hand, a custom_vjp that keeps the block's
    # inputs and recomputes it in the backward pass.
    "alternatives_custom_gradient_hand_written_remat": {
        "answers": {
            "exprel": "@jax.custom_jvp\n"
            "def exprel(x):\n"
            "    zero = x == 0\n"
            "    return jnp.where(zero, 1.0, jnp.expm1(jnp.where(zero, 1.0, x)) / jnp.where(zero, 1.0, x))\n\n\n"
            "def slope(x):\n"
            "    small = jnp.abs(x) < 0.05\n"
            "    s = jnp.where(small, 1.0, x)\n"
            "    return jnp.where(small, 0.5 + x / 3 + x**2 / 8 + x**3 / 30, (s * jnp.exp(s) - jnp.expm1(s)) / s**2)\n\n\n"
            "exprel.defjvp(lambda primals, tangents: (exprel(primals[0]), slope(primals[0]) * tangents[0]))\n",
            "clip": "def clip_gradient_norm(x, max_norm):\n"
            "    @jax.custom_gradient\n"
            "    def identity(x):\n"
            "        def backward(g):\n"
            "            norm = jnp.sqrt(sum(jnp.sum(leaf**2) for leaf in jax.tree.leaves(g)))\n"
            "            return (jax.tree.map(lambda leaf: leaf * jnp.minimum(1.0, max_norm / norm), g),)\n\n"
            "        return x, backward\n\n"
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
        "alternative": "the rule's slope as (x e^x - expm1(x)) / x**2 past a smaller threshold; jax.custom_gradient "
        "instead of custom_vjp; a checkpoint written by hand as a custom_vjp that recomputes",
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
