"""Wrong answers to set 09_capstone (see tests/variants/__init__.py)."""

VARIANTS = {
    # Assumes two classes: right on the visible test, the wrong shape on the hidden one.
    "predict_two_classes_hardcoded": {
        "answers": {
            "predict": "def predict(params, X):\n    return jax.vmap(forward_one, in_axes=(None, 0))(params, X)[:, :2]\n"
        },
        "loses": {"test_predict"},
        "says": ["hidden input", "shape"],
    },
    # Bypass: a Python loop over the rows instead of vmap: right values, but the traced program
    # holds one copy of the network per example (and so does every jitted step built on it).
    "predict_row_loop": {
        "answers": {"predict": "def predict(params, X):\n    return jnp.stack([forward_one(params, x) for x in X])\n"},
        "loses": {"test_predict"},
        "bypass": "a batch computed at once (vmap), not a Python loop over the rows",
        "says": ["jax.vmap"],
    },
    # Correct, another way: the forward pass batched by hand, a matrix of rows through each layer.
    "predict_batched_by_hand": {
        "answers": {
            "predict": "def predict(params, X):\n"
            "    for layer in params[:-1]:\n"
            "        X = jnp.tanh(X @ layer['W'] + layer['b'])\n"
            "    return X @ params[-1]['W'] + params[-1]['b']\n",
        },
        "loses": set(),
        "alternative": "the forward pass written for a batch by hand, instead of vmap",
    },
    # Climbs the loss: the step, and everything trained with it, goes wrong.
    "step_gradient_ascent": {
        "answers": {
            "step": "@jax.jit\n"
            "def train_step(params, X, y, lr):\n"
            "    loss, grads = jax.value_and_grad(loss_fn)(params, X, y)\n"
            "    return jax.tree.map(lambda p, g: p + lr * g, params, grads), loss\n",
        },
        # Fast but wrong: the speed cell's hidden test checks the timed function's result too.
        "loses": {"test_epoch", "test_epoch_compiles_once", "test_fit", "test_speed", "test_step"},
        "says": {
            "test_step": ["did not lower the loss", "p - lr * g"],
            "test_epoch": ["below the starting loss"],
            "test_fit": ["90% is needed"],
            "test_epoch_compiles_once": ["make the values right first"],
            "test_speed": ["make the values right first"],
        },
    },
    # Bypass: the right step, not jitted: every operation dispatched from Python. Problem 2 asks
    # for it jitted (check_jitted), Problem 5 times it.
    "step_not_jitted": {
        "answers": {
            "step": "def train_step(params, X, y, lr):\n"
            "    loss, grads = jax.value_and_grad(loss_fn)(params, X, y)\n"
            "    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss\n",
        },
        "loses": {"test_step", "test_speed"},
        "bypass": "a step jitted as a whole, compiled once",
        "says": {"test_step": ["not jitted", "@jax.jit"], "test_speed": ["@jax.jit"]},
    },
    # Correct but slow: a new jitted function, so a compilation, on every call.
    "step_jit_every_call": {
        "answers": {
            "step": "def train_step(params, X, y, lr):\n"
            "    step = jax.jit(lambda p: jax.value_and_grad(loss_fn)(p, X, y))\n"
            "    loss, grads = step(params)\n"
            "    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss\n",
        },
        "loses": {"test_step", "test_speed"},
        "says": {
            "test_step": ["not jitted"],
            "test_speed": ["a jax.jit created inside the function compiles on every call"],
        },
    },
    # Correct, another way: the loss and the gradient in two calls, each layer's dict updated by hand.
    "step_grad_then_loss": {
        "answers": {
            "step": "@jax.jit\n"
            "def train_step(params, X, y, lr):\n"
            "    grads = jax.grad(loss_fn)(params, X, y)\n"
            "    new = [{name: layer[name] - lr * g[name] for name in layer} for layer, g in zip(params, grads)]\n"
            "    return new, loss_fn(params, X, y)\n",
        },
        "loses": set(),
        "alternative": "jax.grad and loss_fn called apart, a list of dict comprehensions instead of jax.tree.map",
    },
    # Right values, but a Python loop dispatches every minibatch.
    "epoch_python_loop": {
        "answers": {
            "epoch": "def train_epoch(params, X, y, key, lr):\n"
            "    perm = jax.random.permutation(key, X.shape[0])\n"
            "    X, y = X[perm], y[perm]\n"
            "    losses = []\n"
            "    for b in range(X.shape[0] // BATCH):\n"
            "        params, loss = train_step(params, X[b * BATCH : (b + 1) * BATCH], y[b * BATCH : (b + 1) * BATCH], lr)\n"
            "        losses.append(loss)\n"
            "    return params, jnp.mean(jnp.stack(losses))\n",
        },
        "loses": {"test_epoch_compiles_once"},
        "says": ["not jitted"],
    },
    # Right values, but the epoch is compiled again on every call.
    "epoch_jit_every_call": {
        "answers": {
            "epoch": "def train_epoch(params, X, y, key, lr):\n"
            "    def epoch(params, X, y, key):\n"
            "        perm = jax.random.permutation(key, X.shape[0])\n"
            "        batches = X.shape[0] // BATCH\n"
            "        Xb = X[perm][: batches * BATCH].reshape(batches, BATCH, -1)\n"
            "        yb = y[perm][: batches * BATCH].reshape(batches, BATCH)\n"
            "        params, losses = jax.lax.scan(lambda p, b: train_step(p, *b, lr), params, (Xb, yb))\n"
            "        return params, jnp.mean(losses)\n"
            "    return jax.jit(epoch)(params, X, y, key)\n",
        },
        "loses": {"test_epoch_compiles_once"},
        "says": ["compiled 3 times", "@jax.jit once"],
    },
    # Never shuffles: another key gives the same epoch, and the values differ from the recipe.
    "epoch_no_shuffle": {
        "answers": {
            "epoch": "@jax.jit\n"
            "def train_epoch(params, X, y, key, lr):\n"
            "    batches = X.shape[0] // BATCH\n"
            "    Xb = X[: batches * BATCH].reshape(batches, BATCH, -1)\n"
            "    yb = y[: batches * BATCH].reshape(batches, BATCH)\n"
            "    params, losses = jax.lax.scan(lambda p, b: train_step(p, *b, lr), params, (Xb, yb))\n"
            "    return params, jnp.mean(losses)\n",
        },
        "loses": {"test_epoch", "test_epoch_compiles_once"},
        "says": {
            "test_epoch": ["does not use its key", "jax.random.permutation"],
            "test_epoch_compiles_once": ["make the values right first"],
        },
    },
    # Bypass: jit around a Python loop over minibatches, one copy of the step per minibatch.
    "epoch_unrolled_under_jit": {
        "answers": {
            "epoch": "@jax.jit\n"
            "def train_epoch(params, X, y, key, lr):\n"
            "    perm = jax.random.permutation(key, X.shape[0])\n"
            "    X, y = X[perm], y[perm]\n"
            "    losses = []\n"
            "    for b in range(X.shape[0] // BATCH):\n"
            "        rows = slice(b * BATCH, (b + 1) * BATCH)\n"
            "        params, loss = train_step(params, X[rows], y[rows], lr)\n"
            "        losses.append(loss)\n"
            "    return params, jnp.mean(jnp.stack(losses))\n",
        },
        "loses": {"test_epoch_compiles_once"},
        "bypass": "an epoch compiled once, looping with lax.scan",
        "says": ["jax.lax.scan"],
    },
    # Starts every epoch from the initial params: ten epochs train as much as one.
    "fit_forgets_params": {
        "answers": {
            "fit": "def fit(key, X, y, epochs):\n"
            "    init_key, shuffle_key = jax.random.split(key)\n"
            "    params = init_mlp(init_key, SIZES)\n"
            "    for epoch in range(epochs):\n"
            "        trained, _ = train_epoch(params, X, y, jax.random.fold_in(shuffle_key, epoch), 0.5)\n"
            "    return trained\n",
        },
        "loses": {"test_fit"},
        "says": ["previous epoch's params"],
    },
    # Bypass: params trained once on the notebook's own data, returned whatever fit is given:
    # accurate on any rings, but not trained by the loop on the data passed in.
    "fit_returns_precomputed": {
        "answers": {
            "fit": "def _fit(key, X, y, epochs):\n"
            "    init_key, shuffle_key = jax.random.split(key)\n"
            "    params = init_mlp(init_key, SIZES)\n"
            "    for epoch in range(epochs):\n"
            "        params, _ = train_epoch(params, X, y, jax.random.fold_in(shuffle_key, epoch), 0.5)\n"
            "    return params\n\n\n"
            "TRAINED = _fit(jax.random.key(2), X_train, y_train, 10)\n\n\n"
            "def fit(key, X, y, epochs):\n"
            "    return TRAINED\n",
        },
        "loses": {"test_fit"},
        "bypass": "the training loop itself, on the data and key given",
        "says": ["follow the recipe"],
    },
    # Correct, another way: the epochs in a lax.fori_loop, params as its carry.
    "fit_fori_loop": {
        "answers": {
            "fit": "def fit(key, X, y, epochs):\n"
            "    init_key, shuffle_key = jax.random.split(key)\n"
            "    epoch = lambda e, p: train_epoch(p, X, y, jax.random.fold_in(shuffle_key, e), 0.5)[0]\n"
            "    return jax.lax.fori_loop(0, epochs, epoch, init_mlp(init_key, SIZES))\n",
        },
        "loses": set(),
        "alternative": "jax.lax.fori_loop over the epochs instead of a Python loop",
    },
    # The classic mistakes (issue #35): what each costs, and the words that name it.
    # The gradient of the per-example losses, a vector: there is no scalar to differentiate.
    "step_grad_of_per_example_losses": {
        "answers": {
            "step": "@jax.jit\n"
            "def train_step(params, X, y, lr):\n"
            "    losses = lambda p: jax.vmap(loss_one, in_axes=(None, 0, 0))(p, X, y)\n"
            "    loss, grads = jax.value_and_grad(losses)(params)\n"
            "    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss\n",
        },
        "loses": {"test_epoch", "test_epoch_compiles_once", "test_fit", "test_speed", "test_step"},
        "says": ["scalar-output"],
    },
    # Harmless here: NumPy's in-place update of each layer (layer[name] -= ...) inside jit. The dicts are
    # jit's own copies, and -= on a JAX array makes a new one: the caller's params are untouched.
    "step_in_place_update": {
        "answers": {
            "step": "@jax.jit\n"
            "def train_step(params, X, y, lr):\n"
            "    loss, grads = jax.value_and_grad(loss_fn)(params, X, y)\n"
            "    for layer, g in zip(params, grads):\n"
            "        for name in layer:\n"
            "            layer[name] -= lr * g[name]\n"
            "    return params, loss\n",
        },
        "loses": set(),
    },
    # A side effect under jit: each minibatch's loss appended to a list inside the scan, then read outside it.
    "epoch_losses_appended_in_scan": {
        "answers": {
            "epoch": "@jax.jit\n"
            "def train_epoch(params, X, y, key, lr):\n"
            "    perm = jax.random.permutation(key, X.shape[0])\n"
            "    batches = X.shape[0] // BATCH\n"
            "    Xb = X[perm][: batches * BATCH].reshape(batches, BATCH, -1)\n"
            "    yb = y[perm][: batches * BATCH].reshape(batches, BATCH)\n"
            "    losses = []\n\n"
            "    def body(p, batch):\n"
            "        p, loss = train_step(p, *batch, lr)\n"
            "        losses.append(loss)\n"
            "        return p, None\n\n"
            "    params, _ = jax.lax.scan(body, params, (Xb, yb))\n"
            "    return params, jnp.mean(jnp.stack(losses))\n",
        },
        "loses": {"test_epoch", "test_epoch_compiles_once", "test_fit"},
        "says": ["unexpected tracer", "must be pure"],
    },
    # The parent key used again after splitting it: the parameters drawn from key itself.
    "fit_parent_key_after_split": {
        "answers": {
            "fit": "def fit(key, X, y, epochs):\n"
            "    init_key, shuffle_key = jax.random.split(key)\n"
            "    params = init_mlp(key, SIZES)\n"
            "    for epoch in range(epochs):\n"
            "        params, _ = train_epoch(params, X, y, jax.random.fold_in(shuffle_key, epoch), 0.5)\n"
            "    return params\n",
        },
        "loses": {"test_fit"},
        "says": ["never use key itself again after splitting it"],
    },
    # One shuffle key for every epoch: every epoch sees the minibatches in the same order.
    "fit_reuses_shuffle_key": {
        "answers": {
            "fit": "def fit(key, X, y, epochs):\n"
            "    init_key, shuffle_key = jax.random.split(key)\n"
            "    params = init_mlp(init_key, SIZES)\n"
            "    for epoch in range(epochs):\n"
            "        params, _ = train_epoch(params, X, y, shuffle_key, 0.5)\n"
            "    return params\n",
        },
        "loses": {"test_fit"},
        "says": ["jax.random.fold_in(shuffle_key, e)"],
    },
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # vmap maps the parameters too: in_axes defaults to 0 for every argument, and params are shared by all rows.
    "predict_vmap_maps_params": {
        "answers": {"predict": "def predict(params, X):\n    return jax.vmap(forward_one)(params, X)\n"},
        # fit's test measures accuracy with predict.
        "loses": {"test_predict", "test_fit"},
        "says": {"test_predict": ["in_axes=(None, 0)", "Reread:"], "test_fit": ["in_axes", "Reread:"]},
    },
    # The new parameters returned alone, where the test unpacks (new params, loss).
    "step_returns_params_only": {
        "answers": {
            "step": "@jax.jit\n"
            "def train_step(params, X, y, lr):\n"
            "    grads = jax.grad(loss_fn)(params, X, y)\n"
            "    return jax.tree.map(lambda p, g: p - lr * g, params, grads)\n",
        },
        # Everything trained with it unpacks or scans its result too.
        "loses": {"test_step", "test_epoch", "test_epoch_compiles_once", "test_fit", "test_speed"},
        "says": {
            "test_step": ["values to unpack", "jax.value_and_grad(loss_fn)", "Reread:"],
            "test_epoch": ["(new params, loss)", "Reread:"],
            "test_epoch_compiles_once": ["(new params, loss)", "Reread:"],
            "test_fit": ["(new params, loss)", "Reread:"],
            "test_speed": ["wrong structure", "Reread:"],
        },
    },
    # The minibatch handed to train_step as one argument: scan gives the body the pair (X batch, y batch).
    "epoch_batch_not_unpacked": {
        "answers": {
            "epoch": "@jax.jit\n"
            "def train_epoch(params, X, y, key, lr):\n"
            "    perm = jax.random.permutation(key, X.shape[0])\n"
            "    batches = X.shape[0] // BATCH\n"
            "    X_batches = X[perm][: batches * BATCH].reshape(batches, BATCH, -1)\n"
            "    y_batches = y[perm][: batches * BATCH].reshape(batches, BATCH)\n"
            "    params, losses = jax.lax.scan(lambda p, batch: train_step(p, batch, lr), params, (X_batches, y_batches))\n"
            "    return params, jnp.mean(losses)\n",
        },
        "loses": {"test_epoch", "test_epoch_compiles_once", "test_fit"},
        "says": ["train_step(p, *batch, lr)", "Reread:"],
    },
    # Double precision switched on for the whole notebook (in the first answer cell), with the reference answers:
    # the course's data and parameters are drawn in float32 whatever the setting, so every answer keeps its points.
    "x64_switched_on": {
        "answers": {
            "predict": (
                "jax.config.update('jax_enable_x64', True)\n"
                "\n"
                "\n"
                "def predict(params, X):\n"
                "    return jax.vmap(forward_one, in_axes=(None, 0))(params, X)\n"
            ),
        },
        "setting": "jax_enable_x64",
        "loses": set(),
        "alternative": "the reference answers with jax_enable_x64 switched on for the whole notebook",
    },
}
