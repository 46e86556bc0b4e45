"""Python's own errors inside an answer, and any other error: what each kind means in a learner's code."""

from __future__ import annotations

from ._mistake import Mistake

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
