"""Wrong answers to set 16_scaling (see tests/variants/__init__.py)."""

# The reference answers, in parts, so that a variant can change one function of a cell and keep the other.
_ROOFLINE = """def scores_roofline(b, h, t, d, dtype, chip):
    size = jnp.dtype(dtype).itemsize
    flops = 2 * b * h * t * d
    nbytes = size * (b * h * d + b * h * t * d + b * h * t)
    t_math, t_memory = flops / chip["flops"], nbytes / chip["hbm"]
    return {"flops": flops, "bytes": nbytes, "intensity": flops / nbytes, "seconds": max(t_math, t_memory),
            "bound": "compute" if t_math >= t_memory else "memory"}
"""
_CRITICAL = """def critical_batch(k, n, dtype, chip):
    size = jnp.dtype(dtype).itemsize
    gain = 2 * k * n / chip["flops"] - size * (k + n) / chip["hbm"]
    if gain <= 0:
        return None
    m = max(1, math.ceil(size * k * n / chip["hbm"] / gain))
    compute_bound = lambda m: 2 * m * k * n / chip["flops"] >= size * (m * k + k * n + m * n) / chip["hbm"]
    while not compute_bound(m):
        m += 1
    while m > 1 and compute_bound(m - 1):
        m -= 1
    return m
"""
_FSDP_SPEC = """def fsdp_spec(leaf, mesh):
    axis = mesh.axis_names[0]
    shape = jnp.shape(leaf)
    even = [i for i, size in enumerate(shape) if size % mesh.shape[axis] == 0]
    if not even:
        return P()
    split = max(even, key=lambda i: (shape[i], -i))
    return P(*(axis if i == split else None for i in range(split + 1)))
"""
_FSDP_PLACE = (
    _FSDP_SPEC
    + """

def fsdp_place(tree, mesh):
    return jax.tree.map(lambda leaf: jax.device_put(leaf, NamedSharding(mesh, fsdp_spec(leaf, mesh))), tree)
"""
)
_FSDP_STEP = """def make_fsdp_step(mesh):
    whole, batch = NamedSharding(mesh, P()), NamedSharding(mesh, P(mesh.axis_names[0]))
    split = lambda t: jax.tree.map(lambda v: jax.lax.with_sharding_constraint(v, NamedSharding(mesh, fsdp_spec(v, mesh))), t)

    @jax.jit
    def step(params, opt_state, x, y):
        x, y = jax.lax.with_sharding_constraint((x, y), batch)
        params, opt_state, value = train_step(params, opt_state, x, y, lambda w: jax.lax.with_sharding_constraint(w, whole))
        return split(params), split(opt_state), value

    return step
"""
# shard_map's version of the step: each device gathers every weight along the dimension fsdp_spec split.
_FSDP_LOCAL = """    axis = mesh.axis_names[0]
    specs = lambda t: jax.tree.map(lambda v: fsdp_spec(v, mesh), t)

    def gathered(params, specs):
        dim = lambda s: list(s).index(axis)
        return jax.tree.map(lambda w, s: jax.lax.all_gather(w, axis, axis=dim(s), tiled=True) if axis in s else w,
                            params, specs, is_leaf=lambda s: isinstance(s, P))
"""
_GLU = "lambda x, g, u, d: (jax.nn.silu(x @ g) * (x @ u)) @ d"
_GLU_SHARD_MAP = """def megatron_glu(x, w_gate, w_up, w_down, mesh):
    def block(x, g, u, d):
        hidden = jax.nn.silu(x @ g) * (x @ u)
        return jax.lax.psum(hidden @ d, 'model')
    columns, rows = P(None, 'model'), P('model', None)
    specs = dict(in_specs=(P('data', None), columns, columns, rows), out_specs=P('data', None))
    return jax.jit(jax.shard_map(block, mesh=mesh, **specs))(x, w_gate, w_up, w_down)
"""


def _sent(body: str) -> dict[str, str]:
    return {
        "collective": f"def bytes_sent(kind, shape, dtype, n):\n    block = math.prod(shape) * jnp.dtype(dtype).itemsize\n{body}"
    }


def _memory(body: str) -> dict[str, str]:
    return {"memory": f"def bytes_per_device(tree, specs, mesh_shape):\n{body}"}


