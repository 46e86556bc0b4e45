"""Wrong answers to set 14_ecosystem (see tests/variants/__init__.py)."""

# Set 14's `fit` answers share all but a line or two: Adam at `learning_rate` in an nnx.jit step, then
# `epochs`, the loop that fills `history`; `before` goes first (which data it trains on).
_EACH_EPOCH_A_NEW_ORDER = (
    "    for epoch in range(epochs):\n"
    "        rows = np.asarray(jax.random.permutation(jax.random.fold_in(key, epoch), len(X)))[: len(X) // 32 * 32].reshape(-1, 32)\n"
    "        history.append(float(jnp.mean(jnp.stack([step(model, optimizer, X[r], y[r]) for r in rows]))))\n"
)


# Set 14's ResidualBlock as the exercise asks, for the variants that change only the model.
_BLOCK = (
    "class ResidualBlock(nnx.Module):\n"
    "    def __init__(self, width, *, rngs):\n"
    "        self.norm = nnx.LayerNorm(width, rngs=rngs)\n"
    "        self.linear = nnx.Linear(width, width, rngs=rngs)\n\n"
    "    def __call__(self, x):\n"
    "        return x + self.linear(jax.nn.relu(self.norm(x)))\n\n\n"
)

# Set 14's ResidualMLP: its constructor's body (`init`) and its forward pass (`call`), as the exercise asks by default.
_MODEL_INIT = (
    "        self.embed = nnx.Linear(64, width, rngs=rngs)\n"
    "        self.blocks = nnx.List([ResidualBlock(width, rngs=rngs) for _ in range(depth)])\n"
    "        self.head = nnx.Linear(width, classes, rngs=rngs)\n"
)
_MODEL_CALL = (
    "    def __call__(self, x):\n"
    "        x = self.embed(x.reshape(x.shape[0], -1))\n"
    "        for block in self.blocks:\n"
    "            x = block(x)\n"
    "        return self.head(x)\n"
)


def _model(init: str = _MODEL_INIT, call: str = _MODEL_CALL) -> str:
    return (
        "class ResidualMLP(nnx.Module):\n    def __init__(self, width, depth, classes, *, rngs):\n" + init + "\n" + call
    )


