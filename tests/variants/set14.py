"""Wrong answers to set 14_ecosystem (see tests/variants/__init__.py)."""

# Set 14's `fit` answers share all but a line or two: Adam at `learning_rate` in an nnx.jit step, then
# `epochs`, the loop that fills `history`; `before` goes first (which data it trains on).
_EACH_EPOCH_A_NEW_ORDER = (
    "    for epoch in range(epochs):\n"
    "        rows = np.asarray(jax.random.permutation(jax.random.fold_in(key, epoch), len(X)))[: len(X) // 32 * 32].reshape(-1, 32)\n"
    "        history.append(float(jnp.mean(jnp.stack([step(model, optimizer, X[r], y[r]) for r in rows]))))\n"
)


def _fit(*, before: str = "", learning_rate: str = "1e-2", epochs: str = _EACH_EPOCH_A_NEW_ORDER) -> str:
    return (
        "def fit(model, X, y, *, epochs, key):\n"
        + before
        + f"    optimizer = nnx.Optimizer(model, optax.adam({learning_rate}), wrt=nnx.Param)\n\n"
        "    @nnx.jit\n"
        "    def step(model, optimizer, X, y):\n"
        "        loss, grads = nnx.value_and_grad(lambda m: optax.softmax_cross_entropy_with_integer_labels(m(X), y).mean())(model)\n"
        "        optimizer.update(model, grads)\n"
        "        return loss\n\n"
        "    history = []\n" + epochs + "    return history\n"
    )


