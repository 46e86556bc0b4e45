"""A property's points go only to an answer that works: every property check confirms values first."""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import autograder as ag
from autograder._config import REFERENCES
from autograder.checks import _works

pytestmark = pytest.mark.unit

# Every check whose verdict is a property of the answer, not a value: each must take `works`.
PROPERTY_CHECKS = [
    "check_collective",
    "check_collectives",
    "check_memory_per_device",
    "check_no_program_built",
    "check_not_replicated",
    "check_pallas_kernel",
    "check_compile_count",
    "check_jaxpr_constant",
    "check_jitted",
    "check_largest_intermediate",
    "check_log_depth",
    "check_no_key_reuse",
    "check_not_calling",
    "check_primitives",
    "check_pure",
    "check_reproducible",
    "check_saved_residuals",
    "check_sharding",
    "check_speedup",
    "check_traceable",
    "check_work_grows",
]
# Checks that judge values themselves (a comparison, a statistic, the student's own reading of a
# profile or a clock): nothing to confirm before them.
VALUE_CHECKS = [
    "check_close",
    "check_figures",
    "check_hottest_op",
    "check_independent_rows",
    "check_reference",
    "check_timing_protocol",
    "check_within_sigmas",
]


def test_every_check_is_a_value_check_or_requires_works():
    checks = {name for name in ag.checks.__all__ if name.startswith("check_")}
    assert checks == set(PROPERTY_CHECKS) | set(VALUE_CHECKS), "a new check: is it a property (works=) or a value?"
    for name in PROPERTY_CHECKS:
        works = inspect.signature(inspect.unwrap(getattr(ag, name))).parameters.get("works")
        assert works is not None and works.default is inspect.Parameter.empty, f"{name} must require works="


def identity(*args):
    return args[0]


def expect(value):
    """A `works` check: the answer's output must equal `value`."""
    return lambda got: ag.check_close(got, value, what="the answer")


X = jnp.arange(8.0)
KEY = jax.random.key(0)


def mesh():
    return jax.make_mesh((8,), ("data",), devices=jax.devices("cpu"))


# Each check on an answer `f` whose right output is twice its input; returning the input has every property.
CASES = {
    "check_pure": (lambda f: ag.check_pure(f, X, works=expect(2 * X))),
    "check_traceable": (lambda f: ag.check_traceable(f, X, works=expect(2 * X))),
    "check_jitted": (lambda f: ag.check_jitted(jax.jit(f), X, works=expect(2 * X))),
    "check_jaxpr_constant": (
        lambda f: ag.check_jaxpr_constant(f, lambda n: (jnp.ones(n),), sizes=(4, 8), works=expect(2 * jnp.ones(4)))
    ),
    "check_primitives": (lambda f: ag.check_primitives(f, X, avoids=["while"], works=expect(2 * X))),
    "check_compile_count": (lambda f: ag.check_compile_count(jax.jit(f), [(X,), (X + 1,)], 1, works=expect(2 * X))),
    "check_largest_intermediate": (
        lambda f: ag.check_largest_intermediate(f, X, max_elements=100, works=expect(2 * X))
    ),
    "check_log_depth": (
        lambda f: ag.check_log_depth(f, lambda n: (jnp.ones(n),), sizes=(16, 256), works=expect(2 * jnp.ones(16)))
    ),
    "check_no_key_reuse": (lambda f: ag.check_no_key_reuse(f, X, KEY, works=expect(2 * X))),
    "check_reproducible": (
        lambda f: ag.check_reproducible(
            lambda key: f(jax.random.normal(key, (3,))),
            KEY,
            jax.random.key(1),
            works=expect(2 * jax.random.normal(KEY, (3,))),
        )
    ),
    "check_saved_residuals": (
        lambda f: ag.check_saved_residuals(lambda x: jnp.sum(f(x)), X, max_bytes=10**6, works=expect(2 * 28.0))
    ),
    "check_not_calling": (lambda f: ag.check_not_calling(f, X, names=["jax.nn.relu"], works=expect(2 * X))),
    "check_collective": (
        lambda f: ag.check_collective(
            lambda x: jax.pmap(lambda v: f(v) + 0 * jax.lax.psum(v, "d"), axis_name="d")(x.reshape(8, 1)).ravel(),
            X,
            works=expect(2 * X),
        )
    ),
    "check_speedup": (
        lambda f: ag.check_speedup(jax.jit(f), lambda x: 2 * x, (X,), "demo", required=0.0, works=expect(2 * X))
    ),
    "check_work_grows": (
        lambda f: ag.check_work_grows(
            lambda n: f(jax.lax.while_loop(lambda i: i < n, lambda i: i + 1, 0.0)),
            (0.0,),
            (40.0,),
            factor=10,
            works=expect(80.0),
        )
    ),
}