# Set 14's ResidualBlock computed in NumPy from the block's arrays: LayerNorm (epsilon 1e-6), ReLU, the linear layer.
_NUMPY_BLOCK = (
    "def _numpy_block(scale, bias, kernel, linear_bias, x):\n"
    "    h = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-6) * scale + bias\n"
    "    return (x + np.maximum(h, 0.0) @ kernel + linear_bias).astype(np.float32)\n\n\n"
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
    # The block returns its layers' output without adding its input: no skip connection.
    "residual_no_skip": {
        "answers": {
            "residual": _BLOCK.replace("return x + self.linear(", "return self.linear(") + _model(),
        },
        "loses": {"test_residual"},
        "says": ["without adding its input"],
    },
    # The normalisation after the sum (a "post-norm" block): another function than the exercise's.
    "residual_post_norm": {
        "answers": {
            "residual": _BLOCK.replace(
                "return x + self.linear(jax.nn.relu(self.norm(x)))", "return self.norm(x + self.linear(jax.nn.relu(x)))"
            )
            + _model(),
        },
        "loses": {"test_residual"},
        "says": ["x + linear(relu(norm(x)))"],
    },
    # One block put in the list depth times: the blocks share their parameters.
    "residual_shared_block": {
        "answers": {
            "residual": _BLOCK
            + _model(
                init="        self.embed = nnx.Linear(64, width, rngs=rngs)\n"
                "        block = ResidualBlock(width, rngs=rngs)\n"
                "        self.blocks = nnx.List([block] * depth)\n"
                "        self.head = nnx.Linear(width, classes, rngs=rngs)\n"
            ),
        },
        "loses": {"test_residual"},
        "says": ["one per block", "parameters of its own"],
    },
    # The head created first: it draws the first keys from rngs, so every layer gets other keys.
    "residual_rngs_order": {
        "answers": {
            "residual": _BLOCK
            + _model(
                init="        self.head = nnx.Linear(width, classes, rngs=rngs)\n"
                "        self.embed = nnx.Linear(64, width, rngs=rngs)\n"
                "        self.blocks = nnx.List([ResidualBlock(width, rngs=rngs) for _ in range(depth)])\n"
            ),
        },
        "loses": {"test_residual"},
        "says": ["in this order"],
    },
    # The blocks in a plain Python list: Flax refuses the model as it is built.
    "residual_plain_list": {
        "answers": {
            "residual": _BLOCK + _model(init=_MODEL_INIT.replace("nnx.List([", "list([")),
        },
        "loses": {"test_residual"},
        "says": ["raised ValueError", "nnx.List"],
    },
    # Bypass: closures over arrays from the same initialisers and keys, no nnx.Module: nothing of Flax's (nnx.state,
    # nnx.Optimizer, checkpoints of its state) applies.
    "residual_pure_jax": {
        "answers": {
            "residual": "def _layer_norm(x):\n"
            "    return (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-6)\n\n\n"
            "def ResidualBlock(width, *, rngs):\n"
            "    rngs.params(), rngs.params()  # the keys LayerNorm's scale and bias would draw\n"
            "    kernel = jax.nn.initializers.lecun_normal()(rngs.params(), (width, width))\n"
            "    rngs.params()\n"
            "    return lambda x: x + jax.nn.relu(_layer_norm(x)) @ kernel\n\n\n"
            "def ResidualMLP(width, depth, classes, *, rngs):\n"
            "    init = jax.nn.initializers.lecun_normal()\n"
            "    embed = init(rngs.params(), (64, width))\n"
            "    rngs.params()\n"
            "    blocks = [ResidualBlock(width, rngs=rngs) for _ in range(depth)]\n"
            "    head = init(rngs.params(), (width, classes))\n\n"
            "    def model(x):\n"
            "        x = x.reshape(x.shape[0], -1) @ embed\n"
            "        for block in blocks:\n"
            "            x = block(x)\n"
            "        return x @ head\n\n"
            "    return model\n",
        },
        "loses": {"test_residual"},
        "bypass": "nnx.Modules whose layers own nnx.Params, not closures over arrays",
        "says": ["not an nnx.Module"],
    },
    # Bypass: every layer made from a fixed nnx.Rngs(0), whatever rngs is given: right on the visible test's seed 0,
    # and the same model for every seed.
    "residual_fixed_seed": {
        "answers": {
            "residual": _BLOCK.replace("*, rngs):\n", "*, rngs):\n        rngs = nnx.Rngs(0)\n")
            + _model(init="        rngs = nnx.Rngs(0)\n" + _MODEL_INIT),
        },
        "loses": {"test_residual"},
        "bypass": "layers that draw their keys from the rngs they are given, not from a fixed seed",
        "says": ["ignore the rngs argument"],
    },
    # Bypass: the layers are Flax's, the rest of the block NumPy: right outputs eagerly, but nnx.jit cannot trace it, so
    # no step could train it.
    "residual_numpy_forward": {
        "answers": {
            "residual": _BLOCK.replace(
                "return x + self.linear(jax.nn.relu(self.norm(x)))",
                "return np.asarray(x) + np.asarray(self.linear(np.maximum(np.asarray(self.norm(x)), 0.0)))",
            )
            + _model(),
        },
        "loses": {"test_residual"},
        "bypass": "a forward pass JAX traces, with the layers and jax.nn, not NumPy",
        "says": ["cannot be traced", "NumPy"],
    },
    # Bypass: the block computed in NumPy inside jax.pure_callback, with its nnx.Params as inputs: it jits, and its
    # outputs are right, but JAX never sees the computation, so it has no gradient.
    "residual_pure_callback": {
        "answers": {
            "residual": _NUMPY_BLOCK
            + _BLOCK.replace(
                "        return x + self.linear(jax.nn.relu(self.norm(x)))\n",
                "        arrays = (self.norm.scale[...], self.norm.bias[...], self.linear.kernel[...], self.linear.bias[...])\n"
                "        shape = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n"
                "        return jax.pure_callback(_numpy_block, shape, *arrays, x, vmap_method='sequential')\n",
            )
            + _model(),
        },
        "loses": {"test_residual"},
        "bypass": "a forward pass JAX traces, not NumPy in a callback",
        "says": ["calls back into Python", "pure_callback"],
    },
    # Bypass: an nnx.Module, as PyTorch users write one, holding plain arrays from the same initialisers and keys: the
    # right outputs, but no nnx.Param, so nnx.Optimizer(model, tx, wrt=nnx.Param) would train nothing.
    "residual_arrays_not_params": {
        "answers": {
            "residual": "class ResidualBlock(nnx.Module):\n"
            "    def __init__(self, width, *, rngs):\n"
            "        rngs.params(), rngs.params()  # the keys LayerNorm's scale and bias would draw\n"
            "        self.scale, self.shift = jnp.ones(width), jnp.zeros(width)\n"
            "        self.kernel = jax.nn.initializers.lecun_normal()(rngs.params(), (width, width))\n"
            "        rngs.params()\n"
            "        self.bias = jnp.zeros(width)\n\n"
            "    def __call__(self, x):\n"
            "        h = (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-6) * self.scale + self.shift\n"
            "        return x + jax.nn.relu(h) @ self.kernel + self.bias\n\n\n" + _model(),
        },
        "loses": {"test_residual"},
        "bypass": "an nnx.Module whose layers own nnx.Params, not plain arrays",
        "says": ["holds no nnx.Param"],
    },
    # Bypass: always two blocks, the visible test's depth, whatever depth is given.
    "residual_fixed_depth": {
        "answers": {
            "residual": _BLOCK + _model(init=_MODEL_INIT.replace("range(depth)", "range(2)")),
        },
        "loses": {"test_residual"},
        "bypass": "depth blocks, as many as asked, not the visible test's number",
        "says": ["one per block"],
    },
    # Clipping after AdamW clips the updates, which are small anyway: the gradients reach Adam unclipped.
    "optimizer_clip_after_adam": {
        "answers": {
            "optimizer": "def make_optimizer(peak_value, total_steps):\n"
            "    schedule = optax.warmup_cosine_decay_schedule(0.0, peak_value, total_steps // 10, total_steps)\n"
            "    return optax.chain(optax.adamw(schedule, weight_decay=1e-2), optax.clip_by_global_norm(1.0))\n",
        },
        "loses": {"test_optimizer"},
        "says": ["clip_by_global_norm(1.0) first"],
    },
    # AdamW without its weight decay: Adam.
    "optimizer_no_weight_decay": {
        "answers": {
            "optimizer": "def make_optimizer(peak_value, total_steps):\n"
            "    schedule = optax.warmup_cosine_decay_schedule(0.0, peak_value, total_steps // 10, total_steps)\n"
            "    return optax.chain(optax.clip_by_global_norm(1.0), optax.adam(schedule))\n",
        },
        "loses": {"test_optimizer"},
        "says": ["no Optax code for the weight decay", "missing"],
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
        "says": ["runs no Optax code", "optax.scale_by_adam", "written by hand"],
    },
    # Bypass: the hand-written AdamW again, its state named as the failure above says Optax's is (mu and nu): the
    # names are right, and the values, but no step runs Optax's code.
    "optimizer_hand_written_named_moments": {
        "answers": {
            "optimizer": "def make_optimizer(peak_value, total_steps):\n"
            "    schedule = optax.warmup_cosine_decay_schedule(0.0, peak_value, total_steps // 10, total_steps)\n\n"
            "    def init(params):\n"
            "        zeros = jax.tree.map(jnp.zeros_like, params)\n"
            "        return {'mu': zeros, 'nu': zeros, 'count': jnp.zeros((), jnp.int32)}\n\n"
            "    def update(grads, state, params):\n"
            "        norm = optax.global_norm(grads)\n"
            "        grads = jax.tree.map(lambda g: jnp.where(norm < 1.0, g, g / norm), grads)\n"
            "        count = state['count'] + 1\n"
            "        mu = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, state['mu'], grads)\n"
            "        nu = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, state['nu'], grads)\n"
            "        rate = schedule(count - 1)\n"
            "        updates = jax.tree.map(lambda m, v, p: -rate * ((m / (1 - 0.9**count)) / (jnp.sqrt(v / (1 - 0.999**count)) + 1e-8) + 1e-2 * p),\n"
            "                               mu, nu, params)\n"
            "        return updates, {'mu': mu, 'nu': nu, 'count': count}\n\n"
            "    return optax.GradientTransformation(init, update)\n",
        },
        "loses": {"test_optimizer"},
        "bypass": "Optax's AdamW, not Adam by hand with its state named as Optax's",
        "says": ["runs no Optax code", "optax.scale_by_adam"],
    },
    # Bypass: Optax's AdamW after a clipping written by hand in a GradientTransformation of its own.
    "optimizer_hand_clip": {
        "answers": {
            "optimizer": "def make_optimizer(peak_value, total_steps):\n"
            "    schedule = optax.warmup_cosine_decay_schedule(0.0, peak_value, total_steps // 10, total_steps)\n\n"
            "    def clip(grads, state, params=None):\n"
            "        norm = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree.leaves(grads)))\n"
            "        return jax.tree.map(lambda g: jnp.where(norm < 1.0, g, g / norm), grads), state\n\n"
            "    clipping = optax.GradientTransformation(lambda params: optax.EmptyState(), clip)\n"
            "    return optax.chain(clipping, optax.adamw(schedule, weight_decay=1e-2))\n",
        },
        "loses": {"test_optimizer"},
        "bypass": "Optax's clip_by_global_norm in the chain, not clipping written by hand",
        "says": ["no Optax code for the clipping", "optax.clip_by_global_norm"],
    },
    # Bypass: the warm-up and the cosine decay as a closed form written by hand, given to Optax's adamw.
    "optimizer_closed_form_schedule": {
        "answers": {
            "optimizer": "def make_optimizer(peak_value, total_steps):\n"
            "    warmup = total_steps // 10\n\n"
            "    def schedule(step):\n"
            "        rising = peak_value * step / warmup\n"
            "        falling = 0.5 * peak_value * (1 + jnp.cos(jnp.pi * (step - warmup) / (total_steps - warmup)))\n"
            "        return jnp.where(step < warmup, rising, falling)\n\n"
            "    return optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=1e-2))\n",
        },
        "loses": {"test_optimizer"},
        "bypass": "Optax's warm-up cosine schedule, not a closed form written by hand",
        "says": ["no Optax code for the cosine schedule", "optax.warmup_cosine_decay_schedule"],
    },
    # The clipping's function handed to optax.chain uncalled: chain fails inside Optax.
    "optimizer_uncalled_transform": {
        "answers": {
            "optimizer": "def make_optimizer(peak_value, total_steps):\n"
            "    schedule = optax.warmup_cosine_decay_schedule(0.0, peak_value, total_steps // 10, total_steps)\n"
            "    return optax.chain(optax.clip_by_global_norm, optax.adamw(schedule, weight_decay=1e-2))\n",
        },
        "loses": {"test_optimizer"},
        "says": ["has no attribute 'init'", "optax.clip_by_global_norm(1.0), not optax.clip_by_global_norm"],
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
        "says": ["at most 1 allowed", "@nnx.jit"],
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
        "says": ["compiled 4 times", "no new jitted function"],
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
        "says": ["never called optimizer.update"],
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
        "says": ["updated copies", "nnx.jit"],
    },
    # Bypass: the JAX way without NNX's: jax.jit around the step, called from a plain train_step. It compiles once,
    # but jax.jit hands the step copies of the model and the optimizer, and their update is lost.
    "train_step_jax_jit_inner": {
        "answers": {
            "train_step": "@jax.jit\n"
            "def _step(model, optimizer, X, y):\n"
            "    loss, grads = nnx.value_and_grad(lambda m: optax.softmax_cross_entropy_with_integer_labels(m(X), y).mean())(model)\n"
            "    optimizer.update(model, grads)\n"
            "    return loss\n\n\n"
            "def train_step(model, optimizer, X, y):\n"
            "    return _step(model, optimizer, X, y)\n",
        },
        "loses": {"test_train_step"},
        "bypass": "nnx.jit, which carries the updates out to the model, not jax.jit around the step",
        "says": ["updated copies", "@nnx.jit"],
    },
    # Bypass: SGD written by hand with nnx.update, the nnx.Optimizer passed in and ignored: the loss falls, compiled once.
    "train_step_hand_sgd": {
        "answers": {
            "train_step": "@nnx.jit\n"
            "def train_step(model, optimizer, X, y):\n"
            "    loss, grads = nnx.value_and_grad(lambda m: optax.softmax_cross_entropy_with_integer_labels(m(X), y).mean())(model)\n"
            "    params = nnx.state(model, nnx.Param)\n"
            "    nnx.update(model, jax.tree.map(lambda p, g: p - 0.1 * g, params, grads))\n"
            "    return loss\n",
        },
        "loses": {"test_train_step"},
        "bypass": "the update through nnx.Optimizer, not a rule written by hand",
        "says": ["not through the nnx.Optimizer"],
    },
    # Bypass: no jit, and JAX's own report of compilations replaced through a name of the cell's own for
    # jax._src.dispatch: one compilation in any 30 seconds gets through. The count refuses a replaced report.
    "train_step_forged_compile_count": {
        "answers": {
            "train_step": "import time\n\n\n"
            "def loss_fn(model, X, y):\n"
            "    return optax.softmax_cross_entropy_with_integer_labels(model(X), y).mean()\n\n\n"
            "def train_step(model, optimizer, X, y):\n"
            "    loss, grads = nnx.value_and_grad(loss_fn)(model, X, y)\n"
            "    optimizer.update(model, grads)\n"
            "    return loss\n\n\n"
            "dispatch = jax._src.dispatch\n"
            "_record, _heard = dispatch.record_event_duration_secs, []\n\n\n"
            "def _once(event, duration, **kwargs):\n"
            "    if event == '/jax/core/compile/backend_compile_duration':\n"
            "        if _heard and _heard[-1] > time.time() - 30:\n"
            "            return\n"
            "        _heard.append(time.time())\n"
            "    _record(event, duration, **kwargs)\n\n\n"
            "dispatch.record_event_duration_secs = _once\n",
        },
        "loses": {"test_train_step"},
        "bypass": "nnx.jit: the whole step compiled once, not a compile count forged inside JAX",
        "says": ["replaced jax._src.dispatch.record_event_duration_secs"],
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
        "says": ["['norm']['mean']", "BatchNorm's statistics"],
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
        "says": ["logits differ", "not from make_model()'s own"],
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
        "says": ["no Orbax checkpoint"],
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
        "says": ["read the values from the files"],
    },
    # No wait_until_finished: save returns while Orbax still writes in the background.
    "checkpoint_no_wait": {
        "answers": {
            "checkpoint": "def save_checkpoint(model, directory):\n"
            "    ocp.StandardCheckpointer().save(directory, nnx.state(model))\n\n\n"
            "def restore_checkpoint(directory, make_model):\n"
            "    graphdef, abstract_state = nnx.split(nnx.eval_shape(make_model))\n"
            "    return nnx.merge(graphdef, ocp.StandardCheckpointer().restore(directory, abstract_state))\n",
        },
        "loses": {"test_checkpoint"},
        "says": ["still writing", "wait_until_finished()"],
    },
    # Bypass: an Orbax checkpoint of a marker, for its metadata files, and the state's arrays in a NumPy file beside it.
    "checkpoint_metadata_only": {
        "answers": {
            "checkpoint": "def save_checkpoint(model, directory):\n"
            "    checkpointer = ocp.StandardCheckpointer()\n"
            "    checkpointer.save(directory, {'format': jnp.ones(())})\n"
            "    checkpointer.wait_until_finished()\n"
            "    np.savez(Path(directory) / 'state.npz', *[np.asarray(leaf) for leaf in jax.tree.leaves(nnx.state(model))])\n\n\n"
            "def restore_checkpoint(directory, make_model):\n"
            "    graphdef, state = nnx.split(make_model())\n"
            "    saved = np.load(Path(directory) / 'state.npz')\n"
            "    leaves = [jnp.asarray(saved[f'arr_{i}']) for i in range(len(saved.files))]\n"
            "    return nnx.merge(graphdef, jax.tree.unflatten(jax.tree.structure(state), leaves))\n",
        },
        "loses": {"test_checkpoint"},
        "bypass": "Orbax's checkpoint of the whole state, not Orbax's files beside arrays saved another way",
        "says": ["lacks 8 of the 8 arrays"],
    },
    # Bypass: a real checkpoint, and a number written beside it that names a copy kept in memory, which restore returns:
    # it moves with the folder, so swapping folders does not catch it; rewriting the arrays does.
    "checkpoint_token_in_memory": {
        "answers": {
            "checkpoint": "saved = []\n\n\n"
            "def save_checkpoint(model, directory):\n"
            "    checkpointer = ocp.StandardCheckpointer()\n"
            "    checkpointer.save(directory, nnx.state(model))\n"
            "    checkpointer.wait_until_finished()\n"
            "    saved.append(nnx.clone(model))\n"
            "    (Path(directory) / 'which.txt').write_text(str(len(saved) - 1))\n\n\n"
            "def restore_checkpoint(directory, make_model):\n"
            "    return nnx.clone(saved[int((Path(directory) / 'which.txt').read_text())])\n",
        },
        "loses": {"test_checkpoint"},
        "bypass": "restoring reads the checkpoint's arrays, not a model kept in memory",
        "says": ["rewrote with Orbax", "read the values from the Orbax checkpoint"],
    },
    # Bypass: restore ignores the directory it is given and reads the folders in the order they were saved.
    "checkpoint_saved_order": {
        "answers": {
            "checkpoint": "folders = []\n\n\n"
            "def save_checkpoint(model, directory):\n"
            "    checkpointer = ocp.StandardCheckpointer()\n"
            "    checkpointer.save(directory, nnx.state(model))\n"
            "    checkpointer.wait_until_finished()\n"
            "    folders.append(Path(directory).absolute())\n\n\n"
            "def restore_checkpoint(directory, make_model):\n"
            "    graphdef, abstract_state = nnx.split(nnx.eval_shape(make_model))\n"
            "    return nnx.merge(graphdef, ocp.StandardCheckpointer().restore(folders.pop(0), abstract_state))\n",
        },
        "loses": {"test_checkpoint"},
        "bypass": "restoring reads the directory it is given",
        "says": ["read the values from the files in the directory it is given"],
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
        "says": ["another order than their images"],
    },
    # Trains on the notebook's X_train and y_train, not on the X and y it is given: it passes the visible
    # test, which passes those very arrays; the hidden test, with the labels renamed, catches it.
    "fit_hardcoded": {
        "answers": {
            "fit": _fit(before="    X, y = X_train, y_train\n"),
        },
        "loses": {"test_fit"},
        "says": ["digits' own labels", "other data than its X and y"],
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
        "says": ["digits' own labels", "other data than its X and y"],
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
        "says": ["same minibatches", "every epoch"],
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
        "says": ["never showed the model a minibatch"],
    },
    # A learning rate too small to learn in 5 epochs: the loss hardly falls.
    "fit_learning_rate_too_low": {
        "answers": {
            "fit": _fit(learning_rate="1e-6"),
        },
        "loses": {"test_fit"},
        "says": ["steps are too small", "learning rate"],
    },
    # Bypass: a fixed key inside fit, whatever key it is given: a new order each epoch, the same for every key.
    "fit_key_ignored": {
        "answers": {"fit": _fit(before="    key = jax.random.key(0)\n")},
        "loses": {"test_fit"},
        "bypass": "each epoch's order drawn from the key fit is given, not from a fixed key",
        "says": ["not drawn from key"],
    },
    # Bypass: a slower optimiser made up for by four passes over the data in each "epoch".
    "fit_many_passes": {
        "answers": {
            "fit": _fit(
                learning_rate="1e-3",
                epochs="    for epoch in range(epochs):\n"
                "        losses = []\n"
                "        for again in range(4):\n"
                "            rows = np.asarray(jax.random.permutation(jax.random.fold_in(key, 4 * epoch + again), len(X)))[: len(X) // 32 * 32].reshape(-1, 32)\n"
                "            losses += [step(model, optimizer, X[r], y[r]) for r in rows]\n"
                "        history.append(float(jnp.mean(jnp.stack(losses))))\n",
            ),
        },
        "loses": {"test_fit"},
        "bypass": "90% in 5 epochs, each one pass over the data, not more passes",
        "says": ["one pass over the data"],
    },
    # The step under jax.jit inside fit: it compiles and runs, but updates copies; the model never changes.
    "fit_jax_jit_step": {
        "answers": {"fit": _fit().replace("    @nnx.jit\n", "    @jax.jit\n")},
        "loses": {"test_fit"},
        "says": ["left its parameters unchanged", "nnx.jit"],
    },
    # Correct, written another way: the blocks in an nnx.Sequential, nnx.relu; inject_hyperparams around adamw (its state nests Adam's);
    # a CheckpointManager (a numbered step folder) restoring into nnx.update.
    "alternatives_sequential_inject_manager": {
        "answers": {
            "residual": "class ResidualBlock(nnx.Module):\n"
            "    def __init__(self, width, *, rngs):\n"
            "        self.norm = nnx.LayerNorm(num_features=width, rngs=rngs)\n"
            "        self.linear = nnx.Linear(in_features=width, out_features=width, rngs=rngs)\n\n"
            "    def __call__(self, x):\n"
            "        return self.linear(nnx.relu(self.norm(x))) + x\n\n\n"
            "class ResidualMLP(nnx.Module):\n"
            "    def __init__(self, width, depth, classes, *, rngs):\n"
            "        self.embed = nnx.Linear(64, width, rngs=rngs)\n"
            "        self.blocks = nnx.Sequential(*[ResidualBlock(width, rngs=rngs) for _ in range(depth)])\n"
            "        self.head = nnx.Linear(width, classes, rngs=rngs)\n\n"
            "    def __call__(self, x):\n"
            "        return self.head(self.blocks(self.embed(jnp.reshape(x, (len(x), 64)))))\n",
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
        "alternative": "the blocks in an nnx.Sequential, nnx.relu, keyword arguments; optax.inject_hyperparams around adamw; "
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
    # Correct, another way: AdamW from Optax's parts (scale_by_adam, add_decayed_weights, scale_by_learning_rate);
    # the state as a pure dict in a PyTreeCheckpointer, put back with nnx.replace_by_pure_dict.
    "alternatives_adam_parts_pure_dict": {
        "answers": {
            "optimizer": "def make_optimizer(peak_value, total_steps):\n"
            "    schedule = optax.warmup_cosine_decay_schedule(0.0, peak_value, total_steps // 10, total_steps)\n"
            "    return optax.chain(optax.clip_by_global_norm(1.0), optax.scale_by_adam(), optax.add_decayed_weights(1e-2),\n"
            "                       optax.scale_by_learning_rate(schedule))\n",
            "checkpoint": "def save_checkpoint(model, directory):\n"
            "    ocp.PyTreeCheckpointer().save(Path(directory).absolute(), nnx.to_pure_dict(nnx.state(model)))\n\n\n"
            "def restore_checkpoint(directory, make_model):\n"
            "    model = make_model()\n"
            "    state = nnx.state(model)\n"
            "    nnx.replace_by_pure_dict(state, ocp.PyTreeCheckpointer().restore(Path(directory).absolute()))\n"
            "    nnx.update(model, state)\n"
            "    return model\n",
        },
        "loses": set(),
        "alternative": "AdamW from Optax's parts in the chain; the state saved as a pure dict by a PyTreeCheckpointer",
    },
    # Correct, another way: NNX's functional API, nnx.split and nnx.merge around a jax.jit step, then nnx.update;
    # fit's order from NumPy's generator, seeded from the key.
    "alternatives_functional_step_numpy_order": {
        "answers": {
            "train_step": "@jax.jit\n"
            "def _pure_step(graphdef, state, X, y):\n"
            "    model, optimizer = nnx.merge(graphdef, state)\n"
            "    loss, grads = nnx.value_and_grad(lambda m: optax.softmax_cross_entropy_with_integer_labels(m(X), y).mean())(model)\n"
            "    optimizer.update(model, grads)\n"
            "    return loss, nnx.state((model, optimizer))\n\n\n"
            "def train_step(model, optimizer, X, y):\n"
            "    graphdef, state = nnx.split((model, optimizer))\n"
            "    loss, state = _pure_step(graphdef, state, X, y)\n"
            "    nnx.update((model, optimizer), state)\n"
            "    return loss\n",
            "fit": _fit(
                epochs="    rng = np.random.default_rng(np.asarray(jax.random.key_data(key)).tolist())\n"
                "    for epoch in range(epochs):\n"
                "        rows = rng.permutation(len(X))[: len(X) // 32 * 32].reshape(-1, 32)\n"
                "        history.append(float(jnp.mean(jnp.stack([step(model, optimizer, X[r], y[r]) for r in rows]))))\n"
            ),
        },
        "loses": set(),
        "alternative": "nnx.split and nnx.merge around a jax.jit step, then nnx.update; fit's order from a NumPy "
        "generator seeded from the key",
    },
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # nnx.Optimizer made as before Flax 0.11, without wrt: Flax refuses it.
    "fit_optimizer_without_wrt": {
        "answers": {"fit": _fit().replace(", wrt=nnx.Param)", ")")},
        "loses": {"test_fit"},
        "says": ["Missing required argument `wrt`", "wrt=nnx.Param", "Reread:"],
    },
    # The history filled and never returned: fit returns None.
    "fit_returns_none": {
        "answers": {"fit": _fit().replace("    return history\n", "")},
        "loses": {"test_fit"},
        "says": ["fit returns None", "return history", "Reread:"],
    },
    # optimizer.update(grads), as before Flax 0.11: the update takes the model first.
    "train_step_update_without_model": {
        "answers": {
            "train_step": "def loss_fn(model, X, y):\n"
            "    return optax.softmax_cross_entropy_with_integer_labels(model(X), y).mean()\n\n\n"
            "@nnx.jit\n"
            "def train_step(model, optimizer, X, y):\n"
            "    loss, grads = nnx.value_and_grad(loss_fn)(model, X, y)\n"
            "    optimizer.update(grads)\n"
            "    return loss\n",
        },
        "loses": {"test_train_step"},
        "says": ["missing 1 required positional argument", "optimizer.update(model, grads)", "Reread:"],
    },
    # restore_checkpoint returns the restored State, not a model built from it.
    "checkpoint_returns_state": {
        "answers": {
            "checkpoint": "def save_checkpoint(model, directory):\n"
            "    checkpointer = ocp.StandardCheckpointer()\n"
            "    checkpointer.save(directory, nnx.state(model))\n"
            "    checkpointer.wait_until_finished()\n\n\n"
            "def restore_checkpoint(directory, make_model):\n"
            "    graphdef, abstract_state = nnx.split(nnx.eval_shape(make_model))\n"
            "    return ocp.StandardCheckpointer().restore(directory, abstract_state)\n",
        },
        "loses": {"test_checkpoint"},
        "says": ["returns the state Orbax restored, not a model", "nnx.merge(graphdef, restored)", "Reread:"],
    },
}
