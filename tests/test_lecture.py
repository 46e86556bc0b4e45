"""The helpers lectures import from the course package, and the lectures' use of them."""

from __future__ import annotations

import ast
import inspect
import re
import time

import jax
import jax.numpy as jnp
import nbformat
import pytest

from autograder import lecture
from autograder.lecture import largest_array, memory_profile_samples, primitive_names, residual_bytes, time_min

from support import LECTURES, ROOT

pytestmark = pytest.mark.unit


class _Pending:
    """Stands for an array whose computation takes `seconds` to finish: blocking on it waits."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def block_until_ready(self):
        time.sleep(self.seconds)
        return self


def test_residual_bytes_counts_what_the_forward_pass_keeps_and_not_its_inputs():
    x = jnp.ones((8, 4), jnp.float32)
    assert residual_bytes(lambda x: jnp.sum(jnp.tanh(jnp.tanh(x))), x) == 2 * 8 * 4 * 4
    assert residual_bytes(lambda x: jnp.sum(x * x), x) == 0  # keeps only its input
    assert residual_bytes(jax.checkpoint(lambda x: jnp.sum(jnp.tanh(jnp.tanh(x)))), x) == 0


def test_time_min_is_positive_and_leaves_the_compile_out():
    start = time.perf_counter()
    jax.block_until_ready(jax.jit(lambda x: jnp.sin(x) + 1)(jnp.ones(100)))
    first_call = time.perf_counter() - start
    seconds = time_min(jax.jit(lambda x: jnp.sin(x) + 2), jnp.ones(100))
    assert 0 < seconds < first_call / 10


def test_time_min_waits_for_the_result_unless_told_not_to():
    assert time_min(lambda: _Pending(0.02), repeats=2) >= 0.02
    assert time_min(lambda: _Pending(0.02), repeats=2, block=False) < 0.02


def test_time_min_calls_once_to_warm_up_then_once_per_repeat():
    calls = []
    time_min(lambda x: calls.append(x) or x, jnp.ones(3), repeats=4)
    assert len(calls) == 5


def test_primitive_names_finds_dot_general_in_a_matmul():
    names = primitive_names(jax.make_jaxpr(lambda a, b: a @ b)(jnp.ones((2, 3)), jnp.ones((3, 4))))
    assert names == ["dot_general"]


def test_primitive_names_descends_into_nested_jaxprs_in_program_order():
    def f(x):
        y = jax.jit(jnp.sin)(x)
        return jax.lax.fori_loop(0, 3, lambda i, c: c * 2.0, y) + 1.0

    names = primitive_names(jax.make_jaxpr(f)(jnp.ones(3)))
    assert names[:2] == ["jit", "sin"]
    assert "mul" in names[names.index("scan") :]  # the loop body, inside the scan
    assert names[-1] == "add"


def test_primitive_names_reads_both_branches_of_a_cond():
    names = primitive_names(jax.make_jaxpr(lambda x: jax.lax.cond(x > 0, jnp.sin, jnp.cos, x))(1.0))
    assert {"cond", "sin", "cos"} <= set(names)


def test_largest_array_finds_the_biggest_intermediate():
    x = jnp.ones(100)
    assert largest_array(lambda x: jnp.outer(x, x).sum(), x) == (100, 100)
    assert largest_array(lambda x: jax.jit(lambda x: jnp.outer(x, x))(x).sum(), x) == (100, 100)
    assert largest_array(lambda x: (x * 2.0).sum(), x) == (100,)


def test_largest_array_sees_the_hessian_a_hessian_vector_product_avoids():
    def f(x):
        return jnp.sum(jnp.sin(x) ** 2)

    def hvp(x, v):
        return jax.jvp(jax.grad(f), (x,), (v,))[1]

    x = jnp.ones(50)
    assert largest_array(hvp, x, x) == (50,)
    assert largest_array(lambda x, v: jax.hessian(f)(x) @ v, x, x) == (50, 50)


HELPERS = ("time_min", "primitive_names", "largest_array")


def _definitions(path) -> dict[int, list[str]]:
    """The helpers each code cell of a notebook defines, by cell index."""
    found = {}
    for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type == "code":
            names = re.findall(r"^def (\w+)\(", cell.source, flags=re.MULTILINE)
            if shared := [name for name in names if name in HELPERS]:
                found[index] = shared
    return found


def _without_annotations(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, ast.FunctionDef):
            node.returns = None
    return ast.dump(tree)


def test_lecture_1_teaches_the_packages_time_min():
    path = ROOT / "course" / "01_arrays.ipynb"
    (index,) = [i for i, names in _definitions(path).items() if "time_min" in names]
    taught = nbformat.read(path, as_version=4).cells[index].source
    assert _without_annotations(taught) == _without_annotations(inspect.getsource(lecture.time_min)), (
        "lecture 01 teaches time_min: keep its code the same as autograder/lecture.py's"
    )


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.name)
def test_lectures_import_the_shared_helpers_rather_than_redefine_them(path):
    found = _definitions(path)
    if path.name.startswith("01_"):  # lecture 1 writes time_min out to teach it
        found = {i: [n for n in names if n != "time_min"] for i, names in found.items()}
    redefined = {i: names for i, names in found.items() if names}
    assert not redefined, f"{path.name} redefines {redefined} (cell: names): import them from autograder.lecture"


def _make_buffer():
    return jnp.ones((512, 512), jnp.float32)


def test_the_memory_profile_names_the_largest_buffer_and_the_line_that_made_it():
    buffer = _make_buffer()
    samples = memory_profile_samples(jax.profiler.device_memory_profile())
    assert samples == sorted(samples, reverse=True)
    made_here = re.compile(r"test_lecture\.py:\d+ _make_buffer")
    ours = [(nbytes, count) for nbytes, count, where in samples if made_here.fullmatch(where)]
    assert ours and ours[0][0] >= buffer.nbytes and ours[0][1] >= 1


def test_a_comparison_says_what_was_measured_and_when_it_goes_against_the_text(capsys):
    lecture.compare_times(("jacrev", 0.0002), ("jacfwd", 0.025), by=3, otherwise="...")
    said = capsys.readouterr().out
    assert "jacrev 0.2 ms, jacfwd 25 ms: jacrev is 125x faster." in said and lecture.AGAINST_THE_TEXT not in said
    lecture.compare_times(("jacrev", 0.0002), ("jacfwd", 0.0003), by=3, otherwise="A busy machine.")
    said = capsys.readouterr().out
    assert said.startswith(lecture.AGAINST_THE_TEXT) and "1.5x, not the 3x" in said and "A busy machine." in said
    lecture.compare_times(("filled cache", 0.114), ("no cache", 1.18), by=2, otherwise="...")
    assert "filled cache 114 ms, no cache 1.18 s: filled cache is 10x faster." in capsys.readouterr().out