@pytest.mark.parametrize("check", sorted(CASES))
def test_an_answer_that_does_nothing_fails_with_its_values(check):
    with pytest.raises(ag.CheckFailed, match="the answer"):
        CASES[check](identity)


@pytest.mark.parametrize("check", sorted(set(CASES) - {"check_speedup"}))
def test_an_answer_that_works_keeps_the_property(check):
    CASES[check](lambda x, *rest: 2 * x)


def test_check_sharding_confirms_the_array_it_is_given():
    m = mesh()
    wanted = NamedSharding(m, P("data"))
    placed = jax.device_put(jnp.zeros(8), wanted)  # the right layout, the wrong values
    with pytest.raises(ag.CheckFailed, match="the answer"):
        ag.check_sharding(placed, wanted, works=expect(jnp.ones(8)))
    ag.check_sharding(jax.device_put(jnp.ones(8), wanted), wanted, works=expect(jnp.ones(8)))


def test_works_as_a_reference_id_compares_with_the_recorded_output(tmp_path, monkeypatch):
    monkeypatch.setenv(REFERENCES, str(tmp_path))
    ag.save_reference("demo/pure.works", 2 * X, tmp_path)
    ag.check_pure(lambda x: 2 * x, X, works="demo/pure.works")
    with pytest.raises(ag.CheckFailed, match=r"on the inputs of this check"):
        ag.check_pure(identity, X, works="demo/pure.works", what="double")
    # "Make the values right first" is for values that differ: a wrong shape says what to try of its own.
    with pytest.raises(ag.CheckFailed, match=r"has shape \(1,\).*\nTry: check which axis you reduce over"):
        ag.check_pure(lambda x: jnp.sum(x, keepdims=True), X, works="demo/pure.works", what="double")


def test_works_must_be_an_id_or_a_check():
    with pytest.raises(TypeError, match="reference id or a check"):
        _works.confirm(X, 3, what="x", section=None)  # pyright: ignore[reportArgumentType]


def test_a_recording_run_refuses_one_id_for_two_tests(tmp_path, monkeypatch):
    from autograder.checks import _reference

    monkeypatch.setattr(_reference, "_RECORD_DIR", str(tmp_path))
    monkeypatch.setattr(_reference, "_RECORDED", set())
    ag.check_reference(np.ones(2), "demo/twice")
    with pytest.raises(RuntimeError, match="give each its own id"):
        ag.check_reference(np.zeros(2), "demo/twice")


def test_a_test_s_own_values_check_without_hint_or_section_gets_the_property_check_s():
    from autograder.checks._works import confirm

    def own(value):
        return ag.check_close(value, jnp.ones(2), what="the step")

    with pytest.raises(ag.CheckFailed) as failure:
        confirm(jnp.zeros(2), own, what="the step", section="16#Tensor parallel")
    said = str(failure.value)
    assert "differs" in said and "Try: make the values right first" in said
    assert "Reread: course/16_scaling.ipynb#Tensor-parallel" in said

    def kept(value):
        return ag.check_close(value, jnp.ones(2), hint="add the bias", section="08#shard_map")

    with pytest.raises(ag.CheckFailed, match=r"(?s)Try: add the bias\nReread: course/08_parallel.ipynb#shard_map"):
        confirm(jnp.zeros(2), kept, what="the step", section="16#Tensor parallel")
