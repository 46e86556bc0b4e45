"""The classic JAX mistakes, in one place: what each means, what to try, and where the lectures teach it.

`_diagnose` finds them in JAX's errors and in the values a check compares; the failures in the notebook, the
checks and the site's page of mistakes (`docs/guide/mistakes.md`) all read this catalogue.
"""

from __future__ import annotations

from ._mistake import Mistake
from ._program_mistakes import PROGRAM
from ._python_mistakes import ANY_ERROR, PYTHON, TEST_ASSERTION

__all__ = ["ANY_ERROR", "EVERY_MISTAKE", "FROM_JAX", "MISTAKES", "PYTHON", "SYMPTOMS", "TEST_ASSERTION", "Mistake"]

_TRACED = "depends on the value of an argument, which JAX does not know while it traces"
_CORE = (
    Mistake(
        "An in-place update of an array",
        "the code assigns into a JAX array in place (x[i] = v), and JAX arrays are immutable.",
        "write x = x.at[i].set(v) (or .add, .multiply, ...), which returns the updated copy.",
        {"02": "Arrays are immutable", "04": "In-place updates under jit"},
        "TypeError: JAX arrays are immutable and do not support in-place item assignment",
        says=r"immutable and do not support in-place",
    ),
    Mistake(
        "A check in a pytree's __init__ on a traced value",
        "a check in a pytree class's __init__ (an if on its values) runs when JAX rebuilds the object around "
        "tracers, under jit, vmap or grad, where the values it tests are not known.",
        "keep __init__ free of checks on values (check in a separate function or a classmethod), or rebuild the "
        "object without __init__: tree_unflatten making it with object.__new__(cls).",
        {"10": "unflatten receives placeholders"},
        "TracerBoolConversionError: ... was created on line ... (Probabilities.__init__)",
        says=r"Attempted boolean conversion[\s\S]*\.__init__\)",
    ),
    Mistake(
        "A Python if or while on a traced value",
        f"a Python if, while, and/or or bool() meets a value that {_TRACED}.",
        "branch with jnp.where or jax.lax.cond/switch, loop with jax.lax.while_loop, fori_loop or scan; a setting "
        "that takes few values, not data, can instead be static (static_argnames=..., or a pytree's static field).",
        {
            "03": "What a function sees under jit",
            "04": "Control flow with lax",
            "10": "Static and data fields",
            "12": "Choosing a branch",
        },
        "TracerBoolConversionError: Attempted boolean conversion of traced array",
        errors=("TracerBoolConversionError",),
    ),
    Mistake(
        "NumPy on a traced value",
        f"a NumPy function (or np.asarray) meets a value that {_TRACED}: NumPy needs concrete numbers.",
        "use the jnp twin of the NumPy function (jnp.sin for np.sin), and keep np for constants.",
        {"01": "jax.numpy and NumPy", "03": "What a function sees under jit", "04": "What cannot be traced"},
        "TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called on traced array",
        errors=("TracerArrayConversionError",),
    ),
    Mistake(
        "An argument used as a shape, not marked static",
        f"an argument is used as a shape or a size (jnp.zeros(n), x.reshape(n, -1)), but its value {_TRACED}.",
        "mark that argument static (jax.jit(f, static_argnums=...) or static_argnames=...), or take the size "
        "from an array's .shape.",
        {"04": "Static arguments", "12": "Unrolling and compile time"},
        "TypeError: Shapes must be 1D sequences of concrete values of integer type",
        says=r"Shapes must be 1D sequences of concrete values|argument 'stop'|argument 'num'",
    ),
    Mistake(
        "A shape that depends on the data",
        f"the size of a result {_TRACED}: boolean masks (x[x > 0]), jnp.nonzero or a slice with traced bounds.",
        "keep the shape fixed: jnp.where(mask, x, fill) instead of x[mask], the size= argument of jnp.nonzero, "
        "or jax.lax.dynamic_slice with a fixed size.",
        {"03": "What a function sees under jit", "04": "What cannot be traced", "12": "Four loops"},
        "NonConcreteBooleanIndexError: Array boolean indices must be concrete",
        errors=("NonConcreteBooleanIndexError",),
        says=r"must be statically specified|slice indices must have static|boolean indices must be concrete",
    ),
    Mistake(
        "A traced value turned into a Python number",
        f"int(), float(), range() or a Python list's index meets a value that {_TRACED}.",
        "keep it an array: index with jnp, convert with x.astype(...), loop with jax.lax.fori_loop, while_loop or "
        "scan; a count or a size known before the call can instead be marked static (static_argnames=...).",
        {"03": "What a function sees under jit", "04": "What cannot be traced", "12": "Four loops"},
        "ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected",
        errors=("ConcretizationTypeError", "TracerIntegerConversionError"),
    ),
    Mistake(
        "A tracer leaked out of a transformation",
        "a value traced inside jit, grad or vmap was stored outside it (a global, a list, self.attribute), or "
        "reached where the transformation cannot see it (a function closing over it, handed to a custom rule), "
        "and was used after the transformation ended.",
        "return every value the caller needs instead of storing it: a jitted function must be pure; a function "
        "that closes over traced values is passed to a custom rule through jax.closure_convert(f, x).",
        {
            "03": "Pure functions and side effects",
            "10": "Pytrees through transformations",
            "11": "A rule that takes a function: closure_convert",
            "13": "Catching a leaked tracer: jax.checking_leaks",
        },
        "UnexpectedTracerError: Encountered an unexpected tracer",
        errors=("UnexpectedTracerError",),
        says=r"Leaked trace|Encountered an unexpected tracer",
    ),
    Mistake(
        "vmap's axes do not match the arguments",
        "vmap maps arguments whose axes have different lengths, or an axis they do not have: in_axes names "
        "the wrong axis for an argument (or maps one that should be None).",
        "give in_axes one entry per argument: the axis that holds the batch, None for an argument shared by all.",
        {"05": "in_axes and out_axes", "07": "Random numbers under jit and vmap", "12": "Branches under vmap"},
        "ValueError: vmap got inconsistent sizes for array axes to be mapped",
        says=r"vmap got inconsistent sizes|vmap was requested to map its argument along axis|vmap in_axes",
    ),
    Mistake(
        "The gradient of a function that returns more than the loss",
        "the function handed to jax.grad returns a tuple (the loss and something besides), and grad "
        "differentiates one number.",
        "return the loss alone; to keep something besides it, say so with jax.grad(f, has_aux=True) (or "
        "jax.value_and_grad(f, has_aux=True)), which returns it beside the gradients.",
        {"06": "value_and_grad and has_aux"},
        "TypeError: Gradient only defined for scalar-output functions. Output was (Array(...), Array(...)).",
        says=r"Gradient only defined for scalar-output functions\. Output was \(",
    ),
    Mistake(
        "The gradient of a function whose output is not a scalar",
        "jax.grad differentiates a function that returns an array, not one number.",
        "return a scalar loss (a sum or a mean), or use jax.jacobian/jax.vjp for a vector output.",
        {"06": "grad as a function transformation", "11": "Safe rules with custom_jvp"},
        "TypeError: Gradient only defined for scalar-output functions",
        says=r"Gradient only defined for scalar-output functions",
    ),
    Mistake(
        "The gradient with respect to an integer",
        "jax.grad differentiates with respect to an integer argument (or the wrong argument).",
        "pass floats (1.0, not 1), and choose the argument with argnums=.",
        {"06": "grad as a function transformation"},
        "TypeError: grad requires real- or complex-valued inputs",
        says=r"grad requires real- or complex-valued inputs",
    ),
    Mistake(
        "argnums counted from 1",
        "argnums names an argument the function does not have: argnums counts the arguments from 0.",
        "write argnums=0 for the first argument, argnums=(0, 1) for the first two.",
        {"06": "grad as a function transformation"},
        "TypeError: differentiating with respect to argnums=(1, 2) requires at least 3 positional arguments",
        says=r"differentiating with respect to argnums=",
    ),
    Mistake(
        "A PRNG key used twice",
        "the same PRNG key is consumed twice: two draws from one key are identical or correlated.",
        "split the key (jax.random.split(key, n)) and give every draw its own subkey; never reuse a parent key.",
        {"07": "Key reuse is a bug"},
        "KeyReuseError: Previously-consumed key passed to jit-compiled function",
        errors=("KeyReuseError",),
    ),
    Mistake(
        "pmap over an axis that does not match the devices",
        "pmap maps over a leading axis whose length is not the number of devices (jax.device_count()).",
        "reshape the data to (jax.device_count(), per_device, ...) before pmap, or shard it with "
        "NamedSharding and use jit or shard_map.",
        {"08": "pmap, the old interface", "09": "Training across devices"},
        "ValueError: ... implies that array axis 0 is partitioned N times, but the dimension size is M",
        says=r"cannot select an axis to squeeze out|requires \d+ (logical )?devices|is partitioned \d+ times",
    ),
    Mistake(
        "A shard_map result that varies across devices, declared replicated",
        "the function given to shard_map returns a value that still differs from device to device along a mesh "
        "axis (each device's share, such as a partial sum), where its out_specs say every device of that axis "
        "holds the same value (the axis is not named in out_specs).",
        "add the shares before returning: jax.lax.psum(value, axis) over the axis the message names (pmean for "
        "their mean); if each device holds a different piece of the result instead, name that axis in out_specs.",
        {"08": "shard_map", "16": "Tensor parallel"},
        "ValueError: shard_map applied to the function 'f' was given out_specs which require replication which "
        "can't be statically inferred given the mesh",
        says=r"out_specs which require replication|could not infer replication",
    ),
    Mistake(
        "A mesh axis name the mesh does not have",
        "a PartitionSpec, shard_map's specs or a collective (psum, all_gather) names an axis that is not one of "
        "the mesh's axis names.",
        "take the names from the mesh you are given (mesh.axis_names) rather than typing ones you expect.",
        {"08": "Meshes and shardings", "16": "A 2-D mesh"},
        "ValueError: Resource axis: batch of P('batch',) is not found in mesh: ('data', 'model').",
        says=r"is not found in mesh|unbound axis name|must refer to an axis marked as manual",
    ),
    Mistake(
        "Shapes that do not fit together",
        "two arrays meet whose shapes do not fit: they do not broadcast, or a matrix product's inner dimensions "
        "differ, or a reshape changes the number of elements.",
        "print the shapes (x.shape) of both operands; add an axis with x[:, None] to broadcast, transpose with "
        "x.T for a product, and check which axis you reduce over.",
        {
            "01": "Broadcasting instead of Python loops",
            "05": "Manual batching and vmap",
            "13": "Reading a traceback: JAX_TRACEBACK_FILTERING",
        },
        "TypeError: add got incompatible shapes for broadcasting: (3,), (4,).",
        says=r"incompatible shapes for broadcasting|contracting dimensions to have the same shape|cannot reshape array",
    ),
    Mistake(
        "Branches of different shapes",
        "the branches of lax.cond or lax.switch (or of jnp.where) return different shapes or dtypes.",
        "make every branch return the same shapes and dtypes, padding or casting where needed.",
        {"04": "Control flow with lax", "12": "Choosing a branch"},
        "TypeError: cond branches must have equal output types",
        says=r"branches must have equal output types|must have identical types",
    ),
)
_CORE_LATER = (
    Mistake(
        "Arithmetic on a container of arrays",
        "an operator meets a dict, list or tuple where it needs an array: code that walks a pytree by hand "
        "stopped a level short of its leaves.",
        "apply the operation to every leaf with jax.tree.map(lambda p, g: ..., params, grads), at any depth.",
        {"02": "Functional state updates", "10": "Mapping over trees"},
        "TypeError: unsupported operand type(s) for *: 'float' and 'dict'",
        says=r"unsupported operand type\(s\) for .*'(dict|list|tuple)'",
    ),
    Mistake(
        "A result with two axes swapped",
        "the result is the transpose of the expected one: two axes are swapped, by vmap's in_axes or out_axes, "
        "or by the order of the operands.",
        "check which axis of each argument vmap maps (in_axes) and where it puts the batch in the result "
        "(out_axes); with broadcasting, which operand gets the new axis.",
        {"01": "Broadcasting instead of Python loops", "05": "in_axes and out_axes"},
        "has shape (3, 2), expected (2, 3); or the values of the transpose",
        symptom="transposed",
    ),
    Mistake(
        "An out-of-bounds index, clamped",
        "where the fill value was expected, the result holds elements of the array: JAX clamps an index past "
        "the end to the last element instead of raising, and a negative index counts from the end.",
        "compute which indices are valid (0 <= i < len(x)) and choose with jnp.where(valid, x[i], fill).",
        {"01": "Out-of-bounds indexing", "02": "Indexed updates with at"},
        "differs where a fill value is expected, with values taken from the array",
        symptom="clamped",
    ),
    Mistake(
        "A value summed over the devices instead of averaged",
        "it is summed over the devices where their mean is needed: a psum, or a sum of per-device results.",
        "average across devices with jax.lax.pmean (or divide by jax.device_count()).",
        {"08": "Data-parallel training", "09": "Training across devices"},
        "exactly jax.device_count() times the expected values",
        symptom="devices",
    ),
    Mistake(
        "A sum where a mean is needed, or the reverse",
        "it is a sum over a batch where the mean is needed, or the mean where the sum is.",
        "check whether the exercise asks for the mean or the sum over the batch: jnp.mean divides by its size.",
        {"05": "Manual batching and vmap", "06": "Per-example gradients"},
        "exactly a whole number of times the expected values, or that fraction of them",
        symptom="batch",
    ),
    Mistake(
        "jax_numpy_rank_promotion set to raise",
        "the notebook set jax_numpy_rank_promotion to 'raise' (a global setting), so JAX refuses to broadcast arrays "
        "of different ranks, which the course's answers and tests do.",
        "delete the jax.config.update('jax_numpy_rank_promotion', 'raise') cell and restart the kernel, or make "
        "the ranks equal yourself: x[:, None], jnp.expand_dims.",
        {"01": "Broadcasting instead of Python loops"},
        "ValueError: Operands could not be broadcast together ... with the config option jax_numpy_rank_promotion",
        says=r"jax_numpy_rank_promotion='raise'",
    ),
    Mistake(
        "jax_debug_nans left on",
        "jax_debug_nans is on (a global debugging setting), so JAX stops at the first operation that makes a NaN.",
        "if the NaN is a real bug, the traceback above shows where it starts; once found, switch the setting off "
        "(jax.config.update('jax_debug_nans', False)) so the notebook runs as it will be graded.",
        {"13": "Finding a NaN: jax_debug_nans"},
        "FloatingPointError: invalid value (nan) encountered in log",
        says=r"invalid value \(nan\) encountered in",
    ),
    Mistake(
        "jax_default_matmul_precision set to a precision this backend lacks",
        "jax_default_matmul_precision (a global setting: jax.config.update in a cell, or a `with "
        "jax.default_matmul_precision(...)` block) asks every matrix product for a precision this backend cannot "
        "compute.",
        "set it back with jax.config.update('jax_default_matmul_precision', None); where one product needs full "
        "float32, ask that product alone: jnp.matmul(a, b, precision='highest').",
        {"13": "Precision: bfloat16, TF32 and the grader's tolerances"},
        "ValueError: The precision 'ANY_F8_ANY_F8_F32' is not supported by dot_general on CPU",
        says=r"The precision '[^']*' is not supported by dot_general",
    ),
    Mistake(
        "jax_default_matmul_precision lowered for the whole notebook",
        "jax_default_matmul_precision is set to a reduced precision (a global setting: jax.config.update in a cell, "
        "or a `with jax.default_matmul_precision(...)` block): on a GPU or TPU every matrix product then rounds its "
        "inputs (to bfloat16 or TF32), and its values move beyond float32's tolerance.",
        "set it back with jax.config.update('jax_default_matmul_precision', None) (or 'float32'), and restart "
        "the kernel to check that the values match without it.",
        {"13": "Precision: bfloat16, TF32 and the grader's tolerances"},
        "values that differ by about 1e-2 of their size, with jax_default_matmul_precision set to 'bfloat16'",
        symptom="matmul_precision",
    ),
    Mistake(
        "jax_default_device set for the whole notebook",
        "jax_default_device is set (a global setting: jax.config.update in a cell, or a `with "
        "jax.default_device(...)` block): JAX puts every array made without a sharding, and the work on it, on "
        "that one device.",
        "set it back with jax.config.update('jax_default_device', None), and lay arrays out across the devices "
        "yourself: jax.device_put(x, NamedSharding(mesh, P(...))), or jit with out_shardings.",
        {"08": "Devices"},
        "an array on one device, with jax_default_device set",
        symptom="default_device",
    ),
    Mistake(
        "A name JAX has removed",
        "the code uses an older name JAX 0.12 no longer has: jax.tree_map and its relatives (jax.tree_leaves, "
        "jax.tree_flatten, ...), jax.xla_computation, or jax.experimental.maps' xmap.",
        "use what the lectures teach instead: the jax.tree module (jax.tree.map, jax.tree.leaves, jax.tree.flatten), "
        "jax.jit(f).lower(x) to see a program, jax.shard_map over a mesh for xmap.",
        {"02": "Functional state updates", "10": "Mapping over trees"},
        "AttributeError: module 'jax' has no attribute 'tree_map'",
        says=r"module 'jax' has no attribute '(tree_\w+|xla_computation)'|No module named 'jax\.experimental\.maps'",
    ),
    Mistake(
        "float64 with jax_enable_x64 on",
        "it is a 64-bit jax.Array because jax_enable_x64 is on (jax.config.update('jax_enable_x64', True) in a cell, "
        "or a `with jax.enable_x64(True)` block): with it, a Python float, jnp.arange or a float64 input makes 64-bit "
        "arrays, and this problem asks for JAX's 32-bit default.",
        "leave jax_enable_x64 off (delete the cell that turns it on and restart the kernel), or give the dtype "
        "yourself: x.astype(jnp.float32), jnp.asarray(value, dtype=x.dtype), "
        "jax.random.normal(key, shape, jnp.float32).",
        {"01": "Dtypes and the float32 default"},
        "has dtype float64, expected float32 (a jax.Array)",
        symptom="x64",
    ),
    Mistake(
        "NumPy doing the work",
        "it is a NumPy float64 array: NumPy computed it, not JAX, which computes in float32 by default.",
        "use jnp where you wrote np, so the result is a float32 jax.Array.",
        {"01": "jax.numpy and NumPy"},
        "has dtype float64, expected float32 (a NumPy array)",
        symptom="numpy",
    ),
)

# Any other error raised inside JAX: no classic mistake, but what to do next is the same.
FROM_JAX = Mistake(
    "Any other error from JAX",
    "JAX refused an operation on the line above; its message says which and why.",
    "print the shapes and dtypes of that operation's inputs (x.shape, x.dtype), and run the function with "
    "jax.disable_jit() to see concrete values.",
    {"03": "What a function sees under jit", "13": "Running without jit: jax_disable_jit"},
    "an error whose traceback ends inside jax/",
)
# In the catalogue's order: where two mistakes' words could both match, the first listed names it.
MISTAKES = (*_CORE, *PROGRAM, *_CORE_LATER, FROM_JAX)
EVERY_MISTAKE = (*MISTAKES, *PYTHON, TEST_ASSERTION, ANY_ERROR)
SYMPTOMS = {mistake.symptom: mistake for mistake in MISTAKES if mistake.symptom}
