"""The classic JAX mistakes, in one place: what each means, what to try, and where the lectures teach it.

`_diagnose` finds them in JAX's errors and in the values a check compares; the failures in the notebook, the
checks and the site's page of mistakes (`docs/guide/mistakes.md`) all read this catalogue.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ._errors import lecture_link


@dataclass(frozen=True)
class Mistake:
    """One classic mistake: the `cause` as a student would recognise it, `hint` (the "Try:" line), and the
    sections of the lectures that teach it (`taught`, lecture number -> heading)."""

    title: str
    cause: str
    hint: str
    taught: dict[str, str]
    shows: str  # what the student sees: JAX's error, or the symptom a check finds
    errors: tuple[str, ...] = ()  # names of JAX's exception classes (any class in the error's MRO)
    says: str = ""  # a regular expression on the error's text, where the class alone does not tell
    symptom: str = field(default="", compare=False)  # the name `_symptoms` raises it by, for a value that shows it

    def section(self, current: str | None = None) -> str:
        """The section to reread from set `current`: its own lecture's, else the latest earlier one's."""
        if not self.taught:  # one of Python's errors: the set's lecture
            return current or ""
        earlier = [lecture for lecture in sorted(self.taught) if current and lecture <= current]
        lecture = earlier[-1] if earlier else min(self.taught)
        return f"{lecture}#{self.taught[lecture]}"

    def explain(self, current: str | None = None, section: str | None = None) -> str:
        """The course's words: the cause, "Try:" and "Reread:" (`section`, where the problem being worked on
        says where to reread, else its own section for set `current`)."""
        where = section or self.section(current)
        return f"{self.cause}\nTry: {self.hint}\nReread: {lecture_link(where) if where else 'this set’s lecture'}"


_TRACED = "depends on the value of an argument, which JAX does not know while it traces"
MISTAKES = (
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
    Mistake(
        "A loop's carry that changes type",
        "the function a loop runs (scan's, while_loop's or fori_loop's body) returns a carry whose shape or dtype "
        "differs from the one it was given, and a loop's carry keeps one type from start to end (the message names "
        "the component and both types).",
        "start the carry with the type the body returns (jnp.float32(0.0), not the Python int 0, or "
        "jnp.zeros(shape, dtype)), or cast in the body with .astype(carry.dtype); keep every shape the same.",
        {"04": "Control flow with lax", "12": "The carry's type is fixed"},
        "TypeError: scan body function carry input and carry output must have equal types",
        says=r"carry input and carry output must have equal types|body_fun output and input must have identical",
    ),
    Mistake(
        "A scan body that does not return a pair",
        "the function given to lax.scan returns one value, where scan needs a pair: the new carry and this step's "
        "output (which scan stacks).",
        "return (new_carry, output) from the step, e.g. `return h, h` to carry the state and also record it.",
        {"04": "Control flow with lax", "12": "Scan: a state and its trajectory"},
        "TypeError: scan body output must be a pair, got float32[3].",
        says=r"scan body output must be a pair",
    ),
    Mistake(
        "One switch index for many elements",
        "lax.switch (or lax.cond) chooses one branch for the whole call, so its index is one number; an array of "
        "indices, one per element, asks each element to choose for itself.",
        "map the choice over the elements: jax.vmap(lambda x, k: lax.switch(k, branches, x))(xs, kinds), where "
        "each element gets its own index.",
        {"12": "Branches under vmap"},
        "TypeError: Branch index must be scalar, got [0 1 2] of shape (3,).",
        says=r"Branch index must be scalar|Pred must be a scalar|Pred type must be either boolean or number",
    ),
    Mistake(
        "A compiled program called with other shapes or dtypes",
        "a program compiled ahead of time (jax.jit(f).lower(x).compile()) runs only on arguments of the shapes and "
        "dtypes it was compiled for, and this call passes others (the message lists them).",
        "call jax.jit(f) itself, which compiles again for new shapes, or lower and compile once for each shape you "
        "need.",
        {"03": "Lowering and compiling ahead of time"},
        "TypeError: Argument types differ from the types for which this computation was compiled.",
        says=r"Argument types differ from the types for which this computation was compiled",
    ),
    Mistake(
        "An array used after it was donated",
        "the array was donated to a jitted function (donate_argnums) or deleted, and its memory now holds the "
        "result: it cannot be read again.",
        "donate only an argument that the result replaces (x = step(x)), and use the returned array afterwards.",
        {"04": "Buffer donation"},
        "RuntimeError: Array has been deleted with shape=float32[1000000].",
        says=r"Array has been deleted",
    ),
    Mistake(
        "A function passed to a jitted function as an argument",
        "a function (or functools.partial) is passed as an argument of a jitted function, and jit traces its "
        "arguments as arrays.",
        "close over the function instead of passing it, mark that argument static (static_argnums=...), or wrap "
        "it in jax.tree_util.Partial, a function that is a pytree.",
        {"04": "Static arguments", "10": "Functions in a tree: Partial"},
        "TypeError: Error interpreting argument to f as an abstract array. The problematic value is of type "
        "<class 'functools.partial'>",
        says=r"problematic value is of type <class '(functools\.partial|function)'>",
    ),
    Mistake(
        "An object JAX does not know as a pytree",
        "an object of a class JAX does not know is passed to a transformation: JAX takes apart lists, tuples, "
        "dicts and registered classes, and anything else must be an array.",
        "register the class as a pytree (@jax.tree_util.register_dataclass on a dataclass, or "
        "register_pytree_node), or pass its arrays instead.",
        {"10": "Custom pytree nodes"},
        "TypeError: Error interpreting argument to f as an abstract array. The problematic value is of type "
        "<class '__main__.Plain'>",
        says=r"as an abstract array\. The problematic value is of type|is not a valid JAX type",
    ),
    Mistake(
        "A class registered as a pytree twice",
        "the class is registered as a pytree a second time: the cell that registers it ran again, or the class "
        "was registered by its decorator and by a call.",
        "register a class once, where it is defined (a decorator on the class does it as the class is made); to "
        "run a registration again, define the class again in the same cell.",
        {"10": "Custom pytree nodes"},
        "ValueError: Duplicate custom dataclass PyTreeDef type registration for <class '__main__.Dense'>.",
        says=r"Duplicate custom (dataclass )?PyTreeDef type registration",
    ),
    Mistake(
        "An array in a static field",
        "a static (meta) field holds an array: JAX compares and hashes static fields to find a compiled program, "
        "and arrays compare elementwise and do not hash.",
        "keep arrays in data fields; a static field holds hashable Python values (ints, strings, tuples).",
        {"10": "Static and data fields"},
        "ValueError: Exception raised while checking equality of metadata fields of pytree node",
        says=r"metadata fields are hashable|checking equality of metadata fields|"
        r"unhashable type: '(jaxlib\.|Array|ArrayImpl|numpy\.ndarray)",
    ),
    Mistake(
        "shard_map's specs that do not match its arguments",
        "shard_map's in_specs (or out_specs) has another structure than the function's arguments (or results): one "
        "PartitionSpec is needed for each argument, in the same containers (the message names where they differ).",
        "give one spec per argument, in order, e.g. in_specs=(P(), P('data'), P('data')) for f(w, X, y): P() for what "
        "every device holds whole, P(axis) for what is split along a mesh axis.",
        {"08": "shard_map", "16": "A 2-D mesh"},
        "ValueError: pytree structure error: different lengths of tuple at key path shard_map in_specs",
        says=r"shard_map (in|out)_specs",
    ),
    Mistake(
        "None in one tree where the other has an array",
        "jax.tree.map meets None in its first tree where another tree has a value: None is an empty subtree, "
        "with no leaf to pair with the other tree's.",
        "give both trees the same structure: a value (jnp.zeros_like) where the other has one, or map over the "
        "tree with the None first and handle None in the function (is_leaf=lambda x: x is None).",
        {"10": "None is an empty subtree"},
        "ValueError: pytree structure error: different types at key path ... <class 'NoneType'>",
        says=r"pytree structure error[\s\S]*<class 'NoneType'>",
    ),
    Mistake(
        "Trees of different structures",
        "jax.tree.map (or a transformation) got trees of different structures: other keys, a list against a "
        "tuple, or a subtree one level deeper (the message names the key path where they differ).",
        "print jax.tree.structure(...) of each tree; build the second from the first (jax.tree.map over it) so "
        "the keys and containers match.",
        {"06": "Gradients of pytrees", "10": "Mapping over trees"},
        "ValueError: pytree structure error: different pytree metadata at key path",
        says=r"pytree structure error|Custom node type mismatch|Dict key mismatch|Tuple arity mismatch|List arity",
    ),
    Mistake(
        "Forward mode through a custom_vjp function",
        "a custom_vjp function says how to pull a cotangent back (reverse mode) only, and jax.jvp, jacfwd or "
        "hessian push a tangent forward through it.",
        "differentiate it in reverse mode (jax.grad, jax.vjp, jacrev), or state its rule with jax.custom_jvp, "
        "which serves both modes.",
        {"11": "custom_vjp has no forward mode"},
        "TypeError: can't apply forward-mode autodiff (jvp) to a custom_vjp function.",
        says=r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp function",
    ),
    Mistake(
        "A custom rule that does not return a pair",
        "a custom_jvp rule returns (primal output, tangent output), and a custom_vjp fwd returns (primal output, "
        "residuals): this one returned one value.",
        "return both: `return y, y_dot` from a jvp rule, `return y, residuals` from fwd (residuals may be None "
        "when bwd needs nothing).",
        {"06": "custom_jvp: state the derivative yourself", "11": "Safe rules with custom_jvp"},
        "TypeError: Custom JVP rule fj for function f must produce a pair (list or tuple of length two)",
        says=r"Custom (JVP|VJP fwd) rule .* must produce a pair",
    ),
    Mistake(
        "A custom_vjp bwd that does not return a tuple",
        "a custom_vjp bwd returns one cotangent per argument of the function, in a tuple, even for one argument; "
        "this one returned another structure (a bare array, or another number of cotangents).",
        "return a tuple with one cotangent per (differentiated) argument: `return (g,)` for one, note the comma.",
        {"11": "custom_vjp: a forward pass and a backward pass"},
        "TypeError: Custom VJP bwd rule must produce an output with the same container (pytree) structure",
        says=r"Custom VJP bwd rule must produce an output with the same container",
    ),
    Mistake(
        "Many keys given to one draw",
        "a random draw takes a single key, and was given an array of keys (from jax.random.split).",
        "draw once per key with jax.vmap: jax.vmap(lambda k: jax.random.normal(k, shape))(keys); or give the draw "
        "one key and the whole shape.",
        {"07": "Random numbers under jit and vmap"},
        "ValueError: normal accepts a single key, but was given a key array of shape (3,) != (). Use jax.vmap",
        says=r"accepts a single key, but was given a key array",
    ),
    Mistake(
        "A dataclass field in neither list",
        "register_dataclass needs every field of the class in data_fields (arrays JAX traces) or meta_fields "
        "(settings that are part of the structure); the message names the field left out.",
        "add the field to data_fields if it holds arrays, to meta_fields if it is a setting (a string, an int), or "
        "mark it in the class: field: str = jax.tree.static().",
        {"10": "Static and data fields"},
        "ValueError: data_fields and meta_fields must include all dataclass fields ... Missing fields: {'a'}.",
        says=r"data_fields and meta_fields must include all dataclass fields",
    ),
    Mistake(
        "Reverse mode through a while_loop",
        "reverse mode (jax.grad) goes back through a lax.while_loop, or a fori_loop whose bounds are traced: the "
        "number of steps is known only as it runs, so their residuals cannot be kept for the backward pass.",
        "loop a fixed number of steps with lax.scan or a fori_loop with Python-number bounds, or state the "
        "derivative yourself with jax.custom_jvp (or custom_vjp, or lax.custom_root for a solver).",
        {"11": "Gradients through loops"},
        "ValueError: Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic "
        "start/stop values.",
        says=r"Reverse-mode differentiation does not work for lax\.while_loop",
    ),
    Mistake(
        "An index out of bounds, found by checkify",
        "checkify found an index past the end of an array inside the compiled function (the message names it), "
        "which without checkify JAX clamps silently.",
        "compute which indices are valid (0 <= i < len(x)) and choose with jnp.where(valid, x[i], fill), or clip "
        "the index where clamping is what you mean (jnp.clip).",
        {"13": "Errors under jit: checkify"},
        "JaxRuntimeError: out-of-bounds indexing for array of shape (3,): index 7 is out of bounds",
        says=r"out-of-bounds indexing for array of shape",
    ),
    Mistake(
        "Layers in a plain list of an nnx.Module",
        "an nnx.Module attribute holds a plain list (or dict) of layers or arrays, which NNX takes for a static "
        "setting, not for state of the model.",
        "wrap the container as data: self.layers = nnx.List([...]) (or nnx.data([...])), as the message offers.",
        {"14": "Variables, and the state of a model"},
        "ValueError: Found data on value of type '<class 'list'>' assigned to static attribute 'layers'",
        says=r"assigned to static attribute|Static attributes should not contain data",
    ),
    Mistake(
        "nnx.Optimizer without wrt",
        "nnx.Optimizer needs to be told which variables it updates (wrt), since Flax 0.11.",
        "write nnx.Optimizer(model, tx, wrt=nnx.Param).",
        {"14": "nnx.Optimizer and nnx.jit"},
        "TypeError: Missing required argument `wrt`.",
        says=r"Missing required argument `wrt`",
    ),
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

# Python's own errors inside an answer: what each kind means in a learner's code. They have no section of their
# own: a failure rereads the section of the problem being worked on (its test cell's), else the set's lecture.
_PROBLEM: dict[str, str] = {}
PYTHON = (
    Mistake(
        "A function that returns nothing",
        "a value is None: a function ended without `return` (one that prints its result, or computes it on the "
        "last line without returning it), and the code used what it returned.",
        "end the function with `return ...` of the value the problem asks for.",
        _PROBLEM,
        "TypeError: 'NoneType' object is not subscriptable",
        says=r"'NoneType' object|NoneType' and|and 'NoneType'",
    ),
    Mistake(
        "A different number of results than the caller unpacks",
        "the code unpacks a different number of values than the function returns: a function that is to return "
        "several results returns them as one tuple, in the order the problem names.",
        "print what the function returns for the call on the line above (its type, and len() of a tuple), and "
        "return exactly the results the problem asks for, e.g. `return value, grads`.",
        _PROBLEM,
        "ValueError: too many values to unpack (expected 2)",
        says=r"too many values to unpack|not enough values to unpack|cannot unpack non-iterable",
    ),
    Mistake(
        "A call with arguments the function does not take",
        "a function is called with arguments its definition does not take: the test calls your function as the "
        "problem states it, and JAX calls a function you hand it with the arguments it passes (fori_loop's body "
        "gets (i, carry), while_loop's cond and body the carry alone, scan's step (carry, x), jax.tree.map's "
        "function one leaf of each tree).",
        "compare the failing call with the function's `def` line: keep the one the answer cell gave you, and give a "
        "function you hand to JAX the arguments the lecture's example takes.",
        _PROBLEM,
        "TypeError: f() missing 1 required positional argument: 'y'",
        says=r"missing \d+ required (positional|keyword-only) argument|takes \d+ positional arguments? but|"
        r"takes from \d+ to \d+ positional|got an unexpected keyword argument|got multiple values for argument",
    ),
    Mistake(
        "The truth of a whole array",
        "Python needs one True or False, and gets an array of many: `and`, `or`, `not`, a chained comparison "
        "(0 <= i < n) or an `if` on an array with more than one element.",
        "combine comparisons element by element with & and | in parentheses, e.g. (i >= 0) & (i < n); where one "
        "answer for the whole array is meant, reduce it with jnp.all(...) or jnp.any(...).",
        _PROBLEM,
        "ValueError: The truth value of an array with more than one element is ambiguous.",
        says=r"truth value of an array with more than one element is ambiguous",
    ),
    Mistake(
        "A value called as a function",
        "the code calls something that is not a function: a result where a function is expected (jax.grad(f) "
        "is a function, jax.grad(f)(x) its value), or a name that held a function was assigned a value.",
        "print type() of what is called; hand functions to transformations (jax.grad(f), jax.vmap(f)) and call "
        "what they return with the arguments.",
        _PROBLEM,
        "TypeError: 'ArrayImpl' object is not callable",
        says=r"object is not callable",
    ),
    Mistake(
        "A name not defined in this kernel",
        "a name the code uses is not defined in this kernel: the cell that defines it has not run since the "
        "kernel started (a restart forgets every cell), or the name is spelt differently where it is defined.",
        "run the cells above this one first (Run > Run All Above Selected Cell), then this one; if it still fails, "
        "compare the spelling with the answer cell's.",
        _PROBLEM,
        "NameError: name 'f' is not defined",
        errors=("NameError",),
    ),
    Mistake(
        "An attribute the value does not have",
        "the code asks a value for an attribute or method its type does not have: the value is not what the code "
        "expects (the message names its type), or the name is misspelt.",
        "print type() of the value before the dot; a jax.Array has .shape, .dtype, .T and .at[...], and a dict "
        "of parameters is indexed with ['name'], not .name.",
        _PROBLEM,
        "AttributeError: 'dict' object has no attribute 'w'",
        errors=("AttributeError",),
    ),
    Mistake(
        "An index or key that is not there",
        "the code indexes past the end of a sequence, or asks a dict (a pytree's node) for a key it does not have; "
        "the message names the index or key.",
        "print len() of the sequence or the dict's keys(); a pytree's keys are those of the parameters the "
        "problem gives you.",
        _PROBLEM,
        "KeyError: 'w1'",
        errors=("IndexError", "KeyError"),
    ),
    Mistake(
        "An operation on values of the wrong type",
        "an operation meets a value of a type it cannot take (the message names the types): a function, a tuple "
        "or a string where an array is needed, usually one step before the line that fails.",
        "print type() and, for arrays, .shape and .dtype of each value on the failing line, and trace back where "
        "the unexpected one was made.",
        _PROBLEM,
        "TypeError: unsupported operand type(s) for +: 'function' and 'float'",
        says=r"unsupported operand type|can only concatenate|not supported between instances of",
    ),
)

# A test's own assertion (an `assert` with its message) that the answer did not meet.
TEST_ASSERTION = Mistake(
    "A test's condition not met",
    "the answer does not meet the test's condition on the line above: its message says what was expected and "
    "what the answer gave.",
    "run the answer on the test cell's inputs, print what the message names, and compare it with what the problem "
    "asks.",
    _PROBLEM,
    "AssertionError: the loss should fall at every step",
    errors=("AssertionError",),
)

# Any other error, of Python's or a library's, raised in a learner's code.
ANY_ERROR = Mistake(
    "Any other error",
    "your code raised the error above: the traceback's last frame in your own cell shows the line.",
    "run the answer on the test cell's inputs and print the values the failing line uses (their type, and "
    ".shape and .dtype for arrays) until you see which one is not what you expect.",
    _PROBLEM,
    "an error whose traceback ends in a notebook cell",
)
MISTAKES = (*MISTAKES, FROM_JAX)
EVERY_MISTAKE = (*MISTAKES, *PYTHON, TEST_ASSERTION, ANY_ERROR)
SYMPTOMS = {mistake.symptom: mistake for mistake in MISTAKES if mistake.symptom}
