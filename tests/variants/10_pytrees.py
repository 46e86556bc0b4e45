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
        "says": ["activation is a leaf", "static"],
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
        "says": ["NamedTuple", "activation is a leaf"],
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
        "says": ["unflatten", "the activation in that treedef"],
    },
    # Bypass: the whole layer registered as static (jax.tree_util.register_static): jit accepts it, but w and b
    # are no leaves, so nothing is traced or differentiated.
    "dense_register_static": {
        "answers": {
            "dense": "@dataclasses.dataclass\n"
            "class Dense:\n"
            "    w: jax.Array\n"
            "    b: jax.Array\n"
            "    activation: str\n\n\n"
            "jax.tree_util.register_static(Dense)\n",
        },
        "loses": {"test_dense"},
        "bypass": "a registered custom node whose static field is in the treedef",
        "says": ["no leaves", "static"],
    },
    # Bypass: the activation remembered in a global by the flatten, not kept in the treedef: every Dense has the
    # same treedef, and unflatten rebuilds the last layer flattened.
    "dense_activation_in_global": {
        "answers": {
            "dense": "@dataclasses.dataclass\n"
            "class Dense:\n"
            "    w: jax.Array\n"
            "    b: jax.Array\n"
            "    activation: str\n\n\n"
            "last_activation = ['tanh']\n\n\n"
            "def flatten_dense(layer):\n"
            "    last_activation[0] = layer.activation\n"
            "    return (layer.w, layer.b), None\n\n\n"
            "jax.tree_util.register_pytree_node(Dense, flatten_dense, lambda _, children: Dense(*children, last_activation[0]))\n",
        },
        "loses": {"test_dense"},
        "bypass": "a registered custom node whose static field is in the treedef",
        "says": ["same treedef", "activation is not in the treedef"],
    },
    # Bypass: the activation in the treedef, but unflatten ignores it and rebuilds the activation of the last
    # layer flattened, remembered in a global: right as long as one layer is flattened at a time.
    "dense_unflatten_reads_global": {
        "answers": {
            "dense": "@dataclasses.dataclass\n"
            "class Dense:\n"
            "    w: jax.Array\n"
            "    b: jax.Array\n"
            "    activation: str\n\n\n"
            "last_activation = ['tanh']\n\n\n"
            "def flatten_dense(layer):\n"
            "    last_activation[0] = layer.activation\n"
            "    return (layer.w, layer.b), layer.activation\n\n\n"
            "jax.tree_util.register_pytree_node(Dense, flatten_dense, lambda _, children: Dense(*children, last_activation[0]))\n",
        },
        "loses": {"test_dense"},
        "bypass": "a registered custom node whose static field is in the treedef",
        "says": ["unflatten", "aux data"],
    },
    # Bypass: deciding by shape (ndim >= 2) instead of the name: a 1-D "w" is not decayed, a 2-D bias is.
    "decay_by_shape": {
        "answers": {
            "decay": "def decay_weights(params, rate):\n"
            "    return jax.tree.map(lambda x: x * (1 - rate) if x.ndim >= 2 else x, params)\n",
        },
        "loses": {"test_decay"},
        "bypass": "the key path decides, on any nesting",
        "says": ["['norm']['w']", "whatever its shape"],
    },
    # Bypass: the visible tree's shape hard-coded, {layer: {"w", "b"}}: fails on lists, None and deeper nesting.
    "decay_hardcoded_structure": {
        "answers": {
            "decay": "def decay_weights(params, rate):\n"
            "    return {name: {'w': layer['w'] * (1 - rate), 'b': layer['b']} for name, layer in params.items()}\n",
        },
        "loses": {"test_decay"},
        "bypass": "the key path decides, on any nesting",
        "says": ["any structure", "tree_map_with_path"],
    },
    # Bypass: string matching on the key path's text: "w" anywhere on the path, not as its last key, so
    # {"w": {"b": ...}} is decayed too.
    "decay_w_anywhere": {
        "answers": {
            "decay": "def decay_weights(params, rate):\n"
            "    return jax.tree_util.tree_map_with_path(\n"
            "        lambda path, x: x * (1 - rate) if \"['w']\" in jax.tree_util.keystr(path) else x, params)\n",
        },
        "loses": {"test_decay"},
        "bypass": "the key path decides, on any nesting",
        "says": ["['w']['b']", "higher up"],
    },
    # Bypass: a fixed position instead of the name: the visible tree's leaves alternate b, w, so every second
    # leaf is decayed; a hidden tree's weights sit elsewhere.
    "decay_by_position": {
        "answers": {
            "decay": "def decay_weights(params, rate):\n"
            "    leaves, treedef = jax.tree.flatten(params)\n"
            "    return jax.tree.unflatten(treedef, [x * (1 - rate) if i % 2 else x for i, x in enumerate(leaves)])\n",
        },
        "loses": {"test_decay"},
        "bypass": "the key path decides, on any nesting",
        "says": ["unchanged", "place among the leaves"],
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
        "says": ["step is static", "data field"],
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
        "says": ["lr is static", "data field"],
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
        "says": ["optimizer is a data field", "static"],
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
        "says": ["changes neither", "dropped"],
    },
    # Bypass: the static fields kept, wrapped in a number that equals every other: jit finds the program it
    # compiled first for every step and learning rate, and runs it with their first values.
    "schedule_static_equal_hash": {
        "answers": {
            "schedule": "class Same(float):\n"
            "    def __eq__(self, other):\n"
            "        return True\n\n"
            "    def __hash__(self):\n"
            "        return 0\n\n\n"
            "@jax.tree_util.register_dataclass\n"
            "@dataclasses.dataclass\n"
            "class TrainState:\n"
            "    params: dict\n"
            "    step: int = dataclasses.field(metadata=dict(static=True))\n"
            "    lr: float = dataclasses.field(metadata=dict(static=True))\n"
            "    optimizer: str = dataclasses.field(metadata=dict(static=True))\n\n"
            "    def __post_init__(self):\n"
            "        self.step, self.lr = Same(self.step), Same(self.lr)\n",
        },
        "loses": {"test_schedule"},
        "bypass": "step and lr as data fields, traced, so one compilation serves every value",
        "says": ["compare equal", "__hash__"],
    },
    # Bypass: the colleague's static declaration, and the compile counter forged through another name for
    # jax.monitoring: a listener registered is told of one compilation at once, and of nothing after. The
    # fields are judged before the count; the count itself holds JAX's own functions, taken at import.
    "schedule_forged_compile_count": {
        "answers": {
            "schedule": "@jax.tree_util.register_dataclass\n"
            "@dataclasses.dataclass\n"
            "class TrainState:\n"
            "    params: dict\n"
            "    step: int = dataclasses.field(metadata=dict(static=True))\n"
            "    lr: float = dataclasses.field(metadata=dict(static=True))\n"
            "    optimizer: str = dataclasses.field(metadata=dict(static=True))\n\n\n"
            "monitoring = jax.monitoring\n"
            "monitoring.register_event_duration_secs_listener = (\n"
            "    lambda listener: listener('/jax/core/compile/backend_compile_duration', 0.0))\n"
            "monitoring.unregister_event_duration_listener = lambda listener: None\n",
        },
        "loses": {"test_schedule"},
        "bypass": "step and lr as data fields, traced, so one compilation serves every value",
        "says": ["step is static", "data field"],
    },
    # Bypass: the lecture's stacking pasted unchanged: one tree, but every leaf has a new axis, one entry per model.
    "soup_lecture_stack": {
        "answers": {
            "soup": "def soup(trees, weights):\n    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *trees)\n",
        },
        "loses": {"test_soup"},
        "bypass": "jax.tree.map over all the trees, combining their leaves, for any structure",
        "says": ["new leading axis", "weighted sum"],
    },
    # Bypass: the visible tree's keys hard-coded: fails on another structure.
    "soup_hardcoded_keys": {
        "answers": {
            "soup": "def soup(trees, weights):\n"
            "    return {key: sum(w * tree[key] for w, tree in zip(weights, trees)) for key in ('w', 'b')}\n",
        },
        "loses": {"test_soup"},
        "bypass": "jax.tree.map over all the trees, combining their leaves, for any structure",
        "says": ["hidden trees", "any structure", "jax.tree.map"],
    },
    # Bypass: a recursion over dicts, the visible trees' only container, instead of jax.tree.map: a list is
    # multiplied by a weight whole.
    "soup_recursive_dicts": {
        "answers": {
            "soup": "def soup(trees, weights):\n"
            "    if isinstance(trees[0], dict):\n"
            "        return {key: soup([tree[key] for tree in trees], weights) for key in trees[0]}\n"
            "    return sum(w * tree for w, tree in zip(weights, trees))\n",
        },
        "loses": {"test_soup"},
        "bypass": "jax.tree.map over all the trees, combining their leaves, for any structure",
        "says": ["any structure", "jax.tree.map"],
    },
    # Bypass: NumPy's weighted average: the right values, but the weights cannot be traced, so no jit and no grad.
    "soup_numpy": {
        "answers": {
            "soup": "def soup(trees, weights):\n"
            "    return jax.tree.map(lambda *leaves: np.average(np.stack(leaves), axis=0, weights=np.asarray(weights)), *trees)\n",
        },
        "loses": {"test_soup"},
        "bypass": "a soup written with jax.numpy, traced and differentiated with respect to the weights",
        "says": ["cannot be traced", "NumPy"],
    },
    # Bypass: the weights turned into Python floats: right values, but a traced weight has no float.
    "soup_python_floats": {
        "answers": {
            "soup": "def soup(trees, weights):\n"
            "    numbers = [float(w) for w in weights]\n"
            "    return jax.tree.map(lambda *leaves: sum(w * leaf for w, leaf in zip(numbers, leaves)), *trees)\n",
        },
        "loses": {"test_soup"},
        "bypass": "a soup written with jax.numpy, traced and differentiated with respect to the weights",
        "says": ["cannot be traced", "ConcretizationTypeError"],
    },
    # Bypass: NumPy inside jax.pure_callback: traceable, but the work runs on the host, outside the program.
    "soup_pure_callback": {
        "answers": {
            "soup": "def soup(trees, weights):\n"
            "    def mix(*leaves):\n"
            "        shape = jax.ShapeDtypeStruct(leaves[0].shape, leaves[0].dtype)\n"
            "        host = lambda w, *xs: np.tensordot(np.asarray(w), np.stack(xs), axes=1).astype(xs[0].dtype)\n"
            "        return jax.pure_callback(host, shape, weights, *leaves)\n\n"
            "    return jax.tree.map(mix, *trees)\n",
        },
        "loses": {"test_soup"},
        "bypass": "a soup written with jax.numpy, traced and differentiated with respect to the weights",
        "says": ["pure_callback", "host callback"],
    },
    # The plain mean of the models: the weights ignored.
    "soup_uniform_mean": {
        "answers": {
            "soup": "def soup(trees, weights):\n    return jax.tree.map(lambda *leaves: jnp.mean(jnp.stack(leaves), axis=0), *trees)\n",
        },
        "loses": {"test_soup"},
        "says": ["plain mean", "ignores the weights"],
    },
    # The weights broadcast against the last axis of the stacked leaves, not the first.
    "soup_broadcast_last_axis": {
        "answers": {
            "soup": "def soup(trees, weights):\n"
            "    return jax.tree.map(lambda *leaves: jnp.sum(jnp.stack(leaves) * weights, axis=0), *trees)\n",
        },
        "loses": {"test_soup"},
        "says": ["raised", "whatever the leaf's shape"],
    },
    # Bypass: a Python loop over the layers, one copy of the layer per layer in the traced program.
    "scan_python_loop": {
        "answers": {
            "scan": "def layer_outputs(layer_fn, stacked, x):\n"
            "    outputs = []\n"
            "    for i in range(jax.tree.leaves(stacked)[0].shape[0]):\n"
            "        x = layer_fn(jax.tree.map(lambda a: a[i], stacked), x)\n"
            "        outputs.append(x)\n"
            "    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *outputs)\n",
        },
        "loses": {"test_scan"},
        "bypass": "lax.scan over the stacked tree: one copy of the layer",
        "says": ["Python loop", "jax.lax.scan"],
    },
    # Bypass: the Python loop inside jax.jit: the compiled program still holds one copy of the layer per layer.
    "scan_jit_python_loop": {
        "answers": {
            "scan": "def layer_outputs(layer_fn, stacked, x):\n"
            "    @jax.jit\n"
            "    def run(stacked, x):\n"
            "        outputs = []\n"
            "        for i in range(jax.tree.leaves(stacked)[0].shape[0]):\n"
            "            x = layer_fn(jax.tree.map(lambda a: a[i], stacked), x)\n"
            "            outputs.append(x)\n"
            "        return jax.tree.map(lambda *leaves: jnp.stack(leaves), *outputs)\n\n"
            "    return run(stacked, x)\n",
        },
        "loses": {"test_scan"},
        "bypass": "lax.scan over the stacked tree: one copy of the layer",
        "says": ["Python loop", "jax.lax.scan"],
    },
    # Bypass: the Python loop hidden in jax.pure_callback: one equation whatever the number of layers, but the
    # layers run on the host, outside the program.
    "scan_pure_callback": {
        "answers": {
            "scan": "def layer_outputs(layer_fn, stacked, x):\n"
            "    n = jax.tree.leaves(stacked)[0].shape[0]\n\n"
            "    def on_host(stacked, x):\n"
            "        outputs = []\n"
            "        for i in range(n):\n"
            "            x = layer_fn(jax.tree.map(lambda a: a[i], stacked), x)\n"
            "            outputs.append(x)\n"
            "        return jax.tree.map(lambda *leaves: np.stack(leaves), *outputs)\n\n"
            "    shapes = jax.tree.map(lambda a: jax.ShapeDtypeStruct((n, *a.shape), a.dtype), x)\n"
            "    return jax.pure_callback(on_host, shapes, stacked, x)\n",
        },
        "loses": {"test_scan"},
        "bypass": "lax.scan over the stacked tree: one copy of the layer",
        "says": ["pure_callback", "outside the program"],
    },
    # Bypass: a Python loop of a fixed length, past any test's number of layers, the extra layers masked out:
    # as many equations for 2 layers as for 6, but 16 copies of the layer.
    "scan_fixed_length_loop": {
        "answers": {
            "scan": "def layer_outputs(layer_fn, stacked, x):\n"
            "    n = jax.tree.leaves(stacked)[0].shape[0]\n"
            "    outputs = []\n"
            "    for i in range(16):\n"
            "        params = jax.tree.map(lambda a: a[min(i, n - 1)], stacked)\n"
            "        x = jax.tree.map(lambda new, old: jnp.where(i < n, new, old), layer_fn(params, x), x)\n"
            "        outputs.append(x)\n"
            "    return jax.tree.map(lambda *leaves: jnp.stack(leaves)[:n], *outputs)\n",
        },
        "loses": {"test_scan"},
        "bypass": "lax.scan over the stacked tree: one copy of the layer",
        "says": ["called layer_fn 16 times", "fixed length"],
    },
    # Bypass: the lecture's run_scan with the names changed: one copy of the layer, but only the last output.
    "scan_lecture_last_only": {
        "answers": {
            "scan": "def layer_outputs(layer_fn, stacked, x):\n"
            "    x, _ = jax.lax.scan(lambda h, p: (layer_fn(p, h), None), x, stacked)\n"
            "    return x\n",
        },
        "loses": {"test_scan"},
        "bypass": "lax.scan over the stacked tree, collecting every layer's output: one copy of the layer",
        "says": ["only the last layer's output", "beside its carry"],
    },
    # Bypass: the lecture's ensemble, vmap over the stacked layers: one copy of the layer and outputs of the right
    # shape, but every layer reads the input, not the previous layer's output.
    "scan_vmap_layers": {
        "answers": {
            "scan": "def layer_outputs(layer_fn, stacked, x):\n    return jax.vmap(layer_fn, in_axes=(0, None))(stacked, x)\n",
        },
        "loses": {"test_scan"},
        "bypass": "lax.scan over the stacked tree, collecting every layer's output: one copy of the layer",
        "says": ["side by side", "one after another"],
    },
    # A scan that runs the layers last to first.
    "scan_reversed": {
        "answers": {
            "scan": "def layer_outputs(layer_fn, stacked, x):\n"
            "    def body(h, p):\n"
            "        h = layer_fn(p, h)\n"
            "        return h, h\n\n"
            "    return jax.lax.scan(body, x, stacked, reverse=True)[1]\n",
        },
        "loses": {"test_scan"},
        "says": ["last to first"],
    },
    # A scan whose body emits the carry it receives: each layer's input, not its output.
    "scan_emits_inputs": {
        "answers": {
            "scan": "def layer_outputs(layer_fn, stacked, x):\n"
            "    return jax.lax.scan(lambda h, p: (layer_fn(p, h), h), x, stacked)[1]\n",
        },
        "loses": {"test_scan"},
        "says": ["each layer's input, not its output"],
    },
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # The function given to tree_map_with_path written as f(leaf, path): it is called with the path first.
    "decay_leaf_and_path_swapped": {
        "answers": {
            "decay": "def decay_weights(params, rate):\n"
            "    def decay(leaf, path):\n"
            "        return leaf * (1 - rate) if path[-1].key == 'w' else leaf\n\n"
            "    return jax.tree_util.tree_map_with_path(decay, params)\n",
        },
        "loses": {"test_decay"},
        "says": ["f(path, leaf)", "def decay(path, leaf)", "Reread:"],
    },
    # The weights handed to jax.tree.map as a second tree: an array is one leaf, not one per model.
    "soup_weights_as_a_tree": {
        "answers": {
            "soup": "def soup(trees, weights):\n"
            "    scaled = jax.tree.map(lambda tree, w: jax.tree.map(lambda leaf: w * leaf, tree), trees, weights)\n"
            "    return jax.tree.map(lambda *leaves: sum(leaves), *scaled)\n",
        },
        "loses": {"test_soup"},
        "says": ["jax.tree.map(f, *trees)", "Reread:"],
    },
    # The scan body returns only the new carry: scan wants (carry, what to stack for this layer).
    "scan_body_returns_carry_only": {
        "answers": {
            "scan": "def layer_outputs(layer_fn, stacked, x):\n"
            "    def body(x, params):\n"
            "        return layer_fn(params, x)\n\n"
            "    _, outputs = jax.lax.scan(body, x, stacked)\n"
            "    return outputs\n",
        },
        "loses": {"test_scan"},
        "says": ["scan body output must be a pair", "return x, x", "Reread:"],
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
            "soup": "def soup(trees, weights):\n"
            "    columns = zip(*[jax.tree.leaves(t) for t in trees])\n"
            "    mixed = [jnp.tensordot(weights, jnp.stack(column), axes=1) for column in columns]\n"
            "    return jax.tree.unflatten(jax.tree.structure(trees[0]), mixed)\n",
            "scan": "def layer_outputs(layer_fn, stacked, x):\n"
            "    n = jax.tree.leaves(stacked)[0].shape[0]\n"
            "    outputs = jax.tree.map(lambda a: jnp.zeros((n, *a.shape), a.dtype), x)\n\n"
            "    def layer(i, carry):\n"
            "        h, outputs = carry\n"
            "        h = layer_fn(jax.tree.map(lambda a: a[i], stacked), h)\n"
            "        return h, jax.tree.map(lambda out, value: out.at[i].set(value), outputs, h)\n\n"
            "    return jax.lax.fori_loop(0, n, layer, (x, outputs))[1]\n",
        },
        "loses": set(),
        "alternative": "register_pytree_with_keys with flatten/unflatten functions; flatten_with_path, keystr and "
        "unflatten; columns of leaves mixed with tensordot and unflattened; lax.fori_loop writing each layer's output "
        "into a preallocated tree",
    },
    # Correct, another way: the static field marked with jax.tree.static(), register_dataclass's explicit lists;
    # the lecture's stacking followed by an einsum; a one-line scan.
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
            "soup": "def soup(trees, weights):\n"
            "    return jax.tree.map(lambda *leaves: jnp.einsum('i,i...->...', weights, jnp.stack(leaves)), *trees)\n",
            "scan": "def layer_outputs(layer_fn, stacked, x):\n"
            "    return jax.lax.scan(lambda h, p: (layer_fn(p, h),) * 2, x, stacked)[1]\n",
        },
        "loses": set(),
        "alternative": "the static field marked with jax.tree.static(); "
        "register_dataclass with explicit data_fields and meta_fields; the stacked leaves contracted with einsum; "
        "a scan whose body returns its output twice",
    },
    # Correct, written another way: a recursion over every container; the weighted trees added pairwise;
    # TrainState registered with flatten and unflatten functions; a while_loop over the layers.
    "alternatives_recursion_flatten_while": {
        "answers": {
            "decay": "def decay_weights(params, rate):\n"
            "    def walk(node, key=None):\n"
            "        if isinstance(node, dict):\n"
            "            return {k: walk(v, k) for k, v in node.items()}\n"
            "        if isinstance(node, (list, tuple)):\n"
            "            return type(node)(walk(v) for v in node)\n"
            "        if node is None:\n"
            "            return None\n"
            "        return node * (1 - rate) if key == 'w' else node\n\n"
            "    return walk(params)\n",
            "soup": "import functools\n\n\n"
            "def soup(trees, weights):\n"
            "    scaled = [jax.tree.map(lambda leaf, w=w: w * leaf, tree) for w, tree in zip(weights, trees)]\n"
            "    return functools.reduce(lambda a, b: jax.tree.map(jnp.add, a, b), scaled)\n",
            "schedule": "@dataclasses.dataclass\n"
            "class TrainState:\n"
            "    params: dict\n"
            "    step: int\n"
            "    lr: float\n"
            "    optimizer: str\n\n\n"
            "jax.tree_util.register_pytree_node(\n"
            "    TrainState,\n"
            "    lambda state: ((state.params, state.step, state.lr), state.optimizer),\n"
            "    lambda optimizer, children: TrainState(*children, optimizer),\n"
            ")\n",
            "scan": "def layer_outputs(layer_fn, stacked, x):\n"
            "    n = jax.tree.leaves(stacked)[0].shape[0]\n"
            "    outputs = jax.tree.map(lambda a: jnp.zeros((n, *a.shape), a.dtype), x)\n\n"
            "    def body(carry):\n"
            "        i, h, outputs = carry\n"
            "        h = layer_fn(jax.tree.map(lambda a: a[i], stacked), h)\n"
            "        return i + 1, h, jax.tree.map(lambda out, value: out.at[i].set(value), outputs, h)\n\n"
            "    return jax.lax.while_loop(lambda carry: carry[0] < n, body, (0, x, outputs))[2]\n",
        },
        "loses": set(),
        "alternative": "a recursion over every container; weighted trees added pairwise with functools.reduce; "
        "TrainState registered with flatten and unflatten functions; a lax.while_loop writing each layer's output",
    },
}
