"""Wrong answers to set 08_parallel (see tests/variants/__init__.py)."""

VARIANTS = {
    # Each device subtracts its own piece's mean: right only on one device.
    "pmap_local_mean": {
        "answers": {
            "pmap": "def center_piece(piece):\n"
            "    return piece - jnp.mean(piece)\n\n\n"
            "def center_pmap(x):\n"
            "    pieces = jax.pmap(center_piece)(x.reshape(jax.device_count(), -1))\n"
            "    return pieces.reshape(x.shape)\n",
        },
        "loses": {"test_pmap", "test_pmap_structure"},
        "says": ["jax.lax.pmean"],
    },
    # Bypass: psum where pmean is needed, a mean device_count() times too large: right only on
    # one device, so the test runs center_piece as 8 (and, hidden, 12) simulated devices with vmap.
    "pmap_psum_not_pmean": {
        "answers": {
            "pmap": "def center_piece(piece):\n"
            "    return piece - jax.lax.psum(jnp.mean(piece), 'devices')\n\n\n"
            "def center_pmap(x):\n"
            "    pieces = jax.pmap(center_piece, axis_name='devices')(x.reshape(jax.device_count(), -1))\n"
            "    return pieces.reshape(x.shape)\n",
        },
        "loses": {"test_pmap", "test_pmap_structure"},
        "bypass": "the global mean from a collective, for any number of devices",
        "says": ["psum would add"],
    },
    # Divides by jax.device_count(), not the number of pieces the collective summed: right on
    # this machine's 8 devices, wrong on the tests' 6 and 12 simulated ones.
    "pmap_divides_by_device_count": {
        "answers": {
            "pmap": "def center_piece(piece):\n"
            "    return piece - jax.lax.psum(jnp.sum(piece), 'devices') / (piece.size * jax.device_count())\n\n\n"
            "def center_pmap(x):\n"
            "    pieces = jax.pmap(center_piece, axis_name='devices')(x.reshape(jax.device_count(), -1))\n"
            "    return pieces.reshape(x.shape)\n",
        },
        "loses": {"test_pmap"},
        "says": ["jax.lax.pmean"],
    },
    # Right values, but no device does any part of the work.
    "pmap_not_parallel": {
        "answers": {
            "pmap": "def center_piece(piece):\n"
            "    return piece - jax.lax.pmean(jnp.mean(piece), 'devices')\n\n\n"
            "def center_pmap(x):\n"
            "    return x - jnp.mean(x)\n",
        },
        "loses": {"test_pmap_structure"},
        "says": ["uses no collective at all", "jax.lax.pmean"],
    },
    # Passes the visible tests by returning their expected outputs: the hidden test catches it.
    "pmap_hardcoded": {
        "answers": {
            "pmap": "def center_piece(piece):\n"
            "    return piece - 23.5\n\n\n"
            "def center_pmap(x):\n"
            "    return jnp.arange(8.0 * n_devices) - (8.0 * n_devices - 1) / 2\n",
        },
        "loses": {"test_pmap", "test_pmap_structure"},
        "says": {"test_pmap": ["hidden input"], "test_pmap_structure": ["uses no collective at all"]},
    },
    # Not migrated: still pmap underneath.
    "shard_map_still_pmap": {
        "answers": {
            "shard_map": "def center_shard_map(x, mesh):\n    return center_pmap(x)\n",
        },
        "loses": {"test_shard_map_structure"},
        "says": ["shard_map", "written with jax.pmap, the older interface"],
    },
    # Bypass: the right values computed on one device, with no per-device program or collective.
    "shard_map_not_parallel": {
        "answers": {"shard_map": "def center_shard_map(x, mesh):\n    return x - jnp.mean(x)\n"},
        "loses": {"test_shard_map_structure"},
        "bypass": "a per-device program (shard_map) with a collective over the mesh axis",
        "says": ["shard_map"],
    },
    # psum where pmean is needed: right only on a one-device mesh, and the tests' meshes hold
    # every CPU device (8), whatever the default devices are.
    "shard_map_psum_not_pmean": {
        "answers": {
            "shard_map": "def center_shard_map(x, mesh):\n"
            "    axis = mesh.axis_names[0]\n"
            "    x = jax.device_put(x, NamedSharding(mesh, P(axis)))\n"
            "    center = lambda p: p - jax.lax.psum(jnp.mean(p), axis)\n"
            "    return jax.shard_map(center, mesh=mesh, in_specs=P(axis), out_specs=P(axis))(x)\n",
        },
        "loses": {"test_shard_map", "test_shard_map_structure"},
        "says": ["psum would add"],
    },
    # Correct, another way: the global sum over the devices, divided by the whole length.
    "shard_map_psum_of_sums": {
        "answers": {
            "shard_map": "def center_shard_map(x, mesh):\n"
            "    axis, total = mesh.axis_names[0], x.size\n"
            "    x = jax.device_put(x, NamedSharding(mesh, P(axis)))\n"
            "    center = lambda p: p - jax.lax.psum(p.sum(), axis) / total\n"
            "    return jax.shard_map(center, mesh=mesh, in_specs=P(axis), out_specs=P(axis))(x)\n",
        },
        "loses": set(),
        "alternative": "psum of the pieces' sums divided by the global length, instead of pmean",
    },
    # Forgets the collective: each device centres its own piece.
    "shard_map_local_mean": {
        "answers": {
            "shard_map": "def center_shard_map(x, mesh):\n"
            "    axis = mesh.axis_names[0]\n"
            "    x = jax.device_put(x, NamedSharding(mesh, P(axis)))\n"
            "    return jax.shard_map(lambda p: p - jnp.mean(p), mesh=mesh, in_specs=P(axis), out_specs=P(axis))(x)\n",
        },
        "loses": {"test_shard_map", "test_shard_map_structure"},
        "says": ["jax.lax.pmean"],
    },
    # Bypass: a plain matmul on one device, with the right values; the tests' mesh holds every
    # CPU device, so this is seen even where the default devices are one GPU.
    "matmul_unsharded": {
        "answers": {"matmul": "def sharded_matmul(A, B, mesh):\n    return A @ B\n"},
        "loses": {"test_matmul_sharding"},
        "bypass": "the result laid out across the mesh as asked",
        "says": ["not as requested", "out_shardings"],
    },
    # Correct, another way: shard the inputs (rows of A on "x", columns of B on "y") and let jit
    # propagate the layout to the product.
    "matmul_sharded_inputs": {
        "answers": {
            "matmul": "def sharded_matmul(A, B, mesh):\n"
            "    A = jax.device_put(A, NamedSharding(mesh, P('x', None)))\n"
            "    B = jax.device_put(B, NamedSharding(mesh, P(None, 'y')))\n"
            "    return jax.jit(jnp.matmul)(A, B)\n",
        },
        "loses": set(),
        "alternative": "sharded inputs, the product's layout propagated by jit",
    },
    "matmul_axes_swapped": {
        "answers": {
            "matmul": "def sharded_matmul(A, B, mesh):\n"
            "    return jax.jit(jnp.matmul, out_shardings=NamedSharding(mesh, P('y', 'x')))(A, B)\n",
        },
        "loses": {"test_matmul_sharding"},
        "says": ["P('y', 'x')", "not as requested"],
    },
    # The right layout, the wrong values: a product in bfloat16 "for speed", as on a TPU, cast back,
    # is rounded (exact only where the inputs are small whole numbers, as in the layout tests).
    "matmul_bfloat16": {
        "answers": {
            "matmul": "def sharded_matmul(A, B, mesh):\n"
            "    half = lambda A, B: (A.astype(jnp.bfloat16) @ B.astype(jnp.bfloat16)).astype(A.dtype)\n"
            "    return jax.jit(half, out_shardings=NamedSharding(mesh, P('x', 'y')))(A, B)\n",
        },
        "loses": {"test_matmul"},
        "says": ["bfloat16"],
    },
    # The pmap recipe under shard_map: the gradient comes out device_count() times too large,
    # on the tests' mesh of every CPU device (8), whatever the default devices are.
    "dp_grad_pmap_recipe": {
        "answers": {
            "dp": "def dp_grad(w, X, y, mesh):\n"
            "    axis = mesh.axis_names[0]\n"
            "    X = jax.device_put(X, NamedSharding(mesh, P(axis)))\n"
            "    y = jax.device_put(y, NamedSharding(mesh, P(axis)))\n"
            "    local = lambda w, X, y: jax.lax.pmean(jax.grad(loss)(w, X, y), axis)\n"
            "    return jax.shard_map(local, mesh=mesh, in_specs=(P(), P(axis), P(axis)), out_specs=P())(w, X, y)\n",
        },
        "loses": {"test_dp_grad", "test_dp_grad_structure"},
        "says": ["summed over the devices", "jax.lax.pmean"],
    },
    # The older parallel API: jax.pmap over the mesh's devices, pmean over pmap's own axis. The values are right,
    # so only the structure point (a collective over the mesh's axis, in jax.shard_map) is lost, named as pmap.
    "dp_grad_pmap": {
        "answers": {
            "dp": "def dp_grad(w, X, y, mesh):\n"
            "    n = mesh.devices.size\n"
            "    local = lambda w, X, y: jax.lax.pmean(jax.grad(loss)(w, X, y), 'batch')\n"
            "    grads = jax.pmap(local, axis_name='batch', in_axes=(None, 0, 0), devices=list(mesh.devices.flat))(\n"
            "        w, X.reshape(n, -1, X.shape[1]), y.reshape(n, -1)\n"
            "    )\n"
            "    return grads[0]\n",
        },
        "loses": {"test_dp_grad_structure"},
        "says": ["written with jax.pmap, the older interface", "jax.shard_map over the mesh"],
    },
    # Bypass: the single-device gradient, right values with no data parallelism.
    "dp_grad_single_device": {
        "answers": {"dp": "def dp_grad(w, X, y, mesh):\n    return jax.grad(loss)(w, X, y)\n"},
        "loses": {"test_dp_grad_structure"},
        "bypass": "a data-parallel gradient: shard_map with a collective over the mesh axis",
        "says": ["uses no collective at all", "jax.lax.pmean"],
    },
    # Correct, another way: w cast to varying first, so its gradient is each device's own, and
    # then the pmap recipe (pmean of the gradients) is right.
    "dp_grad_varying_w": {
        "answers": {
            "dp": "def dp_grad(w, X, y, mesh):\n"
            "    axis = mesh.axis_names[0]\n"
            "    X = jax.device_put(X, NamedSharding(mesh, P(axis)))\n"
            "    y = jax.device_put(y, NamedSharding(mesh, P(axis)))\n"
            "    def local(w, X, y):\n"
            "        w = jax.lax.pcast(w, axis, to='varying')\n"
            "        return jax.lax.pmean(jax.grad(loss)(w, X, y), axis)\n"
            "    return jax.shard_map(local, mesh=mesh, in_specs=(P(), P(axis), P(axis)), out_specs=P())(w, X, y)\n",
        },
        "loses": set(),
        "alternative": "w cast to varying (jax.lax.pcast), then the pmean of the local gradients",
    },
    # Sharded by jit alone: right values, but no explicit collective in the program.
    "dp_grad_jit_only": {
        "answers": {
            "dp": "def dp_grad(w, X, y, mesh):\n"
            "    X = jax.device_put(X, NamedSharding(mesh, P(mesh.axis_names[0])))\n"
            "    y = jax.device_put(y, NamedSharding(mesh, P(mesh.axis_names[0])))\n"
            "    w = jax.device_put(w, NamedSharding(mesh, P()))\n"
            "    return jax.jit(jax.grad(loss))(w, X, y)\n",
        },
        "loses": {"test_dp_grad_structure"},
        "says": ["uses no collective at all", "jax.lax.pmean"],
    },
    # The classic mistakes (issue #35): what each costs, and the words that name it.
    # pmap over the elements, not over one piece per device: its axis is not the device count.
    "pmap_over_elements": {
        "answers": {
            "pmap": "def center_piece(piece):\n"
            "    return piece - jax.lax.pmean(jnp.mean(piece), 'devices')\n\n\n"
            "def center_pmap(x):\n"
            "    return jax.pmap(center_piece, axis_name='devices')(x)\n",
        },
        "loses": {"test_pmap", "test_pmap_structure"},
        "says": ["jax.device_count()"],
    },
    # The devices' losses summed (psum) where their mean is the batch's loss: a gradient device_count() times too big.
    "dp_grad_psum_not_pmean": {
        "answers": {
            "dp": "def dp_grad(w, X, y, mesh):\n"
            "    axis = mesh.axis_names[0]\n"
            "    X = jax.device_put(X, NamedSharding(mesh, P(axis)))\n"
            "    y = jax.device_put(y, NamedSharding(mesh, P(axis)))\n"
            "    local = lambda w, X, y: jax.grad(lambda w: jax.lax.psum(loss(w, X, y), axis))(w)\n"
            "    return jax.shard_map(local, mesh=mesh, in_specs=(P(), P(axis), P(axis)), out_specs=P())(w, X, y)\n",
        },
        "loses": {"test_dp_grad", "test_dp_grad_structure"},
        "says": ["summed over the devices", "jax.lax.pmean"],
    },
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # x pmapped whole: pmap maps its leading axis over the devices, one element per device, so x must be split first.
    "pmap_x_not_split": {
        "answers": {
            "pmap": "def center_piece(piece):\n"
            "    return piece - jax.lax.pmean(jnp.mean(piece), 'devices')\n\n\n"
            "def center_pmap(x):\n"
            "    return jax.pmap(center_piece, axis_name='devices')(x)\n",
        },
        "loses": {"test_pmap", "test_pmap_structure"},
        "says": ["jax.device_count()", "reshape the data", "Reread:"],
    },
    # The visible mesh's axis name written in: the hidden mesh names its axis otherwise.
    "shard_map_axis_name_written_in": {
        "answers": {
            "shard_map": "def center_shard_map(x, mesh):\n"
            "    x = jax.device_put(x, NamedSharding(mesh, P('data')))\n"
            "    center = jax.shard_map(\n"
            "        lambda piece: piece - jax.lax.pmean(jnp.mean(piece), 'data'), mesh=mesh, in_specs=P('data'), out_specs=P('data')\n"
            "    )\n"
            "    return center(x)\n",
        },
        "loses": {"test_shard_map", "test_shard_map_structure"},
        "says": ["not found in mesh", "mesh.axis_names", "Reread:"],
    },
    # One in_spec too few: shard_map wants one spec per argument (w, X, y).
    "dp_grad_specs_for_two_arguments": {
        "answers": {
            "dp": "def dp_grad(w, X, y, mesh):\n"
            "    axis = mesh.axis_names[0]\n\n"
            "    def local(w, X, y):\n"
            "        return jax.grad(lambda w: jax.lax.pmean(loss(w, X, y), axis))(w)\n\n"
            "    return jax.shard_map(local, mesh=mesh, in_specs=(P(axis), P(axis)), out_specs=P())(w, X, y)\n",
        },
        "loses": {"test_dp_grad", "test_dp_grad_structure"},
        "says": ["in_specs=(P(), P(axis), P(axis))", "Reread:"],
    },
    # Double precision switched on for the whole notebook (in the first answer cell), with the reference answers:
    # every answer returns its problem's values, in float64 where x64 makes them so, and keeps its points.
    "x64_switched_on": {
        "answers": {
            "pmap": (
                "jax.config.update('jax_enable_x64', True)\n"
                "\n"
                "\n"
                "def center_piece(piece):\n"
                '    return piece - jax.lax.pmean(jnp.mean(piece), "devices")\n'
                "\n"
                "\n"
                "def center_pmap(x):\n"
                "    pieces = x.reshape(jax.device_count(), -1)\n"
                '    return jax.pmap(center_piece, axis_name="devices")(pieces).reshape(x.shape)\n'
            ),
        },
        "setting": "jax_enable_x64",
        "loses": set(),
        "alternative": "the reference answers with jax_enable_x64 switched on for the whole notebook",
    },
    # Every array made without a sharding put on one device (jax_default_device, in the first answer cell), with the
    # reference answers: each lays its result out on the mesh itself, and keeps its points.
    "default_device_set": {
        "answers": {
            "pmap": (
                "jax.config.update('jax_default_device', jax.devices()[1])\n"
                "\n"
                "\n"
                "def center_piece(piece):\n"
                '    return piece - jax.lax.pmean(jnp.mean(piece), "devices")\n'
                "\n"
                "\n"
                "def center_pmap(x):\n"
                "    pieces = x.reshape(jax.device_count(), -1)\n"
                '    return jax.pmap(center_piece, axis_name="devices")(pieces).reshape(x.shape)\n'
            ),
        },
        "setting": "jax_default_device",
        "loses": set(),
        "alternative": "the reference answers with jax_default_device set for the whole notebook",
    },
    # The same setting, and a product left to it: the result lands on that one device. The layout's problem alone is
    # lost, its message naming the setting.
    "default_device_plain_matmul": {
        "answers": {
            "matmul": "jax.config.update('jax_default_device', jax.devices()[1])\n\n\n"
            "def sharded_matmul(A, B, mesh):\n"
            "    return A @ B\n",
        },
        "setting": "jax_default_device",
        "loses": {"test_matmul_sharding"},
        "says": ["not as requested", "jax_default_device is set", "Try:", "Reread:"],
    },
}
