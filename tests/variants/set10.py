"""Wrong answers to set 10_pytrees (see tests/variants/__init__.py)."""

VARIANTS = {
    # register_dataclass with no field lists treats every field as data: the activation string becomes a leaf.
    "dense_all_data": {
        "answers": {
            "dense": "@dataclasses.dataclass\n"
            "class Dense:\n"
            "    w: jax.Array\n"
            "    b: jax.Array\n"
            "    activation: str\n\n\n"
            "jax.tree_util.register_dataclass(Dense)\n",
        },
        "loses": {"test_dense"},
    },
    # Bypass: a NamedTuple, a container JAX knows already, instead of registering a node: every field is a leaf.
    "dense_namedtuple": {
        "answers": {
            "dense": "from typing import NamedTuple\n\n\n"
            "class Dense(NamedTuple):\n"
            "    w: jax.Array\n"
            "    b: jax.Array\n"
            "    activation: str\n",
        },
        "loses": {"test_dense"},
        "bypass": "a registered custom node whose static field is in the treedef",
    },
    # Unflatten rebuilds with the visible test's activation, not the one kept in the treedef.
    "dense_unflatten_hardcoded": {
        "answers": {
            "dense": "@dataclasses.dataclass\n"
            "class Dense:\n"
            "    w: jax.Array\n"
            "    b: jax.Array\n"
            "    activation: str\n\n\n"
            "jax.tree_util.register_pytree_node(\n"
            "    Dense, lambda d: ((d.w, d.b), d.activation), lambda aux, children: Dense(*children, 'tanh'))\n",
        },
        "loses": {"test_dense"},
    },
    # Bypass: deciding by shape (ndim >= 2) instead of the name: a 1-D "w" is not decayed, a 2-D bias is.
    "decay_by_shape": {
        "answers": {
            "decay": "def decay_weights(params, rate):\n"
            "    return jax.tree.map(lambda x: x * (1 - rate) if x.ndim >= 2 else x, params)\n",
        },
        "loses": {"test_decay"},
        "bypass": "the key path decides, on any nesting",
    },
    # Bypass: the visible tree's shape hard-coded, {layer: {"w", "b"}}: fails on lists, None and deeper nesting.
    "decay_hardcoded_structure": {
        "answers": {
            "decay": "def decay_weights(params, rate):\n"
            "    return {name: {'w': layer['w'] * (1 - rate), 'b': layer['b']} for name, layer in params.items()}\n",
        },
        "loses": {"test_decay"},
        "bypass": "the key path decides, on any nesting",
    },
    # "w" anywhere on the path, not as its last key: {"w": {"b": ...}} is decayed too.
    "decay_w_anywhere": {
        "answers": {
            "decay": "def decay_weights(params, rate):\n"
            "    return jax.tree_util.tree_map_with_path(\n"
            "        lambda path, x: x * (1 - rate) if \"['w']\" in jax.tree_util.keystr(path) else x, params)\n",
        },
        "loses": {"test_decay"},
    },
    # The colleague's declaration left as it was: every new step and learning rate compiles again.
    "schedule_left_static": {
        "answers": {
            "schedule": "@jax.tree_util.register_dataclass\n"
            "@dataclasses.dataclass\n"
            "class TrainState:\n"
            "    params: dict\n"
            "    step: int = dataclasses.field(metadata=dict(static=True))\n"
            "    lr: float = dataclasses.field(metadata=dict(static=True))\n"
            "    optimizer: str = dataclasses.field(metadata=dict(static=True))\n",
        },
        "loses": {"test_schedule"},
    },
    # Half fixed: step is data, but the learning rate still static, so each new rate compiles again.
    "schedule_lr_static": {
        "answers": {
            "schedule": "@jax.tree_util.register_dataclass\n"
            "@dataclasses.dataclass\n"
            "class TrainState:\n"
            "    params: dict\n"
            "    step: int\n"
            "    lr: float = dataclasses.field(metadata=dict(static=True))\n"
            "    optimizer: str = dataclasses.field(metadata=dict(static=True))\n",
        },
        "loses": {"test_schedule"},
    },
    # Everything data: the optimizer's name becomes a leaf, and a string is not a JAX type.
    "schedule_all_data": {
        "answers": {
            "schedule": "@jax.tree_util.register_dataclass\n"
            "@dataclasses.dataclass\n"
            "class TrainState:\n"
            "    params: dict\n"
            "    step: int\n"
            "    lr: float\n"
            "    optimizer: str\n",
        },
        "loses": {"test_schedule"},
    },
    # Bypass: step and lr dropped from the tree, so nothing recompiles because the program never sees them
    # (inside train_step they are the defaults).
    "schedule_drop_fields": {
        "answers": {
            "schedule": "@dataclasses.dataclass\n"
            "class TrainState:\n"
            "    params: dict\n"
            "    step: int = 0\n"
            "    lr: float = 0.1\n"
            "    optimizer: str = 'sgd'\n\n\n"
            "jax.tree_util.register_dataclass(TrainState, data_fields=['params'], meta_fields=['optimizer'],\n"
            "                                 drop_fields=['step', 'lr'])\n",
        },
        "loses": {"test_schedule"},
        "bypass": "step and lr as data fields, traced, so one compilation serves every value",
    },
    # Bypass: the visible tree's keys hard-coded: fails on another structure.
    "stack_hardcoded_keys": {
        "answers": {
            "stack": "def stack_trees(trees):\n"
            "    return {'w': jnp.stack([t['w'] for t in trees]), 'b': jnp.stack([t['b'] for t in trees])}\n",
        },
        "loses": {"test_stack"},
        "bypass": "jax.tree.map over all the trees, for any structure",
    },
    # NumPy stacks the right values, but cannot be traced inside a jitted function.
    "stack_numpy": {
        "answers": {
            "stack": "def stack_trees(trees):\n    return jax.tree.map(lambda *leaves: np.stack(leaves), *trees)\n",
        },
        "loses": {"test_stack"},
    },
    # Bypass: a Python loop over the layers, one copy of the layer per layer in the traced program.
    "scan_python_loop": {
        "answers": {
            "scan": "def run_stack(layer_fn, stacked, x):\n"
            "    for i in range(jax.tree.leaves(stacked)[0].shape[0]):\n"
            "        x = layer_fn(jax.tree.map(lambda a: a[i], stacked), x)\n"
            "    return x\n",
        },
        "loses": {"test_scan"},
        "bypass": "lax.scan over the stacked tree: one copy of the layer",
    },
    # A scan that runs the layers last to first.
    "scan_reversed": {
        "answers": {
            "scan": "def run_stack(layer_fn, stacked, x):\n"
            "    x, _ = jax.lax.scan(lambda h, p: (layer_fn(p, h), None), x, stacked, reverse=True)\n"
            "    return x\n",
        },
        "loses": {"test_scan"},
    },
    # Correct, written another way: both keep full marks.
    "alternatives_pytree_node_flatten_fori": {
        "answers": {
            "dense": "@dataclasses.dataclass\n"
            "class Dense:\n"
            "    w: jax.Array\n"
            "    b: jax.Array\n"
            "    activation: str\n\n\n"
            "jax.tree_util.register_pytree_with_keys(\n"
            "    Dense,\n"
            "    lambda d: (((jax.tree_util.GetAttrKey('w'), d.w), (jax.tree_util.GetAttrKey('b'), d.b)), d.activation),\n"
            "    lambda activation, children: Dense(*children, activation),\n"
            ")\n",
            "decay": "def decay_weights(params, rate):\n"
            "    with_paths, treedef = jax.tree_util.tree_flatten_with_path(params)\n"
            "    leaves = [x * (1 - rate) if jax.tree_util.keystr(path).endswith(\"['w']\") else x\n"
            "              for path, x in with_paths]\n"
            "    return jax.tree.unflatten(treedef, leaves)\n",
            "stack": "def stack_trees(trees):\n"
            "    columns = zip(*[jax.tree.leaves(t) for t in trees])\n"
            "    return jax.tree.unflatten(jax.tree.structure(trees[0]), [jnp.stack(c) for c in columns])\n",
            "scan": "def run_stack(layer_fn, stacked, x):\n"
            "    n = jax.tree.leaves(stacked)[0].shape[0]\n"
            "    layer = lambda i, h: layer_fn(jax.tree.map(lambda a: a[i], stacked), h)\n"
            "    return jax.lax.fori_loop(0, n, layer, x)\n",
        },
        "loses": set(),
        "alternative": "register_pytree_with_keys with flatten/unflatten functions; flatten_with_path, keystr and "
        "unflatten; stacking columns of leaves and unflattening; lax.fori_loop indexing the stacked leaves",
    },
    # Correct, another way: the static field marked with jax.tree.static(), register_dataclass's explicit lists.
    "alternatives_field_metadata": {
        "answers": {
            "dense": "@jax.tree_util.register_dataclass\n"
            "@dataclasses.dataclass\n"
            "class Dense:\n"
            "    w: jax.Array\n"
            "    b: jax.Array\n"
            "    activation: str = jax.tree.static()\n",
            "schedule": "@dataclasses.dataclass\n"
            "class TrainState:\n"
            "    params: dict\n"
            "    step: int\n"
            "    lr: float\n"
            "    optimizer: str\n\n\n"
            "jax.tree_util.register_dataclass(TrainState, data_fields=['params', 'step', 'lr'], meta_fields=['optimizer'])\n",
        },
        "loses": set(),
        "alternative": "the static field marked with jax.tree.static(); "
        "register_dataclass with explicit data_fields and meta_fields",
    },
}
