"""Wrong answers to set 06_grad (see tests/variants/__init__.py)."""

VARIANTS = {
    # Passes the visible test by returning its expected outputs: the hidden test catches it.
    "grads_hardcoded": {
        "answers": {
            "grads": "def grads_xy(f, x, y):\n"
            "    return (jnp.array([2.0, 0.52829945, -3.7452471]), jnp.array([0.0, 1.6279187, -5.455834]))\n",
        },
        "loses": {"test_grads"},
        "says": ["hidden inputs"],
    },
    "grads_only_x": {
        "answers": {"grads": "def grads_xy(f, x, y):\n    return jax.grad(f)(x, y)\n"},
        "loses": {"test_grads"},
        # One gradient of shape (3,), shown as one array, not as three numbers.
        "says": ["wrong structure", "expected (float32[3], float32[3]), got float32[3]", "argnums=(0, 1)"],
    },
    # Bypass: derivatives of the visible f worked out by hand (the test cell shows them): no autodiff.
    "grads_by_hand": {
        "answers": {
            "grads": "def grads_xy(f, x, y):\n"
            "    sech2 = 1 / jnp.cosh(x * y) ** 2\n"
            "    return y * sech2 + jnp.cos(x) * y**2, x * sech2 + 2 * jnp.sin(x) * y\n",
        },
        "loses": {"test_grads"},
        "bypass": "jax.grad with argnums, for any f",
        "says": ["by hand", "jax.grad(f, argnums=(0, 1))"],
    },
    # Differentiates with respect to the data instead of the parameters.
    "tree_wrt_inputs": {
        "answers": {
            "tree": "def loss_and_grads(loss, params, X, y):\n"
            "    return jax.value_and_grad(loss, argnums=1)(params, X, y)\n"
        },
        "loses": {"test_tree"},
        "says": ["wrong structure", "argnums=0"],
    },
    # Bypass: central differences on every entry of the flattened parameters: no autodiff, and
    # float32 differences are only good to about 1e-4.
    "tree_finite_differences": {
        "answers": {
            "tree": "def loss_and_grads(loss, params, X, y):\n"
            "    from jax.flatten_util import ravel_pytree\n"
            "    flat, unravel = ravel_pytree(params)\n"
            "    steps = 1e-3 * jnp.eye(flat.size)\n"
            "    slopes = [(loss(unravel(flat + e), X, y) - loss(unravel(flat - e), X, y)) / 2e-3 for e in steps]\n"
            "    return loss(params, X, y), unravel(jnp.stack(slopes))\n",
        },
        "loses": {"test_tree"},
        "bypass": "jax.value_and_grad of a pytree",
        "says": ["finite difference", "jax.value_and_grad"],
    },
    "train_gradient_ascent": {
        "answers": {
            "train": "def train(loss, params, X, y, lr, steps):\n"
            "    losses = []\n"
            "    for _ in range(steps):\n"
            "        value, grads = jax.value_and_grad(loss)(params, X, y)\n"
            "        params = jax.tree.map(lambda p, g: p + lr * g, params, grads)\n"
            "        losses.append(value)\n"
            "    return params, jnp.stack(losses)\n",
        },
        "loses": {"test_train"},
        "says": ["should fall", "p - lr * g", "Reread:"],
    },
    # Records the loss after each step, not before it: the curve is shifted by one step.
    "train_loss_after_step": {
        "answers": {
            "train": "def train(loss, params, X, y, lr, steps):\n"
            "    losses = []\n"
            "    for _ in range(steps):\n"
            "        grads = jax.grad(loss)(params, X, y)\n"
            "        params = jax.tree.map(lambda p, g: p - lr * g, params, grads)\n"
            "        losses.append(loss(params, X, y))\n"
            "    return params, jnp.stack(losses)\n",
        },
        "loses": {"test_train"},
        "says": ["before the first step"],
    },
    # Bypass: the logistic loss's gradient written by hand (X.T @ (sigmoid - y) / n): no autodiff.
    "train_hand_gradient": {
        "answers": {
            "train": "def train(loss, params, X, y, lr, steps):\n"
            "    losses = []\n"
            "    for _ in range(steps):\n"
            "        logits = X @ params['w'] + params['b']\n"
            "        losses.append(jnp.mean(jnp.logaddexp(0.0, logits) - y * logits))\n"
            "        error = jax.nn.sigmoid(logits) - y\n"
            "        params = {'w': params['w'] - lr * X.T @ error / y.shape[0], 'b': params['b'] - lr * jnp.mean(error)}\n"
            "    return params, jnp.stack(losses)\n",
        },
        "loses": {"test_train"},
        "bypass": "a training step from jax.value_and_grad, for any loss",
        # A gradient written for the logistic loss has no log_width: the loss the learner has not seen shows it.
        "says": ["wrong structure", "a loss you have not seen"],
    },
    # Bypass: a central difference of two gradients: no Hessian, but only good to about 1e-4.
    "hvp_finite_differences": {
        "answers": {
            "hvp": "def hvp(f, x, v):\n"
            "    eps = 1e-3\n"
            "    return (jax.grad(f)(x + eps * v) - jax.grad(f)(x - eps * v)) / (2 * eps)\n",
        },
        "loses": {"test_hvp", "test_hvp_memory"},
        "bypass": "an exact HVP by composing JAX transformations",
        "says": {"test_hvp": ["finite difference"], "test_hvp_memory": ["make the values right first"]},
    },
    # Bypass: right values, but the n x n Hessian first.
    "hvp_full_hessian": {
        "answers": {"hvp": "def hvp(f, x, v):\n    return jax.hessian(f)(x) @ v\n"},
        "loses": {"test_hvp_memory"},
        "bypass": "an HVP without forming the Hessian",
        "says": ["n x n Hessian"],
    },
    # Right values, but each builds the n x n Hessian first.
    "hvp_jacfwd_of_grad": {
        "answers": {"hvp": "def hvp(f, x, v):\n    return jax.jacfwd(jax.grad(f))(x) @ v\n"},
        "loses": {"test_hvp_memory"},
        "says": ["n x n Hessian"],
    },
    "hvp_basis_vectors": {
        "answers": {
            "hvp": "def hvp(f, x, v):\n"
            "    columns = jax.vmap(lambda e: jax.jvp(jax.grad(f), (x,), (e,))[1])(jnp.eye(x.shape[0]))\n"
            "    return columns @ v\n",
        },
        "loses": {"test_hvp_memory"},
        "says": ["n x n Hessian"],
    },
    # Correct, written another way: forward-mode gradients (jacfwd of a scalar function), a dict
    # comprehension for the update, a reverse-over-reverse HVP, and jnp.maximum keeping the log's input
    # positive instead of a second jnp.where.
    "alternatives_jacfwd_comprehension_reverse_hvp_clamp": {
        "answers": {
            "grads": "def grads_xy(f, x, y):\n    return jax.jacfwd(f, argnums=(0, 1))(x, y)\n",
            "train": "def train(loss, params, X, y, lr, steps):\n"
            "    step = jax.jit(jax.value_and_grad(loss))\n"
            "    losses = []\n"
            "    for _ in range(steps):\n"
            "        value, grads = step(params, X, y)\n"
            "        params = {name: params[name] - lr * grads[name] for name in params}\n"
            "        losses.append(value)\n"
            "    return params, jnp.stack(losses)\n",
            "hvp": "def hvp(f, x, v):\n    return jax.grad(lambda x: jnp.vdot(jax.grad(f)(x), v))(x)\n",
            "nan": "def xlogx(x):\n    return jnp.where(x > 0, x * jnp.log(jnp.maximum(x, 1e-30)), 0.0)\n",
        },
        "loses": set(),
        "alternative": "jax.jacfwd for the two gradients, a dict comprehension for the update, reverse-over-reverse HVP, "
        "a clamped log instead of a second jnp.where",
    },
    # Right values, NaN gradient where x <= 0.
    "nan_single_where": {
        "answers": {"nan": "def xlogx(x):\n    return jnp.where(x > 0, x * jnp.log(x), 0.0)\n"},
        "loses": {"test_nan"},
        "says": ["both branches of jnp.where"],
    },
    # Bypass: nan_to_num cleans the values, not the gradient: the where's other branch still sends NaN back.
    "nan_to_num_forward": {
        "answers": {"nan": "def xlogx(x):\n    return jnp.nan_to_num(jnp.where(x > 0, x * jnp.log(x), 0.0))\n"},
        "loses": {"test_nan"},
        "bypass": "a where whose unselected branch has a finite gradient",
        "says": ["both branches of jnp.where"],
    },
    # The classic mistakes (issue #35): what each costs, and the words that name it.
    # Both gradients, in the wrong order: argnums=(1, 0).
    "grads_argnums_swapped": {
        "answers": {"grads": "def grads_xy(f, x, y):\n    return jax.grad(f, argnums=(1, 0))(x, y)\n"},
        "loses": {"test_grads"},
        "says": ["argnums=(0, 1)", "in that order"],
    },
    # argnums counted from 1, as a mathematician numbers the arguments: JAX's TypeError, and the course's words.
    "grads_argnums_from_one": {
        "answers": {"grads": "def grads_xy(f, x, y):\n    return jax.grad(f, argnums=(1, 2))(x, y)\n"},
        "loses": {"test_grads"},
        "says": ["argnums", "counts the arguments from 0"],
    },
    # Correct, another way: float64 "for accuracy", under jax_enable_x64. The gradients are right, in float64; the
    # problem is about which arguments are differentiated, not their dtype, so it keeps its point.
    "grads_float64_under_x64": {
        "answers": {
            "grads": "def grads_xy(f, x, y):\n"
            "    with jax.enable_x64(True):\n"
            "        return jax.grad(f, argnums=(0, 1))(x.astype(jnp.float64), y.astype(jnp.float64))\n",
        },
        "loses": set(),
        "alternative": "the gradients in float64 under jax.enable_x64: right values, in double precision",
    },
    # The gradient of a vector (the gradient times v, not its dot product with v): no scalar to differentiate.
    "hvp_grad_of_vector": {
        "answers": {"hvp": "def hvp(f, x, v):\n    return jax.grad(lambda x: jax.grad(f)(x) * v)(x)\n"},
        "loses": {"test_hvp", "test_hvp_memory"},
        "says": ["scalar-output", "jax.jvp(jax.grad(f), (x,), (v,))", "Reread:"],
    },
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # The Hessian-vector product as the gradient of the gradient: grad of an array.
    "hvp_grad_of_grad": {
        "answers": {"hvp": "def hvp(f, x, v):\n    return jax.grad(jax.grad(f))(x) @ v\n"},
        "loses": {"test_hvp", "test_hvp_memory"},
        "says": ["scalar-output", "jax.jvp(jax.grad(f), (x,), (v,))", "Reread:"],
    },
    # The gradients alone, where the test unpacks the loss and the gradients: Python's unpacking error.
    "tree_grad_alone": {
        "answers": {"tree": "def loss_and_grads(loss, params, X, y):\n    return jax.grad(loss)(params, X, y)\n"},
        "loses": {"test_tree"},
        "says": ["values to unpack", "jax.value_and_grad(loss)(params, X, y)", "Reread:"],
    },
    # A function handed to grad that returns the loss and more: has_aux is the way.
    "tree_loss_with_extra": {
        "answers": {
            "tree": "def loss_and_grads(loss, params, X, y):\n"
            "    value_and_params = lambda p: (loss(p, X, y), p)\n"
            "    grads = jax.grad(value_and_params)(params)\n"
            "    return loss(params, X, y), grads\n",
        },
        "loses": {"test_tree"},
        "says": ["has_aux", "Reread:"],
    },
    # The function's name misspelt in its answer cell: the test's NameError.
    "grads_misspelt": {
        "answers": {"grads": "def grad_xy(f, x, y):\n    return jax.grad(f, argnums=(0, 1))(x, y)\n"},
        "loses": {"test_grads"},
        "says": ["grads_xy", "spelling", "Reread:"],
    },
    # NumPy's habit: compute everywhere, then zero the bad entries in place. JAX arrays are immutable.
    "nan_in_place": {
        "answers": {
            "nan": "def xlogx(x):\n    out = x * jnp.log(x)\n    out[x <= 0] = 0.0\n    return out\n",
        },
        "loses": {"test_nan"},
        "says": ["immutable", "x.at[i].set"],
    },
    # A Python if per element (jnp.vectorize, like np.vectorize): vmap traces it, and the if meets a tracer.
    "nan_python_if": {
        "answers": {
            "nan": "def xlogx(x):\n    return jnp.vectorize(lambda v: v * jnp.log(v) if v > 0 else 0.0)(x)\n",
        },
        "loses": {"test_nan"},
        "says": ["Python if", "jnp.where"],
    },
    # A side effect under jit: the losses appended to a list inside the jitted step are tracers, appended once.
    "train_losses_appended_under_jit": {
        "answers": {
            "train": "def train(loss, params, X, y, lr, steps):\n"
            "    losses = []\n\n"
            "    @jax.jit\n"
            "    def step(params):\n"
            "        value, grads = jax.value_and_grad(loss)(params, X, y)\n"
            "        losses.append(value)\n"
            "        return jax.tree.map(lambda p, g: p - lr * g, params, grads)\n\n"
            "    for _ in range(steps):\n"
            "        params = step(params)\n"
            "    return params, jnp.stack(losses)\n",
        },
        "loses": {"test_train"},
        "says": ["unexpected tracer", "must be pure"],
    },
    # Harmless here: a jit created anew at every step compiles every step, slower but right (no test times train).
    "train_jit_every_step": {
        "answers": {
            "train": "def train(loss, params, X, y, lr, steps):\n"
            "    losses = []\n"
            "    for _ in range(steps):\n"
            "        value, grads = jax.jit(jax.value_and_grad(loss))(params, X, y)\n"
            "        params = jax.tree.map(lambda p, g: p - lr * g, params, grads)\n"
            "        losses.append(value)\n"
            "    return params, jnp.stack(losses)\n",
        },
        "loses": set(),
    },
    # Double precision switched on for the whole notebook (in the first answer cell), with the reference answers:
    # every answer returns its problem's values, in float64 where x64 makes them so, and keeps its points.
    "x64_switched_on": {
        "answers": {
            "grads": (
                "jax.config.update('jax_enable_x64', True)\n"
                "\n"
                "\n"
                "def grads_xy(f, x, y):\n"
                "    return jax.grad(f, argnums=(0, 1))(x, y)\n"
            ),
        },
        "setting": "jax_enable_x64",
        "loses": set(),
        "alternative": "the reference answers with jax_enable_x64 switched on for the whole notebook",
    },
}
