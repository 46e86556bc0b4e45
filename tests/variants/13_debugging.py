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
        "says": ["raised TracerBoolConversionError", "return the error"],
    },
    # Bypass: clamping the ids: every lookup succeeds, silently, and no error names the bad id.
    "lookup_clamps": {
        "answers": {
            "checked_lookup": "checked_lookup = checkify.checkify(lambda table, ids: lookup(table, jnp.clip(ids, 0, table.shape[0] - 1)),\n"
            "                                  errors=checkify.index_checks)\n",
        },
        "loses": {"test_checked_lookup"},
        "bypass": "checkify under jit: an error value that names the bad id",
        "says": ["should report the bad id 7", "clamped first"],
    },
    # checkify's index checks alone: a negative id is valid NumPy indexing, so it goes unreported.
    "lookup_index_checks_only": {
        "answers": {"checked_lookup": "checked_lookup = checkify.checkify(lookup, errors=checkify.index_checks)\n"},
        "loses": {"test_checked_lookup"},
        "says": ["should report the bad id -2", "your own checkify.check"],
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
        "says": ["of type BadId", "not checkify's Error"],
    },
    # The check written, but errors=checkify.index_checks: errors= replaces the default (user_checks) rather than
    # adding to it, so the check never runs and a negative id goes unreported.
    "lookup_user_check_dropped": {
        "answers": {
            "checked_lookup": "def lookup_with_checks(table, ids):\n"
            "    checkify.check(jnp.all(ids >= 0), 'negative id {i} in lookup', i=jnp.min(ids))\n"
            "    return lookup(table, ids)\n\n\n"
            "checked_lookup = checkify.checkify(lookup_with_checks, errors=checkify.index_checks)\n",
        },
        "loses": {"test_checked_lookup"},
        "says": ["never ran", "errors=", "checkify.user_checks"],
    },
    # Bypass: the bad id found on the host, in a callback that raises: under jit a bad id stops the program with an
    # exception, where checkify returns an error value.
    "lookup_raises_from_callback": {
        "answers": {
            "checked_lookup": "def checked_lookup(table, ids):\n"
            "    def complain(ids):\n"
            "        bad = ids[(ids < 0) | (ids >= table.shape[0])]\n"
            "        if bad.size:\n"
            "            raise IndexError(f'bad id {bad[0]}')\n\n"
            "    jax.debug.callback(complain, ids)\n"
            "    return checkify.checkify(lookup)(table, ids)\n",
        },
        "loses": {"test_checked_lookup"},
        "bypass": "checkify under jit: an error value that names the bad id",
        "says": ["raised JaxRuntimeError", "callback", "return the error"],
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
        "says": {
            "test_nan_source": ["never with jax_debug_nans on", "checkify's nan_checks"],
            "test_nan_flags": ["with jax_debug_nans True", "checkify's nan_checks"],
        },
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
        "says": {
            "test_nan_source": ["returned 'log', expected 'sqrt'", "not always the one that made the NaN"],
            "test_nan_flags": ["returned 'log', expected 'sqrt'", "catch FloatingPointError"],
        },
    },
    # Bypass: no jax_debug_nans: the program's equations evaluated one by one (into nested jits), each result searched
    # for NaNs: the right primitive, found without the flag. With the flag already on, the first NaN raises inside it.
    "nan_jaxpr_interpreter": {
        "answers": {
            "nan_source": "def nan_source(f, *args):\n"
            "    def first_nan(jaxpr, consts, values):\n"
            "        env = dict(zip(jaxpr.constvars, consts))\n"
            "        env.update(zip(jaxpr.invars, values))\n"
            "        read = lambda v: v.val if hasattr(v, 'val') else env[v]\n"
            "        for eqn in jaxpr.eqns:\n"
            "            ins = [read(v) for v in eqn.invars]\n"
            "            if 'jaxpr' in eqn.params:\n"
            "                found, outs = first_nan(eqn.params['jaxpr'].jaxpr, eqn.params['jaxpr'].consts, ins)\n"
            "                if found:\n"
            "                    return found, None\n"
            "            else:\n"
            "                outs = eqn.primitive.bind(*ins, **eqn.params)\n"
            "                outs = outs if eqn.primitive.multiple_results else [outs]\n"
            "                if any(np.isnan(np.asarray(out)).any() for out in outs):\n"
            "                    return eqn.primitive.name, None\n"
            "            env.update(zip(eqn.outvars, outs))\n"
            "        return None, [read(v) for v in jaxpr.outvars]\n\n"
            "    closed = jax.make_jaxpr(f)(*args)\n"
            "    return first_nan(closed.jaxpr, closed.consts, jax.tree.leaves(args))[0]\n",
        },
        "loses": {"test_nan_source", "test_nan_flags"},
        "bypass": "jax_debug_nans, not a NaN search of one's own",
        "says": {
            "test_nan_source": ["never with jax_debug_nans on"],
            "test_nan_flags": ["raised FloatingPointError", "catch FloatingPointError"],
        },
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
        "says": ["was False before", "True after it", "jax.debug_nans(True)"],
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
        "says": ["was True before", "False after it", "restores the previous value"],
    },
    # Bypass: the name the visible test's trace gives on this machine, typed in.
    "hottest_hardcoded": {
        "answers": {"hottest_op": "def hottest_op(f, *args):\n    return 'ynn_fusion.1'\n"},
        "loses": {"test_hottest_op"},
        "bypass": "the operation with the most time, read from a recorded trace",
        "says": ["on hidden inputs", "not the operation with the most time"],
    },
    # Bypass: no trace at all; the program's text, with the names the failure messages taught. Each kind of work is
    # the big one in one hidden program and a small one in another: no order of kinds fits them all.
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
        "says": ["not the operation with the most time", "program's text"],
    },
    # Bypass: the compiled program's text (HLO), its operation with the most data (output and operands) taken for the
    # slowest: right on every program with a single big kind of work. Each hidden program also sums an array larger than
    # any other, cheaply: sizes do not tell time.
    "hottest_largest_in_hlo": {
        "answers": {
            "hottest_op": "def hottest_op(f, *args):\n"
            "    text = jax.jit(f).lower(*args).compile().as_text()\n"
            "    sizes, data = {}, {}\n"
            "    for name, dims, kind, inputs in re.findall(r'%(\\S+) = \\w+\\[([\\d,]*)\\]\\S* ([\\w-]+)\\((.*?)\\)', text[text.index('\\nENTRY'):]):\n"
            "        sizes[name] = int(np.prod([int(d) for d in dims.split(',') if d]))\n"
            "        if kind not in ('parameter', 'constant', 'bitcast', 'copy'):\n"
            "            data[name] = sizes[name] + sum(sizes.get(i.strip().lstrip('%'), 0) for i in inputs.split(','))\n"
            "    return max(data, key=data.get)\n",
        },
        "loses": {"test_hottest_op"},
        "bypass": "the operation with the most time, read from a recorded trace, not estimated from the program's sizes",
        "says": ["not the operation with the most time", "sizes of its arrays"],
    },
    # Bypass: the answer read off the check's own failure message: ag.check_hottest_op asked about a wrong name
    # names the hottest operation. The check refuses to answer while it grades hottest_op.
    "hottest_from_the_checks_message": {
        "answers": {
            "hottest_op": "def hottest_op(f, *args):\n"
            "    try:\n"
            "        ag.check_hottest_op(lambda *_: '', f, *args)\n"
            "    except AssertionError as failure:\n"
            "        found = re.search(r\"the operation with the most time is '([^']+)'\", str(failure))\n"
            "        return found.group(1) if found else str(failure)\n"
            "    return ''\n",
        },
        "loses": {"test_hottest_op"},
        "bypass": "the operation with the most time, read from a trace one records, not from the check",
        "says": ["check's own reading of a trace", "jax.profiler.trace"],
    },
    # Bypass: jax.profiler.ProfileData replaced through another name for the module, so that every trace read back
    # holds one operation, `sort`, which hottest_op always names. The check reads with JAX's own, taken at import.
    "hottest_forged_profiler": {
        "answers": {
            "hottest_op": "profiler = jax.profiler\n\n\n"
            "class ForgedEvent:\n"
            "    name, duration_ns, stats = 'sort', 10**9, [('hlo_op', 'sort'), ('run_id', 0)]\n\n\n"
            "class ForgedData:\n"
            "    line = type('Line', (), {'name': 'forged', 'events': [ForgedEvent()]})\n"
            "    planes = [type('Plane', (), {'name': 'forged', 'lines': [line]})]\n\n"
            "    @staticmethod\n"
            "    def from_file(path):\n"
            "        return ForgedData()\n\n\n"
            "profiler.ProfileData = ForgedData\n\n\n"
            "def hottest_op(f, *args):\n"
            "    return 'sort'\n",
        },
        "loses": {"test_hottest_op"},
        "bypass": "the operation with the most time, read from a recorded trace",
        "says": ["replaced jax.profiler.ProfileData.from_file", "JAX's own functions"],
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
        "says": ["not an XLA operation of this program", "hlo_op stat"],
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
        "says": ["holds tracers", "runs once, while JAX traces"],
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
        "says": ["jax.pure_callback", "drops such a call"],
    },
    # Bypass: jit switched off (jax_disable_jit) by make_hook, so that run's scan becomes a Python loop and a plain
    # append sees values. The test runs run compiled.
    "hook_disable_jit": {
        "answers": {
            "hook": "def make_hook():\n"
            "    jax.config.update('jax_disable_jit', True)\n"
            "    log = []\n\n"
            "    def hook(i, x):\n"
            "        log.append(np.asarray(x))\n\n"
            "    return hook, log\n",
        },
        "loses": {"test_hook"},
        "bypass": "jax.debug.callback: a value from every step of a compiled loop",
        "says": ["jax_disable_jit is on", "runs run compiled"],
    },
    # Bypass: run redefined as a Python loop, so that a plain append sees values. The test runs its own copy of run.
    "hook_redefines_run": {
        "answers": {
            "hook": "def run(x0, steps, hook):\n"
            "    x = x0\n"
            "    for i in range(steps):\n"
            "        x = x - 0.3 * jnp.sin(x) / (1.0 + i)\n"
            "        hook(i, x)\n"
            "    return x\n\n\n"
            "def make_hook():\n"
            "    log = []\n\n"
            "    def hook(i, x):\n"
            "        log.append(np.asarray(x))\n\n"
            "    return hook, log\n",
        },
        "loses": {"test_hook"},
        "bypass": "jax.debug.callback: a value from every step of a compiled loop, not a Python loop of one's own",
        "says": ["redefines run", "its own copy"],
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
    # Correct, in yet other ways: positional arguments in checkify.check's message and user_checks | index_checks; a trace
    # started and stopped by hand in a folder of mkdtemp, read with a dict; the values sent out by an ordered io_callback.
    "alternatives_io_callback_start_stop": {
        "answers": {
            "checked_lookup": "def guarded_lookup(table, ids):\n"
            "    checkify.check(ids.min() >= 0, 'id {} is negative', ids.min())\n"
            "    return table[ids]\n\n\n"
            "checked_lookup = checkify.checkify(guarded_lookup, errors=checkify.user_checks | checkify.index_checks)\n",
            "hottest_op": "def hottest_op(f, *args):\n"
            "    compiled = jax.jit(f)\n"
            "    jax.block_until_ready(compiled(*args))\n"
            "    folder = tempfile.mkdtemp()\n"
            "    jax.profiler.start_trace(folder)\n"
            "    try:\n"
            "        for _ in range(5):\n"
            "            jax.block_until_ready(compiled(*args))\n"
            "    finally:\n"
            "        jax.profiler.stop_trace()\n"
            "    path = next(pathlib.Path(folder).glob('**/*.xplane.pb'))\n"
            "    totals = {}\n"
            "    for plane in jax.profiler.ProfileData.from_file(str(path)).planes:\n"
            "        for line in plane.lines:\n"
            "            for event in line.events:\n"
            "                stats = dict(event.stats)\n"
            "                if 'hlo_op' in stats:\n"
            "                    totals[stats['hlo_op']] = totals.get(stats['hlo_op'], 0) + event.duration_ns\n"
            "    return max(totals, key=totals.get)\n",
            "hook": "from jax.experimental import io_callback\n\n\n"
            "def make_hook():\n"
            "    log = []\n\n"
            "    def keep(x):\n"
            "        log.append(np.array(x))\n\n"
            "    def hook(i, x):\n"
            "        io_callback(keep, None, x, ordered=True)\n\n"
            "    return hook, log\n",
        },
        "loses": set(),
        "alternative": "positional message arguments and user_checks | index_checks; a trace started and stopped by hand; "
        "an ordered io_callback",
    },
    # Full float32 products asked for the whole notebook (in the first answer cell), as lecture 13 shows per block,
    # with the reference answers: a setting that costs nothing, since each problem's values are float32's anyway.
    "matmul_precision_highest": {
        "answers": {
            "checked_lookup": "jax.config.update('jax_default_matmul_precision', 'highest')\n\n\n"
            "def lookup_with_checks(table, ids):\n"
            "    checkify.check(jnp.all(ids >= 0), 'negative id {i} in lookup', i=jnp.min(ids))\n"
            "    return lookup(table, ids)\n\n\n"
            "checked_lookup = checkify.checkify(lookup_with_checks, errors=checkify.index_checks | checkify.user_checks)\n",
        },
        "setting": "jax_default_matmul_precision",
        "loses": set(),
        "alternative": "the reference answers with jax_default_matmul_precision set to 'highest' for the whole notebook",
    },
    # JAX's and Python's own errors inside an answer, explained as the mistake made at this problem (issue #69).
    # The checkify-ed function called inside checked_lookup, and the rows alone returned: the test unpacks two.
    "lookup_returns_rows_only": {
        "answers": {
            "checked_lookup": "def lookup_with_checks(table, ids):\n"
            "    checkify.check(jnp.all(ids >= 0), 'negative id {i} in lookup', i=jnp.min(ids))\n"
            "    return lookup(table, ids)\n\n\n"
            "def checked_lookup(table, ids):\n"
            "    error, rows = checkify.checkify(lookup_with_checks, errors=checkify.index_checks | checkify.user_checks)(table, ids)\n"
            "    return rows\n",
        },
        "loses": {"test_checked_lookup"},
        "says": ["error, rows = jax.jit(checked_lookup)(table, ids)", "return the pair itself", "Reread:"],
    },
    # error.throw() inside the function the test jits: a check staged without checkify around it.
    "lookup_throws_under_jit": {
        "answers": {
            "checked_lookup": "def lookup_with_checks(table, ids):\n"
            "    checkify.check(jnp.all(ids >= 0), 'negative id {i} in lookup', i=jnp.min(ids))\n"
            "    return lookup(table, ids)\n\n\n"
            "def checked_lookup(table, ids):\n"
            "    error, rows = checkify.checkify(lookup_with_checks, errors=checkify.index_checks | checkify.user_checks)(table, ids)\n"
            "    error.throw()\n"
            "    return error, rows\n",
        },
        "loses": {"test_checked_lookup"},
        "says": ["not functionalized", "return the error, do not raise it", "Reread:"],
    },
    # jax_debug_nans turned on, its FloatingPointError never caught: it escapes nan_source.
    "nan_error_not_caught": {
        "answers": {
            "nan_source": "def nan_source(f, *args):\n"
            "    with jax.debug_nans(True):\n"
            "        jax.block_until_ready(f(*args))\n"
            "    return None\n",
        },
        "loses": {"test_nan_source", "test_nan_flags"},
        "says": {
            "test_nan_source": ["lets the FloatingPointError escape", "except FloatingPointError as error", "Reread:"],
            "test_nan_flags": ["FloatingPointError", "catch FloatingPointError", "Reread:"],
        },
    },
    # make_hook returns the hook alone, where the test unpacks the hook and its log.
    "hook_returns_hook_only": {
        "answers": {
            "hook": "def make_hook():\n"
            "    log = []\n\n"
            "    def hook(i, x):\n"
            "        jax.debug.callback(lambda x: log.append(np.asarray(x)), x, ordered=True)\n\n"
            "    return hook\n",
        },
        "loses": {"test_hook"},
        "says": ["hook, log = make_hook()", "return hook, log", "Reread:"],
    },
}