VARIANTS = {
    # The convolutions without their biases: two parameters missing.
    "cnn_no_bias": {
        "answers": {
            "cnn": "class TinyCNN(nnx.Module):\n"
            "    def __init__(self, channels, classes, *, rngs):\n"
            "        self.conv1 = nnx.Conv(1, channels, (3, 3), use_bias=False, rngs=rngs)\n"
            "        self.conv2 = nnx.Conv(channels, 2 * channels, (3, 3), use_bias=False, rngs=rngs)\n"
            "        self.head = nnx.Linear(4 * 4 * 2 * channels, classes, rngs=rngs)\n\n"
            "    def __call__(self, x):\n"
            "        x = jax.nn.relu(self.conv1(x))\n"
            "        x = jax.nn.relu(self.conv2(x))\n"
            "        x = nnx.avg_pool(x, (2, 2), strides=(2, 2))\n"
            "        return self.head(x.reshape(x.shape[0], -1))\n",
        },
        "loses": {"test_cnn"},
    },
    # The head created first: it draws the first key from rngs, so every layer gets another key.
    "cnn_rngs_order": {
        "answers": {
            "cnn": "class TinyCNN(nnx.Module):\n"
            "    def __init__(self, channels, classes, *, rngs):\n"
            "        self.head = nnx.Linear(4 * 4 * 2 * channels, classes, rngs=rngs)\n"
            "        self.conv1 = nnx.Conv(1, channels, (3, 3), rngs=rngs)\n"
            "        self.conv2 = nnx.Conv(channels, 2 * channels, (3, 3), rngs=rngs)\n\n"
            "    def __call__(self, x):\n"
            "        x = jax.nn.relu(self.conv1(x))\n"
            "        x = jax.nn.relu(self.conv2(x))\n"
            "        x = nnx.avg_pool(x, (2, 2), strides=(2, 2))\n"
            "        return self.head(x.reshape(x.shape[0], -1))\n",
        },
        "loses": {"test_cnn"},
    },
    # Bypass: a pure-JAX function with the same initialisers and keys: the right logits, but no
    # nnx.Module, so nothing of Flax's (nnx.state, nnx.Optimizer, checkpoints of its state) applies.
    "cnn_pure_jax": {
        "answers": {
            "cnn": "def TinyCNN(channels, classes, *, rngs):\n"
            "    init = jax.nn.initializers.lecun_normal()\n"
            "    k1 = init(rngs.params(), (3, 3, 1, channels))\n"
            "    k2 = init(rngs.params(), (3, 3, channels, 2 * channels))\n"
            "    k3 = init(rngs.params(), (32 * channels, classes))\n\n"
            "    def conv(x, k):\n"
            "        return jax.lax.conv_general_dilated(x, k, (1, 1), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))\n\n"
            "    def model(x):\n"
            "        x = jax.nn.relu(conv(jax.nn.relu(conv(x, k1)), k2))\n"
            "        x = jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1), 'VALID') / 4\n"
            "        return x.reshape(x.shape[0], -1) @ k3\n\n"
            "    return model\n",
        },
        "loses": {"test_cnn"},
        "bypass": "an nnx.Module whose layers own nnx.Params, not a closure over arrays",
    },
    # Clipping after AdamW clips the updates, which are small anyway: the gradients reach Adam unclipped.
    "optimizer_clip_after_adam": {
        "answers": {
            "optimizer": "def make_optimizer(peak_value, total_steps):\n"
            "    schedule = optax.warmup_cosine_decay_schedule(0.0, peak_value, total_steps // 10, total_steps)\n"
            "    return optax.chain(optax.adamw(schedule, weight_decay=1e-2), optax.clip_by_global_norm(1.0))\n",
        },
        "loses": {"test_optimizer"},
    },
    # AdamW without its weight decay: Adam.
    "optimizer_no_weight_decay": {
        "answers": {
            "optimizer": "def make_optimizer(peak_value, total_steps):\n"
            "    schedule = optax.warmup_cosine_decay_schedule(0.0, peak_value, total_steps // 10, total_steps)\n"
            "    return optax.chain(optax.clip_by_global_norm(1.0), optax.adam(schedule))\n",
        },
        "loses": {"test_optimizer"},
    },
    # Bypass: AdamW written by hand inside a GradientTransformation, state and all: it is not Optax's.
    "optimizer_hand_written": {
        "answers": {
            "optimizer": "def make_optimizer(peak_value, total_steps):\n"
            "    schedule = optax.warmup_cosine_decay_schedule(0.0, peak_value, total_steps // 10, total_steps)\n\n"
            "    def init(params):\n"
            "        zeros = jax.tree.map(jnp.zeros_like, params)\n"
            "        return {'m': zeros, 'v': zeros, 't': jnp.zeros((), jnp.int32)}\n\n"
            "    def update(grads, state, params):\n"
            "        norm = optax.global_norm(grads)\n"
            "        grads = jax.tree.map(lambda g: g * jnp.minimum(1.0, 1.0 / norm), grads)\n"
            "        t = state['t'] + 1\n"
            "        m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, state['m'], grads)\n"
            "        v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, state['v'], grads)\n"
            "        rate = schedule(t - 1)\n"
            "        updates = jax.tree.map(lambda m, v, p: -rate * ((m / (1 - 0.9**t)) / (jnp.sqrt(v / (1 - 0.999**t)) + 1e-8) + 1e-2 * p),\n"
            "                               m, v, params)\n"
            "        return updates, {'m': m, 'v': v, 't': t}\n\n"
            "    return optax.GradientTransformation(init, update)\n",
        },
        "loses": {"test_optimizer"},
        "bypass": "Optax's transformations composed with optax.chain, not Adam written by hand",
    },
    # Bypass: no jit: right losses, but every operation of every step dispatched (and compiled) on its own.
    "train_step_not_jitted": {
        "answers": {
            "train_step": "def loss_fn(model, X, y):\n"
            "    return optax.softmax_cross_entropy_with_integer_labels(model(X), y).mean()\n\n\n"
            "def train_step(model, optimizer, X, y):\n"
            "    loss, grads = nnx.value_and_grad(loss_fn)(model, X, y)\n"
            "    optimizer.update(model, grads)\n"
            "    return loss\n",
        },
        "loses": {"test_train_step"},
        "bypass": "nnx.jit: the whole step compiled once, not operation by operation",
    },
    # A new jitted function on every call: the right losses, and a compilation per step.
    "train_step_jit_every_call": {
        "answers": {
            "train_step": "def train_step(model, optimizer, X, y):\n"
            "    def step(model, optimizer, X, y):\n"
            "        loss, grads = nnx.value_and_grad(lambda m: optax.softmax_cross_entropy_with_integer_labels(m(X), y).mean())(model)\n"
            "        optimizer.update(model, grads)\n"
            "        return loss\n\n"
            "    return nnx.jit(step)(model, optimizer, X, y)\n",
        },
        "loses": {"test_train_step"},
    },
    # The gradient is computed and dropped: the model never changes, so the loss never goes down.
    "train_step_no_update": {
        "answers": {
            "train_step": "@nnx.jit\n"
            "def train_step(model, optimizer, X, y):\n"
            "    loss, grads = nnx.value_and_grad(lambda m: optax.softmax_cross_entropy_with_integer_labels(m(X), y).mean())(model)\n"
            "    return loss\n",
        },
        "loses": {"test_train_step"},
    },
    # jax.jit instead of nnx.jit: the step gets copies of the model and optimizer, and the update is lost.
    "train_step_jax_jit": {
        "answers": {
            "train_step": "def loss_fn(model, X, y):\n"
            "    return optax.softmax_cross_entropy_with_integer_labels(model(X), y).mean()\n\n\n"
            "@jax.jit\n"
            "def train_step(model, optimizer, X, y):\n"
            "    loss, grads = nnx.value_and_grad(loss_fn)(model, X, y)\n"
            "    optimizer.update(model, grads)\n"
            "    return loss\n",
        },
        "loses": {"test_train_step"},
    },
    # Only the parameters saved: BatchNorm's running statistics come back as make_model()'s fresh ones.
    "checkpoint_params_only": {
        "answers": {
            "checkpoint": "def save_checkpoint(model, directory):\n"
            "    checkpointer = ocp.StandardCheckpointer()\n"
            "    checkpointer.save(directory, nnx.state(model, nnx.Param))\n"
            "    checkpointer.wait_until_finished()\n\n\n"
            "def restore_checkpoint(directory, make_model):\n"
            "    model = make_model()\n"
            "    nnx.update(model, ocp.StandardCheckpointer().restore(directory, nnx.state(model, nnx.Param)))\n"
            "    return model\n",
        },
        "loses": {"test_checkpoint"},
    },
    # Restores the values, then returns make_model()'s own: restore returns a new state, it changes no model.
    "checkpoint_restore_dropped": {
        "answers": {
            "checkpoint": "def save_checkpoint(model, directory):\n"
            "    checkpointer = ocp.StandardCheckpointer()\n"
            "    checkpointer.save(directory, nnx.state(model))\n"
            "    checkpointer.wait_until_finished()\n\n\n"
            "def restore_checkpoint(directory, make_model):\n"
            "    model = make_model()\n"
            "    ocp.StandardCheckpointer().restore(directory, nnx.state(model))\n"
            "    return model\n",
        },
        "loses": {"test_checkpoint"},
    },
    # Bypass: the state's arrays in a NumPy .npz file instead of an Orbax checkpoint: identical predictions,
    # but a file only this code can read (no structure, no sharding, no asynchronous or partial restore).
    "checkpoint_numpy": {
        "answers": {
            "checkpoint": "def save_checkpoint(model, directory):\n"
            "    Path(directory).mkdir(parents=True)\n"
            "    np.savez(Path(directory) / 'state.npz', *[np.asarray(leaf) for leaf in jax.tree.leaves(nnx.state(model))])\n\n\n"
            "def restore_checkpoint(directory, make_model):\n"
            "    graphdef, state = nnx.split(make_model())\n"
            "    saved = np.load(Path(directory) / 'state.npz')\n"
            "    leaves = [jnp.asarray(saved[f'arr_{i}']) for i in range(len(saved.files))]\n"
            "    return nnx.merge(graphdef, jax.tree.unflatten(jax.tree.structure(state), leaves))\n",
        },
        "loses": {"test_checkpoint"},
        "bypass": "Orbax's checkpoint format, not the arrays in a NumPy file",
    },
    # Bypass: a real checkpoint is written, but restore returns a copy kept in memory, keyed by the folder.
    "checkpoint_kept_in_memory": {
        "answers": {
            "checkpoint": "saved = {}\n\n\n"
            "def save_checkpoint(model, directory):\n"
            "    checkpointer = ocp.StandardCheckpointer()\n"
            "    checkpointer.save(directory, nnx.state(model))\n"
            "    checkpointer.wait_until_finished()\n"
            "    saved[str(directory)] = nnx.clone(model)\n\n\n"
            "def restore_checkpoint(directory, make_model):\n"
            "    return nnx.clone(saved[str(directory)])\n",
        },
        "loses": {"test_checkpoint"},
        "bypass": "restoring reads the checkpoint's files",
    },
    # Images and labels shuffled with two different orders: every label lands on another image.
    "fit_labels_shuffled": {
        "answers": {
            "fit": _fit(
                epochs="    for epoch in range(epochs):\n"
                "        key_X, key_y = jax.random.split(jax.random.fold_in(key, epoch))\n"
                "        rows_X = np.asarray(jax.random.permutation(key_X, len(X)))[: len(X) // 32 * 32].reshape(-1, 32)\n"
                "        rows_y = np.asarray(jax.random.permutation(key_y, len(X)))[: len(X) // 32 * 32].reshape(-1, 32)\n"
                "        history.append(float(jnp.mean(jnp.stack([step(model, optimizer, X[a], y[b]) for a, b in zip(rows_X, rows_y)]))))\n"
            ),
        },
        "loses": {"test_fit"},
    },
    # Trains on the notebook's X_train and y_train, not on the X and y it is given: it passes the visible
    # test, which passes those very arrays; the hidden test, with the labels renamed, catches it.
    "fit_hardcoded": {
        "answers": {
            "fit": _fit(before="    X, y = X_train, y_train\n"),
        },
        "loses": {"test_fit"},
    },
    # Bypass: trains on all 1797 digits with their own labels, test images included, instead of the data
    # it is given: above the floor on the visible test, and near zero when the hidden test renames the labels.
    "fit_all_digits": {
        "answers": {
            "fit": _fit(
                before="    X = (load_digits().images / 16.0).astype(np.float32)[..., None]\n"
                "    y = load_digits().target.astype(np.int32)\n"
            ),
        },
        "loses": {"test_fit"},
        "bypass": "learning from the images and labels fit is given, not from the whole data set",
    },
    # Bypass: one order drawn from the key, then the same minibatches in every epoch.
    "fit_same_order": {
        "answers": {
            "fit": _fit(
                epochs="    rows = np.asarray(jax.random.permutation(key, len(X)))[: len(X) // 32 * 32].reshape(-1, 32)\n"
                "    for epoch in range(epochs):\n"
                "        history.append(float(jnp.mean(jnp.stack([step(model, optimizer, X[r], y[r]) for r in rows]))))\n"
            ),
        },
        "loses": {"test_fit"},
        "bypass": "a new order of the data in every epoch",
    },
    # Bypass: scikit-learn's MLPClassifier learns, and its weights are copied into the model; no Optax step.
    "fit_sklearn_weights": {
        "answers": {
            "fit": "def fit(model, X, y, *, epochs, key):\n"
            "    from sklearn.neural_network import MLPClassifier\n\n"
            "    hidden = model.hidden.out_features\n"
            "    learned = MLPClassifier((hidden,), max_iter=300, random_state=0).fit(X.reshape(len(X), -1), y)\n"
            "    model.hidden.kernel.value = jnp.asarray(learned.coefs_[0], jnp.float32)\n"
            "    model.hidden.bias.value = jnp.asarray(learned.intercepts_[0], jnp.float32)\n"
            "    model.out.kernel.value = jnp.asarray(learned.coefs_[1], jnp.float32)\n"
            "    model.out.bias.value = jnp.asarray(learned.intercepts_[1], jnp.float32)\n"
            "    return [float(learned.loss_)] * epochs\n",
        },
        "loses": {"test_fit"},
        "bypass": "training the model with an Optax optimiser, not copying another library's weights",
    },
    # A learning rate too small to learn in 5 epochs: the loss hardly falls.
    "fit_learning_rate_too_low": {
        "answers": {
            "fit": _fit(learning_rate="1e-6"),
        },
        "loses": {"test_fit"},
    },
    # Correct, written another way: nnx.Sequential; inject_hyperparams around adamw (its state nests Adam's);
    # a CheckpointManager (a numbered step folder) restoring into nnx.update.
    "alternatives_sequential_inject_manager": {
        "answers": {
            "cnn": "class TinyCNN(nnx.Module):\n"
            "    def __init__(self, channels, classes, *, rngs):\n"
            "        self.layers = nnx.Sequential(\n"
            "            nnx.Conv(1, channels, (3, 3), rngs=rngs), jax.nn.relu,\n"
            "            nnx.Conv(channels, 2 * channels, (3, 3), rngs=rngs), jax.nn.relu,\n"
            "            lambda x: nnx.avg_pool(x, (2, 2), strides=(2, 2)),\n"
            "            lambda x: x.reshape(x.shape[0], -1),\n"
            "            nnx.Linear(32 * channels, classes, rngs=rngs),\n"
            "        )\n\n"
            "    def __call__(self, x):\n"
            "        return self.layers(x)\n",
            "optimizer": "def make_optimizer(peak_value, total_steps):\n"
            "    schedule = optax.warmup_cosine_decay_schedule(init_value=0.0, peak_value=peak_value,\n"
            "                                                  warmup_steps=total_steps // 10, decay_steps=total_steps)\n"
            "    adamw = optax.inject_hyperparams(optax.adamw)(learning_rate=schedule, weight_decay=1e-2)\n"
            "    return optax.chain(optax.clip_by_global_norm(1.0), adamw)\n",
            "checkpoint": "def save_checkpoint(model, directory):\n"
            "    with ocp.CheckpointManager(Path(directory).absolute()) as manager:\n"
            "        manager.save(0, args=ocp.args.StandardSave(nnx.state(model)))\n"
            "        manager.wait_until_finished()\n\n\n"
            "def restore_checkpoint(directory, make_model):\n"
            "    model = make_model()\n"
            "    with ocp.CheckpointManager(Path(directory).absolute()) as manager:\n"
            "        state = manager.restore(manager.latest_step(), args=ocp.args.StandardRestore(nnx.state(model)))\n"
            "    nnx.update(model, state)\n"
            "    return model\n",
        },
        "loses": set(),
        "alternative": "nnx.Sequential instead of attributes; optax.inject_hyperparams around adamw; "
        "an Orbax CheckpointManager restoring into nnx.update",
    },
    # Correct, another way: the loss from log_softmax by hand; fit with AdamW, batches of 64 and its own loss.
    "alternatives_hand_loss_adamw_fit": {
        "answers": {
            "train_step": "@nnx.jit\n"
            "def train_step(model, optimizer, X, y):\n"
            "    def loss_fn(model):\n"
            "        log_probs = jax.nn.log_softmax(model(X))\n"
            "        return -jnp.mean(jnp.take_along_axis(log_probs, y[:, None], axis=1))\n\n"
            "    loss, grads = nnx.value_and_grad(loss_fn)(model)\n"
            "    optimizer.update(model, grads)\n"
            "    return loss\n",
            "fit": "def fit(model, X, y, *, epochs, key):\n"
            "    batch = 64\n"
            "    optimizer = nnx.Optimizer(model, optax.adamw(5e-3, weight_decay=1e-4), wrt=nnx.Param)\n"
            "    step = nnx.jit(lambda model, optimizer, X, y: optimizer.update(model, nnx.grad(\n"
            "        lambda m: optax.softmax_cross_entropy_with_integer_labels(m(X), y).mean())(model)))\n"
            "    loss = nnx.jit(lambda model, X, y: optax.softmax_cross_entropy_with_integer_labels(model(X), y).mean())\n"
            "    history = []\n"
            "    for epoch in range(epochs):\n"
            "        order = jax.random.permutation(jax.random.fold_in(key, epoch), len(X))\n"
            "        for start in range(0, len(X) - batch + 1, batch):\n"
            "            rows = np.asarray(order[start : start + batch])\n"
            "            step(model, optimizer, X[rows], y[rows])\n"
            "        history.append(float(loss(model, X, y)))\n"
            "    return history\n",
        },
        "loses": set(),
        "alternative": "the cross-entropy from log_softmax by hand; fit with AdamW, batches of 64, the loss per epoch "
        "measured on the whole training set",
    },
}
