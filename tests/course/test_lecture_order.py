"""A linear path: no lecture or exercise set uses a JAX API before the lecture that teaches it.

An early use is allowed as a preview: a markdown cell at or above it names the API in backticks
and links to the lecture that teaches it (for example "`jax.random` makes the data here; lecture
[7](07_prng.ipynb) explains keys").
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

from support import LECTURES, ROOT

pytestmark = pytest.mark.unit

# What each lecture teaches: an API (a dotted name, its submodules included) or a keyword argument.
TAUGHT = {
    "jax.device_put": 1,
    "jax.tree": 2,
    "jax.jit": 3,
    "jax.make_jaxpr": 3,
    "jax.debug": 3,
    ".lower": 3,  # the ahead-of-time API: jax.jit(f).trace(...).lower().compile()
    ".trace": 3,
    "static_argnums": 4,
    "static_argnames": 4,
    "donate_argnums": 4,
    "jax.lax.cond": 4,
    "jax.lax.switch": 4,
    "jax.lax.while_loop": 4,
    "jax.lax.fori_loop": 4,
    "jax.lax.scan": 4,
    "jax.lax.map": 5,
    "jax.log_compiles": 4,
    "jax.vmap": 5,
    "in_axes": 5,
    "out_axes": 5,
    "jax.grad": 6,
    "jax.value_and_grad": 6,
    "jax.jacfwd": 6,
    "jax.jacrev": 6,
    "jax.hessian": 6,
    "jax.jvp": 6,
    "jax.vjp": 6,
    "jax.linearize": 6,
    "jax.custom_jvp": 6,
    "jax.lax.stop_gradient": 6,
    "jax.random": 7,
    "jax.pmap": 8,
    "jax.shard_map": 8,
    "jax.sharding": 8,
    "jax.make_mesh": 8,
    "jax.lax.psum": 8,
    "jax.lax.pmean": 8,
    "axis_name": 8,
    "jax.tree_util": 10,
    "jax.tree.flatten": 10,
    "jax.tree.unflatten": 10,
    "jax.tree.flatten_with_path": 10,
    "jax.tree.leaves_with_path": 10,
    "jax.tree.map_with_path": 10,
    "jax.tree.static": 10,
    "is_leaf": 10,
    "jax.custom_vjp": 11,
    "jax.checkpoint": 11,
    "jax.checkpoint_policies": 11,
    "jax.remat": 11,
    "jax.ad_checkpoint": 11,
    "nondiff_argnums": 11,
    "jax.lax.associative_scan": 12,
    "jax.lax.select": 12,
    "unroll": 12,
    "jax.debug.callback": 13,
    "jax.debug.breakpoint": 13,
    "jax.experimental.checkify": 13,
    "jax.debug_nans": 13,
    "jax.debug_infs": 13,
    "jax.disable_jit": 13,
    "jax.profiler": 13,
    "jax.effects_barrier": 13,
    "jax.pure_callback": 13,
    "jax.default_matmul_precision": 13,
    "jax.live_arrays": 13,
    "flax": 14,
    "optax": 14,
    "orbax": 14,
    "sklearn": 14,
}


def _number(path: Path) -> int:
    return int(path.name[:2])


def _lecture_file(number: int) -> str:
    found = [p.name for p in LECTURES if _number(p) == number]
    return found[0] if found else f"{number:02d}_"


def _dotted(node: ast.AST) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return [node.id, *reversed(parts)] if isinstance(node, ast.Name) else None


def _uses(source: str, aliases: dict[str, str]) -> set[str]:
    """The TAUGHT entries this cell's code uses; `aliases` collects its imports for later cells."""
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update(
                {a.asname or a.name.split(".")[0]: a.name if a.asname else a.name.split(".")[0] for a in node.names}
            )
        elif isinstance(node, ast.ImportFrom) and node.module:
            aliases.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in TAUGHT:
            used.add(node.arg)
        # jax.jit(f).trace(x).lower(): a method call with arguments (str.lower() takes none).
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            if f".{node.func.attr}" in TAUGHT:
                used.add(f".{node.func.attr}")
        dotted = _dotted(node) if isinstance(node, (ast.Attribute, ast.Name)) else None
        if dotted and dotted[0] in aliases:
            name = ".".join([aliases[dotted[0]], *dotted[1:]])
            used.update(api for api in TAUGHT if name == api or name.startswith(f"{api}."))
    return used


def early_uses(path: Path) -> list[str]:
    """Uses of an API before the lecture that teaches it, with no preview above them."""
    number, aliases, previews, found = _number(path), {}, "", []
    for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type == "markdown":
            previews += cell.source + "\n"
            continue
        if cell.cell_type != "code" or cell.metadata.get("nbgrader", {}).get("grade"):
            continue  # test cells call the course's checks, not the lesson's API
        for api in sorted(_uses(cell.source, aliases)):
            taught = TAUGHT[api]
            teaching = _lecture_file(taught)
            previewed = teaching in previews and re.search(rf"`[^`]*{re.escape(api.lstrip('.'))}[^`]*`", previews)
            if taught > number and not previewed:
                found.append(f"cell {index} uses {api}, taught in lecture {taught} ({teaching})")
    return found


NOTEBOOKS = [*LECTURES, *sorted(ROOT.glob("solutions/*/*.ipynb"))]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_notebook_uses_only_what_earlier_lectures_taught(path):
    found = early_uses(path)
    assert not found, (
        "used before it is taught; move it, or add a one-line preview above it that names it in "
        "backticks and links to the lecture that teaches it:\n" + "\n".join(found)
    )


def test_the_check_sees_an_early_use_and_accepts_a_preview(tmp_path):
    cell = nbformat.v4.new_code_cell("import jax\nkey = jax.random.key(0)\nf = jax.jit(lambda x: x)")
    path = tmp_path / "01_example.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), path)
    assert [u.split(" uses ")[1].split(",")[0] for u in early_uses(path)] == ["jax.jit", "jax.random"]
    preview = nbformat.v4.new_markdown_cell(f"`jax.random.key` makes a key; [lecture 7]({_lecture_file(7)}).")
    nbformat.write(nbformat.v4.new_notebook(cells=[preview, cell]), path)
    assert [u.split(" uses ")[1].split(",")[0] for u in early_uses(path)] == ["jax.jit"]