VARIANTS = {
    # Bypass: the figures read from the compiler (cost_analysis), not predicted from the shapes.
    "roofline_asks_compiler": {
        "answers": {
            "roofline": "def scores_roofline(b, h, t, d, dtype, chip):\n"
            "    q, keys = jax.ShapeDtypeStruct((b, h, d), dtype), jax.ShapeDtypeStruct((b, h, t, d), dtype)\n"
            "    einsum = jax.jit(lambda q, keys: jnp.einsum('bhd,bhtd->bht', q, keys))\n"
            "    cost = einsum.lower(q, keys).compile().cost_analysis()\n"
            "    flops, nbytes = cost['flops'], cost['bytes accessed']\n"
            "    t_math, t_memory = flops / chip['flops'], nbytes / chip['hbm']\n"
            "    return {'flops': flops, 'bytes': nbytes, 'intensity': flops / nbytes, 'seconds': max(t_math, t_memory),\n"
            "            'bound': 'compute' if t_math >= t_memory else 'memory'}\n\n\n" + _CRITICAL,
        },
        "loses": {"test_roofline"},
        "bypass": "figures predicted from the shapes, not read from the compiler's cost_analysis",
        "says": ["reads the figures from the compiler"],
    },
    # Bypass: the visible cases' figures typed in; the hidden shapes and chips catch it.
    "roofline_hardcoded": {
        "answers": {
            "roofline": "def scores_roofline(b, h, t, d, dtype, chip):\n"
            "    seen = {(8, 16, 4096, 128): (134217728, 135299072), (32, 8, 1024, 64): (33554432, 68222976),\n"
            "            (4, 32, 2048, 128): (67108864, 67665920), (6, 4, 512, 64): (1572864, 3201024),\n"
            "            (2, 2, 16, 8): (1024, 1216)}\n"
            "    flops, nbytes = seen.get((b, h, t, d), (1.0, 1.0))\n"
            "    t_math, t_memory = flops / chip['flops'], nbytes / chip['hbm']\n"
            "    return {'flops': flops, 'bytes': nbytes, 'intensity': flops / nbytes, 'seconds': max(t_math, t_memory),\n"
            "            'bound': 'compute' if t_math >= t_memory else 'memory'}\n\n\n" + _CRITICAL,
        },
        "loses": {"test_roofline"},
        "bypass": "figures computed from any shapes, not the examples' typed in",
        "says": ["hidden input", "does not match"],
    },
    # The bytes of the inputs only: the scores are written too.
    "roofline_no_output_bytes": {
        "answers": {"roofline": _ROOFLINE.replace(" + b * h * t)", ")") + "\n\n" + _CRITICAL},
        "loses": {"test_roofline"},
        "says": ["['bytes']", "the scores are missing", "Try:", "Reread:"],
    },
    # Four bytes an element whatever the dtype: wrong for bfloat16.
    "roofline_float32_bytes": {
        "answers": {"roofline": _ROOFLINE.replace("jnp.dtype(dtype).itemsize", "4") + "\n\n" + _CRITICAL},
        "loses": {"test_roofline"},
        "says": ["['bytes']", "4 bytes an element, where bfloat16 has 2", "Try:", "Reread:"],
    },
    # A multiply-add counted as one flop.
    "roofline_flops_one_per_term": {
        "answers": {"roofline": _ROOFLINE.replace("flops = 2 * b", "flops = b") + "\n\n" + _CRITICAL},
        "loses": {"test_roofline"},
        "says": ["['flops']", "a multiply and an add", "Try:", "Reread:"],
    },
    # The cache counted once, as if the sequences shared it like a weight: the batch would then raise the intensity.
    "roofline_cache_shared": {
        "answers": {
            "roofline": _ROOFLINE.replace("b * h * t * d + b * h * t)", "h * t * d + b * h * t)") + "\n\n" + _CRITICAL
        },
        "loses": {"test_roofline"},
        "says": ["['bytes']", "each sequence reads its own", "Try:", "Reread:"],
    },
    # Correct, another way: the bytes from the arrays' shapes, the bound from the intensity against the chip's ridge.
    "roofline_from_shapes": {
        "answers": {
            "roofline": "def scores_roofline(b, h, t, d, dtype, chip):\n"
            "    shapes = [(b, h, d), (b, h, t, d), (b, h, t)]\n"
            "    nbytes = sum(math.prod(shape) for shape in shapes) * np.dtype(dtype).itemsize\n"
            "    flops = 2.0 * math.prod((b, h, t, d))\n"
            "    intensity = flops / nbytes\n"
            "    bound = 'compute' if intensity * chip['hbm'] >= chip['flops'] else 'memory'\n"
            "    return {'flops': flops, 'bytes': nbytes, 'intensity': intensity, 'bound': bound,\n"
            "            'seconds': max(flops / chip['flops'], nbytes / chip['hbm'])}\n\n\n" + _CRITICAL,
        },
        "loses": set(),
        "alternative": "bytes summed over the arrays' shapes, the bound from the intensity against the ridge point",
    },
    # Bypass: the lecture's number typed in: a batch of 240, the TPU v5e's critical intensity.
    "critical_batch_240": {
        "answers": {"roofline": _ROOFLINE + "\n\ndef critical_batch(k, n, dtype, chip):\n    return 240\n"},
        "loses": {"test_critical_batch"},
        "bypass": "the batch solved from the shapes and the chip, not the lecture's 240 typed in",
        "says": ["is 240", "memory-bound"],
    },
    # Bypass: the rule of thumb (intensity about 2m / s) that ignores k and n.
    "critical_batch_intensity_rule": {
        "answers": {
            "roofline": _ROOFLINE + "\n\ndef critical_batch(k, n, dtype, chip):\n"
            "    return math.ceil(chip['flops'] / chip['hbm'] * jnp.dtype(dtype).itemsize / 2)\n"
        },
        "loses": {"test_critical_batch"},
        "bypass": "the exact inequality in m, not the large-matrix rule of thumb",
        "says": ["memory-bound"],
    },
    # Bypass: a search over batches with the compiler's figures.
    "critical_batch_asks_compiler": {
        "answers": {
            "roofline": _ROOFLINE + "\n\ndef critical_batch(k, n, dtype, chip):\n"
            "    def bound(m):\n"
            "        a, b = jax.ShapeDtypeStruct((m, k), dtype), jax.ShapeDtypeStruct((k, n), dtype)\n"
            "        cost = jax.jit(jnp.matmul).lower(a, b).compile().cost_analysis()\n"
            "        return cost['flops'] / chip['flops'] >= cost['bytes accessed'] / chip['hbm']\n"
            "    if not bound(2**24):\n"
            "        return None\n"
            "    low, high = 0, 2**24\n"
            "    while high - low > 1:\n"
            "        middle = (low + high) // 2\n"
            "        low, high = (low, middle) if bound(middle) else (middle, high)\n"
            "    return high\n"
        },
        "loses": {"test_critical_batch"},
        "bypass": "the batch solved from the figures, not searched with the compiler",
        "says": ["reads the figures from the compiler"],
    },
    # The case with no solution forgotten: a batch is returned where none is compute-bound.
    "critical_batch_never_none": {
        "answers": {
            "roofline": _ROOFLINE + "\n\ndef critical_batch(k, n, dtype, chip):\n"
            "    size = jnp.dtype(dtype).itemsize\n"
            "    gain = 2 * k * n / chip['flops'] - size * (k + n) / chip['hbm']\n"
            "    return max(1, math.ceil(size * k * n / chip['hbm'] / gain))\n"
        },
        "loses": {"test_critical_batch"},
        "says": ["hidden input", "too small"],
    },
    # Rounded down: the largest memory-bound batch, not the smallest compute-bound one.
    "critical_batch_rounded_down": {
        "answers": {
            "roofline": _ROOFLINE + "\n\ndef critical_batch(k, n, dtype, chip):\n"
            "    size = jnp.dtype(dtype).itemsize\n"
            "    gain = 2 * k * n / chip['flops'] - size * (k + n) / chip['hbm']\n"
            "    return None if gain <= 0 else max(1, math.floor(size * k * n / chip['hbm'] / gain))\n"
        },
        "loses": {"test_critical_batch"},
        "says": ["memory-bound"],
    },
    # Correct, another way: a search over m with the roofline's two times, doubling then bisecting.
    "critical_batch_search": {
        "answers": {
            "roofline": _ROOFLINE + "\n\ndef critical_batch(k, n, dtype, chip):\n"
            "    size = jnp.dtype(dtype).itemsize\n"
            "    compute = lambda m: 2 * m * k * n / chip['flops'] >= size * (m * k + k * n + m * n) / chip['hbm']\n"
            "    high = 1\n"
            "    while not compute(high):\n"
            "        if high > 2**40:\n"
            "            return None\n"
            "        high *= 2\n"
            "    low = high // 2\n"
            "    while high - low > 1:\n"
            "        middle = (low + high) // 2\n"
            "        low, high = (low, middle) if compute(middle) else (middle, high)\n"
            "    return high\n"
        },
        "loses": set(),
        "alternative": "a search over m with the roofline's two times, doubling then bisecting",
    },
    # Bypass: the large-n limit (every collective moves the whole array), not the ring's n - 1 steps.
    "bytes_sent_whole_array": {
        "answers": _sent(
            "    return {'all-gather': n * block, 'reduce-scatter': block, 'all-reduce': 2 * block, 'all-to-all': block}[kind]\n"
        ),
        "loses": {"test_ring_collectives", "test_all_to_all"},
        "bypass": "the ring's n - 1 steps counted for any n, not the large-n limit",
        "says": ["the compiler's figures give"],
    },
    # Bypass: the lecture's 8 devices typed in: right for n = 8 only.
    "bytes_sent_seven_eighths": {
        "answers": _sent(
            "    return {'all-gather': 7 * block, 'reduce-scatter': 7 / 8 * block, 'all-reduce': 7 / 4 * block,\n"
            "            'all-to-all': 7 / 8 * block}[kind]\n"
        ),
        "loses": {"test_ring_collectives", "test_all_to_all"},
        "bypass": "the group size n in the figure, not the lecture's 8 devices typed in",
        "says": {
            "test_ring_collectives": ["hidden input", "does not match"],
            "test_all_to_all": ["the compiler's figures give"],
        },
    },
    # Bypass: the collective built and compiled, and its bytes read back.
    "bytes_sent_from_compiler": {
        "answers": {
            "collective": "def bytes_sent(kind, shape, dtype, n):\n"
            "    mesh = jax.make_mesh((n,), ('r',), axis_types=(AxisType.Auto,), devices=jax.devices('cpu')[:n])\n"
            "    body = {'all-gather': lambda b: jax.lax.all_gather(b, 'r', tiled=True, to='invarying'),\n"
            "            'reduce-scatter': lambda b: jax.lax.psum_scatter(b, 'r', tiled=True),\n"
            "            'all-reduce': lambda b: jax.lax.psum(b, 'r'),\n"
            "            'all-to-all': lambda b: jax.lax.all_to_all(b, 'r', 1, 0, tiled=True)}[kind]\n"
            "    out = P() if kind in ('all-gather', 'all-reduce') else P('r')\n"
            "    x = jax.device_put(jnp.zeros((shape[0] * n, *shape[1:]), dtype), NamedSharding(mesh, P('r')))\n"
            "    program = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P('r'), out_specs=out))\n"
            "    return ag.collective_bytes(program, x)[kind]\n"
        },
        "loses": {"test_ring_collectives", "test_all_to_all"},
        "bypass": "the bytes predicted from the algorithm, not read from a compiled collective",
        "says": ["reads the figures from the compiler"],
    },
    # Bypass: the lecture's table applied to the block as if it were V: the gathered and the exchanged array are
    # n blocks.
    "bytes_sent_block_as_whole": {
        "answers": _sent(
            "    factor = {'all-gather': (n - 1) / n, 'reduce-scatter': (n - 1) / n, 'all-reduce': 2 * (n - 1) / n,\n"
            "              'all-to-all': (n - 1) / n**2}[kind]\n"
            "    return factor * block\n"
        ),
        "loses": {"test_ring_collectives", "test_all_to_all"},
        "bypass": "V found from the block each device holds, not the lecture's table read with the block as V",
        "says": {
            "test_ring_collectives": ["'all-gather'", "the n blocks together for an all-gather"],
            "test_all_to_all": ["'all-to-all'", "V is the n blocks together"],
        },
    },
    # An all-reduce counted as one pass around the ring: it is a reduce-scatter and an all-gather.
    "bytes_sent_all_reduce_once": {
        "answers": _sent(
            "    if kind == 'all-gather':\n        return (n - 1) * block\n    return (n - 1) / n * block\n"
        ),
        "loses": {"test_ring_collectives"},
        "says": ["'all-reduce'", "reduce-scatter then an all-gather"],
    },
    # An all-to-all counted as an all-gather: each device sends its whole block to every other.
    "bytes_sent_all_to_all_as_gather": {
        "answers": _sent(
            "    if kind == 'all-reduce':\n        return 2 * (n - 1) / n * block\n"
            "    if kind == 'reduce-scatter':\n        return (n - 1) / n * block\n"
            "    return (n - 1) * block\n"
        ),
        "loses": {"test_all_to_all"},
        "says": ["'all-to-all'", "keeps one of the n pieces of its block"],
    },
    # Four bytes an element whatever the dtype.
    "bytes_sent_float32": {
        "answers": {
            "collective": "def bytes_sent(kind, shape, dtype, n):\n"
            "    block = math.prod(shape) * 4\n"
            "    factor = {'all-gather': n - 1, 'reduce-scatter': (n - 1) / n, 'all-reduce': 2 * (n - 1) / n,\n"
            "              'all-to-all': (n - 1) / n}[kind]\n"
            "    return factor * block\n"
        },
        "loses": {"test_ring_collectives", "test_all_to_all"},
        "says": ["float16"],
    },
    # Correct, another way: V found first, then the lecture's table as it stands.
    "bytes_sent_by_pieces": {
        "answers": {
            "collective": "def bytes_sent(kind, shape, dtype, n):\n"
            "    block = math.prod(shape) * jnp.dtype(dtype).itemsize\n"
            "    V = block if kind in ('reduce-scatter', 'all-reduce') else n * block\n"
            "    table = {'all-gather': (n - 1) / n * V, 'reduce-scatter': (n - 1) / n * V,\n"
            "             'all-reduce': 2 * (n - 1) / n * V, 'all-to-all': (n - 1) / n**2 * V}\n"
            "    return table[kind]\n"
        },
        "loses": set(),
        "alternative": "V found from the block first, then the lecture's table as it stands",
    },
    # Data parallel: every array whole on every device.
    "fsdp_data_parallel": {
        "answers": {
            "fsdp": "def fsdp_place(tree, mesh):\n"
            "    return jax.device_put(tree, NamedSharding(mesh, P()))\n\n\n"
            "def make_fsdp_step(mesh):\n"
            "    batch = NamedSharding(mesh, P(mesh.axis_names[0]))\n"
            "    return jax.jit(lambda p, s, x, y: train_step(p, s, *jax.lax.with_sharding_constraint((x, y), batch)))\n"
        },
        "loses": {"test_fsdp_structure"},
        "says": ["whole on each of 8 devices"],
    },
    # Bypass: the state replicated when placed, and only the step's outputs split.
    "fsdp_replicated_params_sharded_output": {
        "answers": {
            "fsdp": _FSDP_SPEC + "\n\ndef fsdp_place(tree, mesh):\n"
            "    return jax.device_put(tree, NamedSharding(mesh, P()))\n\n\n" + _FSDP_STEP
        },
        "loses": {"test_fsdp_structure"},
        "bypass": "the state split on the devices, not replicated with only the step's outputs split",
        "says": ["whole on each of 8 devices", "fsdp_place"],
    },
    # Bypass: the step pulls everything onto one device, then lays the results out as asked.
    "fsdp_one_device": {
        "answers": {
            "fsdp": _FSDP_PLACE + "\n\ndef make_fsdp_step(mesh):\n"
            "    def step(params, opt_state, x, y):\n"
            "        one = jax.devices('cpu')[0]\n"
            "        params, opt_state, value = jax.jit(train_step)(*jax.device_put((params, opt_state, x, y), one))\n"
            "        return fsdp_place(params, mesh), fsdp_place(opt_state, mesh), value\n"
            "    return step\n"
        },
        "loses": {"test_fsdp_structure"},
        "bypass": "the step computed across the devices, not on one with its result put back",
        "says": ["onto one device", "Try:", "Reread:"],
    },
    # Bypass: the state split but the batch whole on every device: each device computes every example.
    "fsdp_batch_replicated": {
        "answers": {
            "fsdp": _FSDP_PLACE + "\n\ndef make_fsdp_step(mesh):\n"
            "    whole = NamedSharding(mesh, P())\n"
            "    split = lambda t: jax.tree.map(lambda v: jax.lax.with_sharding_constraint(v, NamedSharding(mesh, fsdp_spec(v, mesh))), t)\n\n"
            "    @jax.jit\n"
            "    def step(params, opt_state, x, y):\n"
            "        x, y = jax.lax.with_sharding_constraint((x, y), whole)\n"
            "        params, opt_state, value = train_step(params, opt_state, x, y)\n"
            "        return split(params), split(opt_state), value\n\n"
            "    return step\n"
        },
        "loses": {"test_fsdp_structure"},
        "bypass": "the batch split over the devices (data parallel), not whole on each",
        "says": ["no all-gather", "split the batch over the axis"],
    },
    # The devices' losses summed (psum) where the batch's loss is their mean: a gradient n times too large.
    "fsdp_losses_summed": {
        "answers": {
            "fsdp": _FSDP_PLACE + "\n\ndef make_fsdp_step(mesh):\n" + _FSDP_LOCAL + "\n"
            "    @jax.jit\n"
            "    def step(params, opt_state, x, y):\n"
            "        state = (specs(params), specs(opt_state))\n\n"
            "        def local(params, opt_state, x, y):\n"
            "            whole = lambda p: loss(gathered(p, state[0]), x, y)\n"
            "            value, grads = jax.value_and_grad(lambda p: jax.lax.psum(whole(p), axis))(params)\n"
            "            updates, opt_state = optimizer.update(grads, opt_state, params)\n"
            "            return optax.apply_updates(params, updates), opt_state, value\n\n"
            "        f = jax.shard_map(local, mesh=mesh, in_specs=(*state, P(axis), P(axis)), out_specs=(*state, P()))\n"
            "        return f(params, opt_state, x, y)\n\n"
            "    return step\n"
        },
        "loses": {"test_fsdp", "test_fsdp_structure"},
        "says": {"test_fsdp": ["n times too large"], "test_fsdp_structure": ["differs"]},
    },
    # Bypass: jit alone on the placed state: the compiler keeps the weights split and moves activations instead.
    "fsdp_plain_jit": {
        "answers": {"fsdp": _FSDP_PLACE + "\n\ndef make_fsdp_step(mesh):\n    return jax.jit(train_step)\n"},
        "loses": {"test_fsdp_structure"},
        "bypass": "the batch split and each weight gathered where used, not jit left to choose the layouts",
        "says": ["no all-gather", "gather each weight where a block uses it"],
    },
    # Correct, another way: the layouts asked of jit (in_shardings, out_shardings), the gather as train_step's hook.
    "fsdp_in_out_shardings": {
        "answers": {
            "fsdp": _FSDP_PLACE + "\n\ndef make_fsdp_step(mesh):\n"
            "    whole, batch = NamedSharding(mesh, P()), NamedSharding(mesh, P(mesh.axis_names[0]))\n"
            "    layout = lambda t: jax.tree.map(lambda leaf: NamedSharding(mesh, fsdp_spec(leaf, mesh)), t)\n"
            "    train = lambda p, s, x, y: train_step(p, s, x, y, lambda w: jax.lax.with_sharding_constraint(w, whole))\n\n"
            "    def step(params, opt_state, x, y):\n"
            "        state = (layout(params), layout(opt_state))\n"
            "        jitted = jax.jit(train, in_shardings=(*state, batch, batch), out_shardings=(*state, whole))\n"
            "        return jitted(params, opt_state, x, y)\n\n"
            "    return step\n"
        },
        "loses": set(),
        "alternative": "in_shardings and out_shardings of jit in place of with_sharding_constraint",
    },
    # Correct, another way: the batch split and the outputs laid out; gathering the weights left to the compiler.
    "fsdp_batch_split_no_gather": {
        "answers": {
            "fsdp": _FSDP_PLACE + "\n\ndef make_fsdp_step(mesh):\n"
            "    axis = mesh.axis_names[0]\n"
            "    split = lambda t: jax.tree.map(lambda v: jax.lax.with_sharding_constraint(v, NamedSharding(mesh, fsdp_spec(v, mesh))), t)\n\n"
            "    @jax.jit\n"
            "    def step(params, opt_state, x, y):\n"
            "        x, y = jax.lax.with_sharding_constraint((x, y), NamedSharding(mesh, P(axis)))\n"
            "        params, opt_state, value = train_step(params, opt_state, x, y)\n"
            "        return split(params), split(opt_state), value\n\n"
            "    return step\n"
        },
        "loses": set(),
        "alternative": "the batch split and the state's layout kept; the compiler gathering each weight itself",
    },
    # The lecture's axis name typed in: the hidden test's mesh names its axis otherwise.
    "fsdp_axis_named_data": {
        "answers": {
            "fsdp": _FSDP_PLACE.replace("axis = mesh.axis_names[0]", "axis = 'data'").replace(
                "mesh.shape[axis]", "mesh.size"
            )
            + "\n\n"
            + _FSDP_STEP
        },
        "loses": {"test_fsdp"},
        "says": ["is not found in mesh", "mesh.axis_names"],
    },
    # shard_map returning each device's own loss where out_specs say it is the same on all: the pmean left out.
    "fsdp_shard_map_loss_not_averaged": {
        "answers": {
            "fsdp": _FSDP_PLACE + "\n\ndef make_fsdp_step(mesh):\n" + _FSDP_LOCAL + "\n"
            "    @jax.jit\n"
            "    def step(params, opt_state, x, y):\n"
            "        state = (specs(params), specs(opt_state))\n\n"
            "        def local(params, opt_state, x, y):\n"
            "            value, grads = jax.value_and_grad(lambda p: loss(gathered(p, state[0]), x, y))(params)\n"
            "            updates, opt_state = optimizer.update(grads, opt_state, params)\n"
            "            return optax.apply_updates(params, updates), opt_state, value\n\n"
            "        f = jax.shard_map(local, mesh=mesh, in_specs=(*state, P(axis), P(axis)), out_specs=(*state, P()))\n"
            "        return f(params, opt_state, x, y)\n\n"
            "    return step\n"
        },
        "loses": {"test_fsdp", "test_fsdp_structure"},
        "says": ["out_specs which require replication", "jax.lax.psum(value, axis)", "Reread"],
    },
    # Correct, another way: shard_map, all-gathering each weight in its block; autodiff reduce-scatters.
    "fsdp_shard_map": {
        "answers": {
            "fsdp": _FSDP_PLACE + "\n\ndef make_fsdp_step(mesh):\n" + _FSDP_LOCAL + "\n"
            "    @jax.jit\n"
            "    def step(params, opt_state, x, y):\n"
            "        state = (specs(params), specs(opt_state))\n\n"
            "        def local(params, opt_state, x, y):\n"
            "            whole = lambda p: loss(gathered(p, state[0]), x, y)\n"
            "            value, grads = jax.value_and_grad(lambda p: jax.lax.pmean(whole(p), axis))(params)\n"
            "            updates, opt_state = optimizer.update(grads, opt_state, params)\n"
            "            return optax.apply_updates(params, updates), opt_state, value\n\n"
            "        f = jax.shard_map(local, mesh=mesh, in_specs=(*state, P(axis), P(axis)), out_specs=(*state, P()))\n"
            "        return f(params, opt_state, x, y)\n\n"
            "    return step\n"
        },
        "loses": set(),
        "alternative": "shard_map with an all_gather per weight along its split dimension, whose gradient is a reduce-scatter",
    },
    # Bypass: the lecture's layout copied, every array split along its first dimension: the values are right, the
    # layout is not the one asked.
    "fsdp_first_dimension": {
        "answers": {
            "fsdp": _FSDP_PLACE.replace(
                _FSDP_SPEC, "def fsdp_spec(leaf, mesh):\n    return P(mesh.axis_names[0]) if jnp.ndim(leaf) else P()\n"
            )
            + "\n\n"
            + _FSDP_STEP
        },
        "loses": {"test_fsdp_structure"},
        "bypass": "each array split along its largest dimension the axis divides, not the lecture's first dimension copied",
        "says": ["not as requested (P(None, 'data'))", "largest dimension that the axis size (8) divides", "Reread:"],
    },
    # Bypass: the weights gathered whole, the result laid out as asked.
    "megatron_gathered_weights": {
        "answers": {
            "megatron": "def megatron_glu(x, w_gate, w_up, w_down, mesh):\n"
            "    whole = lambda w: jax.lax.with_sharding_constraint(w, NamedSharding(mesh, P()))\n"
            "    f = lambda x, g, u, d: (jax.nn.silu(x @ whole(g)) * (x @ whole(u))) @ whole(d)\n"
            "    return jax.jit(f, out_shardings=NamedSharding(mesh, P('data', None)))(x, w_gate, w_up, w_down)\n"
        },
        "loses": {"test_megatron_structure"},
        "bypass": "the weights kept split (Megatron), not gathered whole with only the output split",
        "says": ["all-gather", "no weight is gathered"],
    },
    # Bypass: shard_map with every weight whole on each device (in_specs P()): the compiler gathers them.
    "megatron_shard_map_whole_weights": {
        "answers": {
            "megatron": "def megatron_glu(x, w_gate, w_up, w_down, mesh):\n"
            "    def block(x, g, u, d):\n"
            "        return jax.lax.pmean((jax.nn.silu(x @ g) * (x @ u)) @ d, 'model')\n"
            "    specs = dict(in_specs=(P('data', None), P(), P(), P()), out_specs=P('data', None))\n"
            "    return jax.jit(jax.shard_map(block, mesh=mesh, **specs))(x, w_gate, w_up, w_down)\n"
        },
        "loses": {"test_megatron_structure"},
        "bypass": "each device's columns and rows of the weights, not every weight whole on each device",
        "says": ["all-gather", "no weight is gathered"],
    },
    # Bypass: the product written on the laid-out arrays: the compiler derives the split from the layouts.
    "megatron_plain_product": {
        "answers": {
            "megatron": f"def megatron_glu(x, w_gate, w_up, w_down, mesh):\n    return ({_GLU})(x, w_gate, w_up, w_down)\n"
        },
        "loses": {"test_megatron_structure"},
        "bypass": "the per-device program written with shard_map and psum, not a product the compiler splits",
        "says": ["no collective at all", "shard_map"],
    },
    # Bypass: jit with the output's layout, the compiler finding Megatron's all-reduce from the layouts.
    "megatron_jit": {
        "answers": {
            "megatron": "def megatron_glu(x, w_gate, w_up, w_down, mesh):\n"
            f"    return jax.jit({_GLU}, out_shardings=NamedSharding(mesh, P('data', None)))(x, w_gate, w_up, w_down)\n"
        },
        "loses": {"test_megatron_structure"},
        "bypass": "the per-device program written with shard_map and psum, not jit's out_shardings with the compiler splitting",
        "says": ["psum over the mesh axis 'model'", "leaves the split to the compiler"],
    },
    # Bypass: NumPy on the host, the result device_put with the layout asked for: the grader cannot run it.
    "megatron_numpy_device_put": {
        "answers": {
            "megatron": "def megatron_glu(x, w_gate, w_up, w_down, mesh):\n"
            "    x, g, u, d = (np.asarray(a) for a in (x, w_gate, w_up, w_down))\n"
            "    h = (x @ g) / (1 + np.exp(-(x @ g))) * (x @ u) @ d\n"
            "    return jax.device_put(h.astype(np.float32), NamedSharding(mesh, P('data', None)))\n"
        },
        "loses": {"test_megatron", "test_megatron_structure"},
        "lost_in_the_verifier": {"test_megatron"},
        "bypass": "the product computed on the devices, not on the host and device_put",
        "says": {"test_megatron": ["could not be exported", "NumPy"], "test_megatron_structure": ["cannot be traced"]},
    },
    # Bypass: the hidden layer gathered, skipping the all-reduce of the output's shares.
    "megatron_gather_hidden": {
        "answers": {
            "megatron": "def megatron_glu(x, w_gate, w_up, w_down, mesh):\n"
            "    def block(x, g, u, d):\n"
            "        h = jax.lax.all_gather(jax.nn.silu(x @ g) * (x @ u), 'model', axis=1, tiled=True, to='invarying')\n"
            "        return h @ jax.lax.all_gather(d, 'model', axis=0, tiled=True, to='invarying')\n"
            "    specs = dict(in_specs=(P('data', None), P(None, 'model'), P(None, 'model'), P('model', None)), out_specs=P('data', None))\n"
            "    return jax.jit(jax.shard_map(block, mesh=mesh, **specs))(x, w_gate, w_up, w_down)\n"
        },
        "loses": {"test_megatron_structure"},
        "bypass": "one psum of the output's shares, not the hidden layer and the weight gathered",
        "says": ["all-gather", "no weight is gathered"],
    },
    # Bypass: everything moved onto one device, the result put back.
    "megatron_one_device": {
        "answers": {
            "megatron": "def megatron_glu(x, w_gate, w_up, w_down, mesh):\n"
            f"    out = jax.jit({_GLU})(*jax.device_put((x, w_gate, w_up, w_down), jax.devices('cpu')[0]))\n"
            "    return jax.device_put(out, NamedSharding(mesh, P('data', None)))\n"
        },
        "loses": {"test_megatron_structure"},
        "bypass": "the product split over the mesh, not computed on one device",
        "says": ["onto one device", "Try:", "Reread:"],
    },
    # The shares never added up (the psum left out): each device's partial product returned as the output.
    "megatron_no_psum": {
        "answers": {"megatron": _GLU_SHARD_MAP.replace("jax.lax.psum(hidden @ d, 'model')", "hidden @ d")},
        "loses": {"test_megatron", "test_megatron_structure"},
        "says": [
            "out_specs which require replication",
            "differs from device to device",
            "jax.lax.psum(value, axis)",
            "Reread",
        ],
    },
    # The psum's check turned off to silence that error: the shares are still not added.
    "megatron_no_psum_unchecked": {
        "answers": {
            "megatron": _GLU_SHARD_MAP.replace("jax.lax.psum(hidden @ d, 'model')", "hidden @ d").replace(
                "mesh=mesh,", "mesh=mesh, check_vma=False,"
            )
        },
        "loses": {"test_megatron", "test_megatron_structure"},
        "says": {
            "test_megatron": ["psum over 'model'"],
            "test_megatron_structure": ["two megatron_glu blocks chained"],
        },
    },
    # The shares averaged (pmean) where they add up: the output a model-axis size too small.
    "megatron_pmean": {
        "answers": {"megatron": _GLU_SHARD_MAP.replace("jax.lax.psum(", "jax.lax.pmean(")},
        "loses": {"test_megatron", "test_megatron_structure"},
        "says": {"test_megatron": ["share of the sum", "psum over 'model'"], "test_megatron_structure": ["differs"]},
    },
    # The shares added over the wrong mesh axis.
    "megatron_psum_over_data": {
        "answers": {"megatron": _GLU_SHARD_MAP.replace("hidden @ d, 'model')", "hidden @ d, 'data')")},
        "loses": {"test_megatron", "test_megatron_structure"},
        "says": ["out_specs which require replication", "jax.lax.psum(value, axis)"],
    },
    # The shares added over a misspelled axis: inside shard_map JAX stops at an assert with no message.
    "megatron_psum_misspelled_axis": {
        "answers": {"megatron": _GLU_SHARD_MAP.replace("hidden @ d, 'model')", "hidden @ d, 'modle')")},
        "loses": {"test_megatron", "test_megatron_structure"},
        "says": ["jax.lax.psum names the axis 'modle'", "its axes are 'data', 'model'", "mesh.axis_names", "Reread:"],
    },
    # A mesh axis the mesh does not have, typed in the specs.
    "megatron_wrong_axis_name": {
        "answers": {"megatron": _GLU_SHARD_MAP.replace("P('data', None)", "P('batch', None)")},
        "loses": {"test_megatron", "test_megatron_structure"},
        "says": ["refers to 'batch'", "not one of the mesh's axis names", "mesh.axis_names"],
    },
    # w_up split by rows, as w_down: its product with x no longer fits.
    "megatron_up_by_rows": {
        "answers": {"megatron": _GLU_SHARD_MAP.replace("columns, columns, rows", "columns, rows, rows")},
        "loses": {"test_megatron", "test_megatron_structure"},
        "says": ["dot_general", "do not fit"],
    },
    # Each device's piece of the output returned as a column block: the result has the wrong shape.
    "megatron_per_device_shard": {
        "answers": {
            "megatron": _GLU_SHARD_MAP.replace("out_specs=P('data', None)", "out_specs=P('data', 'model')").replace(
                "jax.lax.psum(hidden @ d, 'model')", "hidden @ d"
            )
        },
        "loses": {"test_megatron", "test_megatron_structure"},
        "says": ["shape"],
    },
    # Passes the visible test by returning its expected output: the hidden test and the chained blocks catch it.
    "megatron_hardcoded": {
        "answers": {
            "megatron": "def megatron_glu(x, w_gate, w_up, w_down, mesh):\n"
            "    x0 = jnp.sin(jnp.arange(16 * 24.0).reshape(16, 24))\n"
            "    g0, u0 = jnp.cos(jnp.arange(24 * 40.0).reshape(24, 40)) / 5, jnp.sin(jnp.arange(24 * 40.0).reshape(24, 40) / 3) / 4\n"
            "    d0 = jnp.sin(jnp.arange(40 * 24.0).reshape(40, 24)) / 6\n"
            f"    return jax.device_put(({_GLU})(x0, g0, u0, d0), NamedSharding(mesh, P('data', None)))\n"
        },
        "loses": {"test_megatron", "test_megatron_structure"},
        "says": {"test_megatron": ["hidden input"], "test_megatron_structure": ["two megatron_glu blocks chained"]},
    },
    # Correct, another way: shard_map called without jit, specs written short (P('data') for P('data', None)).
    "megatron_shard_map_eager": {
        "answers": {
            "megatron": "def megatron_glu(x, w_gate, w_up, w_down, mesh):\n"
            "    def block(x, g, u, d):\n"
            "        return jax.lax.psum(jax.nn.silu(x @ g) * (x @ u) @ d, 'model')\n"
            "    return jax.shard_map(block, mesh=mesh, in_specs=(P('data'), P(None, 'model'), P(None, 'model'), P('model')),\n"
            "                         out_specs=P('data'))(x, w_gate, w_up, w_down)\n"
        },
        "loses": set(),
        "alternative": "shard_map without an outer jit, trailing Nones of the specs left out",
    },
    # Correct, another way: the psum's check off, the sum written once, and the result's layout asked of jit.
    "megatron_shard_map_out_shardings": {
        "answers": {
            "megatron": "def megatron_glu(x, w_gate, w_up, w_down, mesh):\n"
            "    col, row = P(None, 'model'), P('model', None)\n"
            "    @jax.shard_map(mesh=mesh, in_specs=(P('data', None), col, col, row), out_specs=P('data', None), check_vma=False)\n"
            "    def block(x, g, u, d):\n"
            "        gate, up = x @ g, x @ u\n"
            "        return jax.lax.psum((gate * jax.nn.sigmoid(gate) * up) @ d, 'model')\n"
            "    return jax.jit(block, out_shardings=NamedSharding(mesh, P('data', None)))(x, w_gate, w_up, w_down)\n"
        },
        "loses": set(),
        "alternative": "shard_map as a decorator, silu written out, the layout also asked of jit's out_shardings",
    },
    # Bypass: every array taken as split over every device, whatever its spec says.
    "bytes_per_device_all_split": {
        "answers": _memory(
            "    total = sum(leaf.size * leaf.dtype.itemsize for leaf in jax.tree.leaves(tree))\n"
            "    return total / math.prod(mesh_shape.values())\n"
        ),
        "loses": {"test_bytes_per_device", "test_bytes_per_device_2d"},
        "bypass": "each array's own spec read, not every array taken as split over every device",
        "says": ["the compiler's figures give"],
    },
    # Bypass: each tree laid out and a program compiled, its memory_analysis read back.
    "bytes_per_device_from_compiler": {
        "answers": _memory(
            "    n = math.prod(mesh_shape.values())\n"
            "    mesh = jax.make_mesh(tuple(mesh_shape.values()), tuple(mesh_shape), axis_types=(AxisType.Auto,) * len(mesh_shape),\n"
            "                         devices=jax.devices('cpu')[:n])\n"
            "    placed = jax.tree.map(lambda leaf, spec: jax.device_put(leaf, NamedSharding(mesh, spec)), tree, specs)\n"
            "    return ag.memory_per_device(lambda t: jax.tree.map(lambda a: a + 1, t), placed)['argument']\n"
        ),
        "loses": {"test_bytes_per_device", "test_bytes_per_device_2d"},
        "bypass": "the bytes predicted from the layout, not read from a compiled program",
        "says": ["reads the figures from the compiler"],
    },
    # Bypass: the visible cases' answers typed in, keyed by the tree's size and the mesh.
    "bytes_per_device_hardcoded": {
        "answers": _memory(
            "    seen = {(131072, (8,), 'P()'): 524288, (131072, (8,), \"P('data',)\"): 65536,\n"
            "            (131072, (4,), \"P(None, 'model')\"): 131072, (131072, (2,), \"P(None, 'model')\"): 262144,\n"
            "            (81920, (4, 2), \"P(None, 'model')\"): 143360, (81920, (4, 2), \"P('data', 'model')\"): 45056,\n"
            "            (81920, (4, 2), \"P(('data', 'model'),)\"): 38912, (81920, (2, 2), \"P(('data', 'model'),)\"): 98304}\n"
            "    size = sum(leaf.size for leaf in jax.tree.leaves(tree))\n"
            "    return seen.get((size, tuple(mesh_shape.values()), str(jax.tree.leaves(specs)[0])), 0)\n"
        ),
        "loses": {"test_bytes_per_device", "test_bytes_per_device_2d"},
        "bypass": "the bytes computed from any tree and layout, not the examples' typed in",
        "says": ["hidden input", "does not match"],
    },
    # Only the first entry of each spec counted: a split of a later dimension is missed.
    "bytes_per_device_first_entry": {
        "answers": _memory(
            "    def share(leaf, spec):\n"
            "        first = spec[0] if len(spec) else None\n"
            "        axes = (first,) if isinstance(first, str) else (first or ())\n"
            "        return leaf.size * leaf.dtype.itemsize / math.prod(mesh_shape[a] for a in axes)\n"
            "    return sum(jax.tree.leaves(jax.tree.map(share, tree, specs)))\n"
        ),
        "loses": {"test_bytes_per_device", "test_bytes_per_device_2d"},
        "says": {"test_bytes_per_device": ["tensor parallel"], "test_bytes_per_device_2d": ["data x tensor"]},
    },
    # A tuple entry read as no split at all.
    "bytes_per_device_ignores_tuples": {
        "answers": _memory(
            "    def share(leaf, spec):\n"
            "        return leaf.size * leaf.dtype.itemsize / math.prod(mesh_shape[e] for e in spec if isinstance(e, str))\n"
            "    return sum(jax.tree.leaves(jax.tree.map(share, tree, specs)))\n"
        ),
        "loses": {"test_bytes_per_device_2d"},
        "says": ["split over both axes"],
    },
    # Correct, another way: each array's shard shape, from a NamedSharding on an abstract mesh.
    "bytes_per_device_shard_shape": {
        "answers": _memory(
            "    mesh = jax.sharding.AbstractMesh(tuple(mesh_shape.values()), tuple(mesh_shape))\n"
            "    def share(leaf, spec):\n"
            "        return math.prod(NamedSharding(mesh, spec).shard_shape(leaf.shape)) * leaf.dtype.itemsize\n"
            "    return sum(jax.tree.leaves(jax.tree.map(share, tree, specs)))\n"
        ),
        "loses": set(),
        "alternative": "each array's shard shape, from a NamedSharding on an abstract mesh",
    },
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # fsdp_place hands device_put a bare PartitionSpec, with no mesh around it.
    "fsdp_bare_partition_spec": {
        "answers": {
            "fsdp": "def fsdp_spec(leaf, mesh):\n    axis = mesh.axis_names[0]\n    shape = jnp.shape(leaf)\n    even = [i for i, size in enumerate(shape) if size % mesh.shape[axis] == 0]  # the dimensions it splits evenly\n    if not even:\n        return P()  # whole on every device\n    split = max(even, key=lambda i: (shape[i], -i))  # the largest; the first of equal ones\n    return P(*(axis if i == split else None for i in range(split + 1)))\n\n\ndef fsdp_place(tree, mesh):\n    return jax.tree.map(lambda leaf: jax.device_put(leaf, fsdp_spec(leaf, mesh)), tree)\n\n\ndef make_fsdp_step(mesh):\n    whole, batch = NamedSharding(mesh, P()), NamedSharding(mesh, P(mesh.axis_names[0]))\n\n    def keep_split(tree):  # the layout fsdp_place gives, asked of the step's outputs\n        return jax.tree.map(lambda v: jax.lax.with_sharding_constraint(v, NamedSharding(mesh, fsdp_spec(v, mesh))), tree)\n\n    @jax.jit\n    def step(params, opt_state, x, y):\n        x, y = jax.lax.with_sharding_constraint((x, y), batch)\n        gather = lambda w: jax.lax.with_sharding_constraint(w, whole)  # whole only where a block uses it\n        params, opt_state, value = train_step(params, opt_state, x, y, gather)\n        return keep_split(params), keep_split(opt_state), value\n\n    return step\n"
        },
        "loses": {"test_fsdp", "test_fsdp_structure"},
        "says": ["bare PartitionSpec", "NamedSharding(mesh, fsdp_spec(leaf, mesh))", "Reread:"],
    },
    # The result declared whole on every device (out_specs P()), where each device along 'data' holds its rows.
    "megatron_out_specs_replicated": {
        "answers": {
            "megatron": 'def megatron_glu(x, w_gate, w_up, w_down, mesh):\n    def block(x, w_gate, w_up, w_down):  # per device: its examples, its columns of w_gate and w_up, its rows of w_down\n        hidden = jax.nn.silu(x @ w_gate) * (x @ w_up)  # its columns of the hidden layer: element by element, no communication\n        return jax.lax.psum(hidden @ w_down, "model")  # its share of the sum over the hidden units, added up\n\n    columns, rows = P(None, "model"), P("model", None)\n    specs = dict(in_specs=(P("data", None), columns, columns, rows), out_specs=P())\n    return jax.jit(jax.shard_map(block, mesh=mesh, **specs))(x, w_gate, w_up, w_down)\n'
        },
        "loses": {"test_megatron", "test_megatron_structure"},
        "says": ["out_specs", "out_specs=P('data', None)", "Reread:"],
    },
    # w_gate and w_up declared split by rows, as w_down: a device's pieces no longer fit in x @ w_gate.
    "megatron_in_specs_rows": {
        "answers": {
            "megatron": 'def megatron_glu(x, w_gate, w_up, w_down, mesh):\n    def block(x, w_gate, w_up, w_down):  # per device: its examples, its columns of w_gate and w_up, its rows of w_down\n        hidden = jax.nn.silu(x @ w_gate) * (x @ w_up)  # its columns of the hidden layer: element by element, no communication\n        return jax.lax.psum(hidden @ w_down, "model")  # its share of the sum over the hidden units, added up\n\n    columns, rows = P(None, "model"), P("model", None)\n    specs = dict(in_specs=(P("data", None), rows, rows, rows), out_specs=P("data", None))\n    return jax.jit(jax.shard_map(block, mesh=mesh, **specs))(x, w_gate, w_up, w_down)\n'
        },
        "loses": {"test_megatron", "test_megatron_structure"},
        "says": ["contracting dimensions", "in_specs=(P('data', None), P(None, 'model')", "Reread:"],
    },
}
