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
        earlier = [lecture for lecture in sorted(self.taught) if current and lecture <= current]
        lecture = earlier[-1] if earlier else min(self.taught)
        return f"{lecture}#{self.taught[lecture]}"

    def explain(self, current: str | None = None) -> str:
        """The course's words: the cause, "Try:" and "Reread:"."""
        return f"{self.cause}\nTry: {self.hint}\nReread: {lecture_link(self.section(current))}"


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
        "A Python if or while on a traced value",
        f"a Python if, while, and/or or bool() meets a value that {_TRACED}.",
        "branch with jnp.where or jax.lax.cond/switch, loop with jax.lax.while_loop, fori_loop or scan.",
        {"03": "What a function sees under jit", "04": "Control flow with lax", "12": "Choosing a branch"},
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
        "keep it an array: index with jnp, convert with x.astype(...), loop with jax.lax.fori_loop or scan.",
        {"03": "What a function sees under jit", "04": "What cannot be traced", "12": "Four loops"},
        "ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected",
        errors=("ConcretizationTypeError", "TracerIntegerConversionError"),
    ),
    Mistake(
        "A tracer leaked out of a transformation",
        "a value traced inside jit, grad or vmap was stored outside it (a global, a list, self.attribute) "
        "and used after the transformation ended.",
        "return every value the caller needs instead of storing it: a jitted function must be pure.",
        {"03": "Pure functions and side effects", "10": "Pytrees through transformations"},
        "UnexpectedTracerError: Encountered an unexpected tracer",
        errors=("UnexpectedTracerError",),
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
        "Branches of different shapes",
        "the branches of lax.cond or lax.switch (or of jnp.where) return different shapes or dtypes.",
        "make every branch return the same shapes and dtypes, padding or casting where needed.",
        {"04": "Control flow with lax", "12": "Choosing a branch"},
        "TypeError: cond branches must have equal output types",
        says=r"branches must have equal output types|must have identical types",
    ),
)
