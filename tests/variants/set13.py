"""Wrong answers to set 13_debugging (see tests/variants/__init__.py)."""

VARIANTS = {
    # Bypass: a Python if on the id: fine on a concrete number, a TracerBoolConversionError under jit.
    "lookup_python_if": {
        "answers": {
            "checked_lookup": "def checked_lookup(table, ids):\n"
            "    if jnp.any(ids < 0) or jnp.any(ids >= table.shape[0]):\n"
            "        raise IndexError(f'bad id in {ids}')\n"
            "    return checkify.checkify(lookup)(table, ids)\n",
        },
        "loses": {"test_checked_lookup"},
        "bypass": "checkify under jit: an error value that names the bad id",
    },
    # Bypass: clamping the ids: every lookup succeeds, silently, and no error names the bad id.
    "lookup_clamps": {
        "answers": {
            "checked_lookup": "checked_lookup = checkify.checkify(lambda table, ids: lookup(table, jnp.clip(ids, 0, table.shape[0] - 1)),\n"
            "                                  errors=checkify.index_checks)\n",
        },
        "loses": {"test_checked_lookup"},
        "bypass": "checkify under jit: an error value that names the bad id",
    },
    # checkify's index checks alone: a negative id is valid NumPy indexing, so it goes unreported.
    "lookup_index_checks_only": {
        "answers": {"checked_lookup": "checked_lookup = checkify.checkify(lookup, errors=checkify.index_checks)\n"},
        "loses": {"test_checked_lookup"},
    },
    # Bypass: no checkify; a pytree of its own with a get() method, built from jnp under jit.
    "lookup_own_error_class": {
        "answers": {
            "checked_lookup": "@jax.tree_util.register_pytree_node_class\n"
            "class BadId:\n"
            "    def __init__(self, found, bad):\n"
            "        self.found, self.bad = found, bad\n\n"
            "    def get(self):\n"
            "        return f'bad id {int(self.bad)}' if bool(self.found) else None\n\n"
            "    def tree_flatten(self):\n"
            "        return (self.found, self.bad), None\n\n"
            "    @classmethod\n"
            "    def tree_unflatten(cls, aux, children):\n"
            "        return cls(*children)\n\n\n"
            "def checked_lookup(table, ids):\n"
            "    wrong = (ids < 0) | (ids >= table.shape[0])\n"
            "    return BadId(jnp.any(wrong), ids[jnp.argmax(wrong)]), lookup(table, ids)\n",
        },
        "loses": {"test_checked_lookup"},
        "bypass": "checkify's checks and its Error, not an error object of one's own",
    },
    # Bypass: checkify's NaN checks name the same primitive, with jax_debug_nans never on; with the flag
    # already on when it is called, checkify fails inside JAX.
    "nan_checkify": {
        "answers": {
            "nan_source": "def nan_source(f, *args):\n"
            "    error, _ = checkify.checkify(f, errors=checkify.nan_checks)(*args)\n"
            "    message = error.get()\n"
            "    if message is None:\n"
            "        return None\n"
            "    found = re.search(r'primitive: (\\w+)', message)\n"
            "    return found.group(1) if found else message\n",
        },
        "loses": {"test_nan_source", "test_nan_flags"},
        "bypass": "jax_debug_nans, not checkify's nan_checks",
    },
    # Bypass: guessing from the program instead of running it: the first operation that could make a NaN.
    # It runs f with the flag as it finds it, so with the flag on it raises instead of answering.
    "nan_first_risky_primitive": {
        "answers": {
            "nan_source": "def nan_source(f, *args):\n"
            "    if not np.isnan(np.asarray(f(*args))).any():\n"
            "        return None\n"
            "    risky = ('log', 'log1p', 'sqrt', 'div', 'acos', 'asin', 'pow')\n"
            "    eqns = jax.make_jaxpr(f)(*args).jaxpr.eqns\n"
            "    while eqns and eqns[0].primitive.name not in risky and 'jaxpr' not in eqns[0].params:\n"
            "        eqns = eqns[1:]\n"
            "    if eqns and 'jaxpr' in eqns[0].params:\n"
            "        eqns = eqns[0].params['jaxpr'].jaxpr.eqns + eqns[1:]\n"
            "    names = [e.primitive.name for e in eqns if e.primitive.name in risky]\n"
            "    return names[0] if names else None\n",
        },
        "loses": {"test_nan_source", "test_nan_flags"},
        "bypass": "the primitive that made the first NaN, found by running with jax_debug_nans",
    },
    # Turns the flag on and leaves it on.
    "nan_flag_left_on": {
        "answers": {
            "nan_source": "def nan_source(f, *args):\n"
            "    jax.config.update('jax_debug_nans', True)\n"
            "    try:\n"
            "        jax.block_until_ready(f(*args))\n"
            "    except FloatingPointError as error:\n"
            "        return re.search(r'encountered in (\\w+)', str(error)).group(1)\n"
            "    return None\n",
        },
        "loses": {"test_nan_flags"},
    },
    # Bypass: turns it off afterwards, assuming it was off: a caller who had it on loses it.
    "nan_flag_forced_off": {
        "answers": {
            "nan_source": "def nan_source(f, *args):\n"
            "    jax.config.update('jax_debug_nans', True)\n"
            "    try:\n"
            "        jax.block_until_ready(f(*args))\n"
            "    except FloatingPointError as error:\n"
            "        return re.search(r'encountered in (\\w+)', str(error)).group(1)\n"
            "    finally:\n"
            "        jax.config.update('jax_debug_nans', False)\n"
            "    return None\n",
        },
        "loses": {"test_nan_flags"},
        "bypass": "the flag as the caller left it, on or off",
    },
    # Bypass: the name the visible test's trace gives on this machine, typed in.
    "hottest_hardcoded": {
        "answers": {"hottest_op": "def hottest_op(f, *args):\n    return 'ynn_fusion.1'\n"},
        "loses": {"test_hottest_op"},
        "bypass": "the operation with the most time, read from a recorded trace",
    },
    # Bypass: no trace at all; the program's text, with the names the failure messages taught. Both hidden
    # programs hold the same two kinds of work, each the big one in one of them: one answer fits only one.
    "hottest_from_the_jaxpr": {
        "answers": {
            "hottest_op": "def hottest_op(f, *args):\n"
            "    text = str(jax.make_jaxpr(f)(*args))\n"
            "    for primitive, op in (('sort', 'sort'), ('conv_general_dilated', 'convolution'), ('dot_general', 'ynn_fusion')):\n"
            "        if primitive in text:\n"
            "            return op\n"
            "    return 'ynn_fusion'\n",
        },
        "loses": {"test_hottest_op"},
        "bypass": "the operation with the most time, read from a recorded trace, not guessed from the program's text",
    },
    # Reads only the line of the Python thread that called f: the device's operations run on other lines (threads),
    # so it names a host event in every run, whatever the timing.
    "hottest_python_thread": {
        "answers": {
            "hottest_op": "def hottest_op(f, *args):\n"
            "    jitted = jax.jit(f)\n"
            "    jax.block_until_ready(jitted(*args))\n"
            "    with tempfile.TemporaryDirectory() as folder:\n"
            "        with jax.profiler.trace(folder):\n"
            "            for _ in range(3):\n"
            "                jax.block_until_ready(jitted(*args))\n"
            "        (path,) = pathlib.Path(folder).rglob('*.xplane.pb')\n"
            "        data = jax.profiler.ProfileData.from_file(str(path))\n"
            "        totals = Counter()\n"
            "        for plane in data.planes:\n"
            "            for line in plane.lines:\n"
            "                if line.name != 'python':\n"
            "                    continue\n"
            "                for event in line.events:\n"
            "                    totals[event.name] += event.duration_ns\n"
            "    return totals.most_common(1)[0][0]\n",
        },
        "loses": {"test_hottest_op"},
    },
    # Bypass: a Python side effect: it runs once, while JAX traces, and logs a tracer.
    "hook_python_append": {
        "answers": {
            "hook": "def make_hook():\n"
            "    log = []\n\n"
            "    def hook(i, x):\n"
            "        log.append(x)\n\n"
            "    return hook, log\n",
        },
        "loses": {"test_hook"},
        "bypass": "jax.debug.callback: a value from every step of a compiled loop",
    },
    # pure_callback's result is unused, so the compiler drops the call: nothing is logged.
    "hook_pure_callback": {
        "answers": {
            "hook": "def make_hook():\n"
            "    log = []\n\n"
            "    def record(x):\n"
            "        log.append(np.asarray(x))\n"
            "        return np.asarray(x)\n\n"
            "    def hook(i, x):\n"
            "        jax.pure_callback(record, jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n\n"
            "    return hook, log\n",
        },
        "loses": {"test_hook"},
    },
    # Correct, written another way: jit around checkify; the flag saved and restored by hand; the JSON
    # trace (create_perfetto_trace) read instead of the XSpace; an unordered callback that files each value by its step.
    "alternatives_by_hand": {
        "answers": {
            "checked_lookup": "def lookup_with_checks(table, ids):\n"
            "    checkify.check(~jnp.any(ids < 0), 'lookup got the negative id {bad}', bad=jnp.min(ids))\n"
            "    return table[ids]\n\n\n"
            "checked_lookup = jax.jit(checkify.checkify(lookup_with_checks, errors=checkify.all_checks))\n",
            "nan_source": "def nan_source(f, *args):\n"
            "    before = jax.config.jax_debug_nans\n"
            "    jax.config.update('jax_debug_nans', True)\n"
            "    try:\n"
            "        f(*args).block_until_ready()\n"
            "        return None\n"
            "    except FloatingPointError as error:\n"
            "        return str(error).split()[-1]\n"
            "    finally:\n"
            "        jax.config.update('jax_debug_nans', before)\n",
            "hottest_op": "import gzip\nimport json\n\n\n"
            "def hottest_op(f, *args):\n"
            "    jitted = jax.jit(f)\n"
            "    jitted(*args).block_until_ready()\n"
            "    with tempfile.TemporaryDirectory() as folder:\n"
            "        jax.profiler.start_trace(folder, create_perfetto_trace=True)\n"
            "        for _ in range(4):\n"
            "            jitted(*args).block_until_ready()\n"
            "        jax.profiler.stop_trace()\n"
            "        (path,) = pathlib.Path(folder).rglob('perfetto_trace.json.gz')\n"
            "        events = json.loads(gzip.decompress(path.read_bytes()))['traceEvents']\n"
            "    totals = {}\n"
            "    for event in events:\n"
            "        op = (event.get('args') or {}).get('hlo_op')\n"
            "        if op and 'dur' in event:\n"
            "            totals[op] = totals.get(op, 0.0) + event['dur']\n"
            "    return max(totals, key=totals.get)\n",
            "hook": "def make_hook():\n"
            "    log, by_step = [], {}\n\n"
            "    def keep(i, x):\n"
            "        by_step[int(i)] = np.array(x)\n"
            "        log[:] = [by_step[k] for k in sorted(by_step)]\n\n"
            "    def hook(i, x):\n"
            "        jax.debug.callback(keep, i, x)\n\n"
            "    return hook, log\n",
        },
        "loses": set(),
        "alternative": "jit around checkify and all_checks; the flag restored by hand; the Perfetto JSON trace; "
        "an unordered callback filed by step",
    },
}
