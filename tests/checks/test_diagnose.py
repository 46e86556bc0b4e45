"""JAX's errors and the classic mistakes they mean (`_diagnose`), with the course's words beside JAX's."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.checks._diagnose import current_set, explained, mistake_of

pytestmark = pytest.mark.unit

X = jnp.arange(4.0)


def _assign():
    X[0] = 1.0


def _leak():
    kept = []
    jax.jit(lambda x: kept.append(x) or x)(X)
    return kept[0] + 1


def _reuse():
    key = jax.random.key(0)
    with jax.debug_key_reuse(True):
        jax.random.normal(key)
        jax.random.normal(key)


def _mesh():
    return jax.make_mesh((2,), ("model",), axis_types=(jax.sharding.AxisType.Auto,), devices=jax.devices()[:2])


def _shares_not_added():
    spec = jax.sharding.PartitionSpec
    return jax.shard_map(lambda a: a * 2, mesh=_mesh(), in_specs=spec("model"), out_specs=spec())(jnp.ones(4))


def _unknown_axis():
    return jax.device_put(X, jax.sharding.NamedSharding(_mesh(), jax.sharding.PartitionSpec("batch")))


def _ranks():
    with jax.numpy_rank_promotion("raise"):
        return jnp.ones((3, 1)) + X


def _nans():
    with jax.debug_nans(True):
        return jnp.log(-X)


def _fp8_products():
    with jax.default_matmul_precision("ANY_F8_ANY_F8_F32"):
        return jnp.ones((2, 2)) @ jnp.ones((2, 2))


# Each classic mistake, made; the words its diagnosis must say.
MADE = {
    "in place": (_assign, "x.at[i].set"),
    "python if": (lambda: jax.jit(lambda x: 1 if x.sum() > 0 else 2)(X), "jax.lax.cond"),
    "numpy": (lambda: jax.jit(lambda x: np.sin(x))(X), "jnp twin"),
    "int of a tracer": (lambda: jax.jit(lambda x: X[int(x[0])])(X), "fori_loop"),
    "range of an argument": (lambda: jax.jit(lambda x, n: [x := x * 2 for _ in range(n)][-1])(X, 3), "static_argnames"),
    "boolean mask": (lambda: jax.jit(lambda x: x[x > 1])(X), "jnp.where(mask"),
    "arithmetic on a dict": (lambda: X - 0.5 * {"w": X}, "jax.tree.map"),
    "nonzero": (lambda: jax.jit(jnp.nonzero)(X), "size="),
    "traced slice": (lambda: jax.jit(lambda x, i: x[i : i + 2])(X, 1), "dynamic_slice"),
    "shape argument": (lambda: jax.jit(lambda n: jnp.zeros(n))(3), "static_argnums"),
    "arange of an argument": (lambda: jax.jit(jnp.arange)(3), "static_argnums"),
    "vmap sizes": (lambda: jax.vmap(jnp.add)(jnp.ones(3), jnp.ones(4)), "in_axes"),
    "vmap axis": (lambda: jax.vmap(jnp.sin, in_axes=2)(jnp.ones(3)), "in_axes"),
    "grad of a vector": (lambda: jax.grad(jnp.sin)(X), "scalar loss"),
    "grad of an int": (lambda: jax.grad(lambda x: x * 2.0)(3), "argnums="),
    "argnums from 1": (lambda: jax.grad(lambda x, y: x * y, argnums=(1, 2))(1.0, 2.0), "argnums=(0, 1)"),
    "leaked tracer": (_leak, "pure"),
    "key reuse": (_reuse, "jax.random.split"),
    "broadcast": (lambda: jnp.ones(3) + jnp.ones(4), "x[:, None]"),
    "matmul": (lambda: jnp.ones((2, 3)) @ jnp.ones((2, 3)), "x.T"),
    "cond branches": (lambda: jax.lax.cond(True, lambda: X, lambda: X[:2]), "same shapes"),
    "shard_map shares not added": (_shares_not_added, "jax.lax.psum(value, axis)"),
    "a mesh axis the mesh lacks": (_unknown_axis, "mesh.axis_names"),
    "a removed name": (lambda: jax.tree_map(jnp.sin, X), "jax.tree.map"),  # pyright: ignore[reportAttributeAccessIssue]
    "rank promotion set to raise": (_ranks, "jax_numpy_rank_promotion"),
    "debug_nans left on": (_nans, "jax_debug_nans"),
    "matmul precision the backend lacks": (_fp8_products, "jax_default_matmul_precision"),
}


@pytest.mark.parametrize("made", MADE)
def test_each_classic_mistake_is_named_with_what_to_try(made):
    make, words = MADE[made]
    with pytest.raises(Exception) as raised:
        make()
    mistake = mistake_of(raised.value)
    assert mistake is not None, f"{made}: {type(raised.value).__name__}: {raised.value}"
    assert words in mistake.hint


def test_pmap_over_an_axis_that_is_not_the_device_count_is_named():
    with pytest.raises(Exception) as raised:
        jax.pmap(jnp.sin)(jnp.ones((jax.device_count() + 1, 2)))
    assert "jax.device_count()" in mistake_of(raised.value).cause


def test_a_python_error_that_is_no_classic_mistake_gets_the_words_of_its_kind(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    assert not explained(KeyError("w"))  # not in a set of the course's: Python's words alone
    monkeypatch.setenv("JPY_SESSION_NAME", "10_pytrees.ipynb")
    error = KeyError("w")
    assert mistake_of(error) is None
    assert explained(error)
    assert str(error) == "'w'"  # a KeyError shows its key's repr: the words follow as a note
    (note,) = error.__notes__
    assert "What it means: the code indexes past the end of a sequence, or asks a dict" in note and "Try:" in note


def test_the_course_s_words_follow_jax_s_once_with_the_current_set_s_lecture(monkeypatch, tmp_path):
    folder = tmp_path / "05_vmap"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    with pytest.raises(TypeError) as raised:
        _assign()
    assert explained(raised.value) and explained(raised.value)
    text = str(raised.value)
    assert text.startswith("JAX arrays are immutable")
    assert text.count("What it means:") == 1
    assert "Try: write x = x.at[i].set(v)" in text
    # Set 05's lecture does not teach it: the latest lecture before it that does.
    assert "Reread: course/04_jit.ipynb#In-place-updates-under-jit" in text


def test_the_set_is_read_from_the_test_cell_then_the_notebook_then_the_folder(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    assert current_set() is None
    monkeypatch.setenv("JPY_SESSION_NAME", os.path.join("work", "course-copy", "07_prng.ipynb"))
    assert current_set() == "07"
    cell = "/tmp/ipykernel_1/42.py"
    import linecache

    monkeypatch.setitem(linecache.cache, cell, (0, None, ['ag.check_close(f(x), y, section="12#Four loops")\n'], cell))
    code = compile("current_set()", cell, "eval")
    assert eval(code, {"current_set": current_set}) == "12"


def test_any_other_error_from_jax_or_python_gets_the_course_s_words_too(monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", "12_control_flow.ipynb")
    with pytest.raises(ValueError) as raised:
        jnp.linalg.inv(jnp.ones(3))
    assert mistake_of(raised.value) is None and explained(raised.value)
    assert "What it means: JAX refused an operation" in str(raised.value) and "jax.disable_jit()" in str(raised.value)
    with pytest.raises(ZeroDivisionError) as raised:
        _ = 1 / 0
    assert explained(raised.value)
    said = str(raised.value)
    assert said.startswith("division by zero\n\nWhat it means: your code raised the error above"), said
    assert "Try: run the answer" in said and "Reread: course/12_control_flow.ipynb" in said


def _psum_over(axis):
    mesh = jax.make_mesh(
        (2, 1), ("data", "model"), axis_types=(jax.sharding.AxisType.Auto,) * 2, devices=jax.devices()[:2]
    )
    spec = jax.sharding.PartitionSpec("data", "model")
    return jax.jit(jax.shard_map(lambda a: jax.lax.psum(a, axis), mesh=mesh, in_specs=spec, out_specs=spec))(
        jnp.ones((4, 2))
    )


@pytest.mark.parametrize("filtering", ["tracebackhide", "quiet_remove_frames"])  # a kernel's, a script's
def test_a_psum_over_an_axis_the_mesh_lacks_is_named_where_jax_says_nothing(filtering):
    before = jax.config.jax_traceback_filtering
    jax.config.update("jax_traceback_filtering", filtering)
    try:
        with pytest.raises(AssertionError) as raised:
            _psum_over("modle")
    finally:
        jax.config.update("jax_traceback_filtering", before)
    assert str(raised.value) == "", "JAX now says why itself: the words below may be needed no more"
    assert explained(raised.value)
    words = str(raised.value)
    assert "jax.lax.psum names the axis 'modle', which is not found in mesh: its axes are 'data', 'model'" in words
    assert "mesh.axis_names" in words and "Try:" in words and "Reread:" in words
