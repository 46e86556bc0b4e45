"""Answers that do nothing, made from the reference answers of any set: each must score nothing.

A property (purity, no leaked tracer, no reused key, a program that does not grow, a loop's
depth, a flag restored) is also a property of a function that computes nothing. These answers
prove that no test cell pays for the property alone. They are generated, not written, so that
every answer of every set, and of any set added later, is tried the same ways:

- `first argument`: every function returns its first argument (the untouched input or pytree);
- `constant`: every function returns `0.0`;
- `zeros`: every function calls the reference, on copies of its arguments so that its side effects
  are lost too, and returns zeros of the same shapes and dtypes: its program, its purity, its keys
  and its compilations are the reference's own;
- `nothing at all`: every function returns None, and every class loses its body.

Each test cell that reads a changed name must score 0; the others keep their points.
"""

from __future__ import annotations

import ast
import copy
from functools import cache

from ._packing import cells_reading_changed_names
from ._sets import ExerciseSet

KINDS = ("first argument", "constant", "zeros", "nothing at all")

# Zeros of an answer's shapes and dtypes: arrays become zeros, numbers 0, strings empty; keys and
# other objects are kept, so the answer's structure is the reference's. An answer with nothing to
# zero (an optimizer's functions, a model) would be the reference itself: it becomes None.
_ZEROS = """
import copy


def _copied(value):
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


def _zeros_like_answer(value):
    zeroed = []

    def zero(leaf):
        if isinstance(leaf, str):
            zeroed.append(leaf)
            return ""
        if isinstance(leaf, (int, float, complex)) and not isinstance(leaf, bool):
            zeroed.append(leaf)
            return type(leaf)(0)
        if isinstance(leaf, jax.Array) or type(leaf).__name__ == "ndarray":
            if jnp.issubdtype(leaf.dtype, jnp.number):
                zeroed.append(leaf)
                return jnp.zeros_like(leaf)
        return leaf

    value = jax.tree.map(zero, value)
    return value if zeroed else None  # nothing to zero (functions, a model): then nothing at all
"""


def _first_argument(node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.expr:
    params = [*node.args.posonlyargs, *node.args.args]
    if params:
        return ast.Name(params[0].arg, ast.Load())
    if node.args.vararg:
        return ast.Subscript(ast.Name(node.args.vararg.arg, ast.Load()), ast.Constant(0), ast.Load())
    return ast.Constant(None)


def _call_on_copies(name: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.Call:
    """`name(...)` on copies of `node`'s arguments."""
    a = node.args

    def copied(arg: str) -> ast.expr:
        return ast.Call(ast.Name("_copied", ast.Load()), [ast.Name(arg, ast.Load())], [])

    positional: list[ast.expr] = [copied(p.arg) for p in [*a.posonlyargs, *a.args]]
    if a.vararg:
        positional.append(ast.Starred(copied(a.vararg.arg), ast.Load()))
    keywords = [ast.keyword(k.arg, copied(k.arg)) for k in a.kwonlyargs]
    if a.kwarg:
        keywords.append(ast.keyword(None, copied(a.kwarg.arg)))
    return ast.Call(ast.Name(name, ast.Load()), positional, keywords)


def _nothing(source: str, kind: str) -> tuple[str, set[str]]:
    """`source` with every top-level function (and, for `nothing at all`, class) doing nothing, and their names."""
    tree = ast.parse(source)
    body: list[ast.stmt] = []
    changed: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and (
            kind == "nothing at all" or not isinstance(node, ast.ClassDef)
        ):
            changed.add(node.name)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if kind == "first argument":
                node.body = [ast.Return(_first_argument(node))]
            elif kind == "constant":
                node.body = [ast.Return(ast.Constant(0.0))]
            elif kind == "nothing at all":
                node.body = [ast.Pass()]
            else:  # zeros: the reference, renamed, computes what the answer's zeros are shaped like
                reference = f"_reference_{node.name}"
                renamed = copy.copy(node)
                renamed.name = reference
                body.append(renamed)
                call = _call_on_copies(reference, node)
                node = ast.FunctionDef(
                    name=node.name,
                    args=node.args,
                    body=[ast.Return(ast.Call(ast.Name("_zeros_like_answer", ast.Load()), [call], []))],
                    decorator_list=[],
                    returns=None,
                    type_params=[],
                )
        elif isinstance(node, ast.ClassDef) and kind == "nothing at all":
            node.body = [ast.Pass()]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            # `checked = checkify(f)` does nothing once f does nothing
            if {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)} & changed:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                changed |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        body.append(node)
    if not changed:
        return source, changed
    tree.body = body
    text = ast.unparse(ast.fix_missing_locations(tree))
    return ((_ZEROS + "\n" + text) if kind == "zeros" else text), changed


@cache
def _made(exercise: ExerciseSet, kind: str) -> tuple[dict[str, str], frozenset[str]]:
    answers, names = {}, set()
    for cell, source in exercise.reference.items():
        answers[cell], changed = _nothing(source, kind)
        names |= changed
    return answers, frozenset(names)


def answers(exercise: ExerciseSet, kind: str) -> dict[str, str]:
    """Every answer cell of `exercise` (grade_id -> source), its functions doing nothing this way."""
    return _made(exercise, kind)[0]


def losing_tests(exercise: ExerciseSet, kind: str) -> set[str]:
    """The test cells that must score 0 for this kind: every one that reads a function done nothing."""
    made, names = _made(exercise, kind)
    changed = {cell: source for cell, source in made.items() if source != exercise.reference[cell]}
    return cells_reading_changed_names(exercise, changed, names=set(names))
