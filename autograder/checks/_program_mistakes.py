"""Classic mistakes in how a program is put together: loops' carries, branches, compiled programs, pytrees, custom
derivative rules, shard_map's specs, keys, checkify and NNX modules (part of `_mistakes`' catalogue, in its order)."""

from __future__ import annotations

from ._mistake import Mistake

PROGRAM = (
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
)
