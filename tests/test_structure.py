"""Structural checks fail on the mistake they target and pass on good code."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import autograder as ag


def cumsum_loop(x, n):
    out = jnp.zeros(n)
    for i in range(1, n):
        out = out.at[i].set(out[i - 1] + x[i])
    return out


def cumsum_fori(x, n):
    return lax.fori_loop(1, n, lambda i, out: out.at[i].set(out[i - 1] + x[i]), jnp.zeros(n))


def plain(x):
    return jnp.sin(x) * 2


def test_check_jitted():
    ag.check_jitted(jax.jit(plain))
    ag.check_jitted(lambda x: jax.jit(plain)(x), jnp.ones(3))  # one jit call is the whole program
    with pytest.raises(ag.CheckFailed, match="is not jitted"):
        ag.check_jitted(plain, jnp.ones(3))
    with pytest.raises(ag.CheckFailed):
        ag.check_jitted(lambda x: jax.jit(plain)(x) + 1, jnp.ones(3))


def test_check_jaxpr_constant_catches_an_unrolled_loop():
    make = lambda n: (jnp.ones(n), n)  # noqa: E731
    ag.check_jaxpr_constant(cumsum_fori, make, static_argnums=(1,))
    ag.check_jaxpr_constant(jax.jit(cumsum_fori, static_argnums=1), make, static_argnums=(1,))
    with pytest.raises(ag.CheckFailed, match=r"grows with the problem size \(\d+ for n=8, \d+ for n=64"):
        ag.check_jaxpr_constant(cumsum_loop, make, static_argnums=(1,))
    with pytest.raises(ag.CheckFailed):
        ag.check_jaxpr_constant(jax.jit(cumsum_loop, static_argnums=1), make, static_argnums=(1,))


def test_numpy_code_is_reported_as_not_traceable():
    with pytest.raises(ag.CheckFailed, match="cannot be traced.*TracerArrayConversionError"):
        ag.check_jaxpr_constant(lambda x: jnp.asarray(np.sin(x)), lambda n: (jnp.ones(n),))
    with pytest.raises(ag.CheckFailed, match="TracerBoolConversionError"):
        ag.check_primitives(lambda x: x if x.sum() > 0 else -x, jnp.ones(3), contains=["neg"])


def test_nested_primitives_are_found():
    found = ag.primitives(jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0, x)), 1.0)
    assert {"jit", "mul"} <= found


def test_check_primitives_contains_and_avoids():
    stable = lambda x: jnp.exp(x - x.max())  # noqa: E731
    ag.check_primitives(stable, jnp.ones(3), contains=["reduce_max", "exp"], avoids=["while"])
    with pytest.raises(ag.CheckFailed, match="never uses reduce_max"):
        ag.check_primitives(jnp.exp, jnp.ones(3), contains=["reduce_max"])
    with pytest.raises(ag.CheckFailed, match="uses exp, which this exercise rules out"):
        ag.check_primitives(stable, jnp.ones(3), avoids=["exp"])


def test_check_primitives_only():
    affine = lambda w, x, b: w @ x + b  # noqa: E731
    args = (jnp.ones((2, 3)), jnp.ones(3), jnp.ones(2))
    ag.check_primitives(affine, *args, only=["dot_general", "add"])
    with pytest.raises(ag.CheckFailed, match="uses broadcast_in_dim, mul, reduce_sum, but should need only add, dot_general"):
        ag.check_primitives(lambda w, x, b: (w * x).sum(axis=1) + b, *args, only=["dot_general", "add"])


def pad_to_bucket(x):
    size = 16 if x.shape[0] <= 16 else 64
    return jnp.pad(x, (0, size - x.shape[0]))


def test_check_compile_count():
    calls = [(np.ones(n, np.float32),) for n in range(5, 15)]
    shapes_as_given = jax.jit(lambda x: (x * 2).sum())
    with pytest.raises(ag.CheckFailed, match="compiled 10 times.*at most 2"):
        ag.check_compile_count(shapes_as_given, calls, 2)
    bucketed = jax.jit(lambda x: (x * 2).sum())
    padded = [(np.pad(x, (0, 16 - x.shape[0])),) for (x,) in calls]
    ag.check_compile_count(bucketed, padded, 1)


def test_compile_count_of_an_unjitted_function_counts_every_compilation():
    jitted = jax.jit(lambda x: x + 1)
    assert ag.count_compiles(lambda x: jitted(x), [(np.ones(n, np.float32),) for n in (101, 102, 103)]) >= 3
    assert ag.count_compiles(lambda x: jitted(x), [(np.ones(101, np.float32),)] * 3) == 0


def sgd(params, grads):
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


def sgd_mutating(params, grads):
    for k in params:
        params[k] = params[k] - 0.1 * grads[k]
    return params


def sgd_printing(params, grads):
    print("step", params)
    return sgd(params, grads)


history = []


def sgd_remembering(params, grads):
    history.append(len(history))
    return sgd(params, grads)


leaked = []


def sgd_leaking(params, grads):
    out = sgd(params, grads)
    leaked.append(out)
    return out


def setup_function():
    history.clear()
    leaked.clear()


PARAMS = {"w": jnp.ones(3), "b": jnp.zeros(())}
GRADS = {"w": jnp.ones(3), "b": jnp.ones(())}


def test_check_pure_passes_pure_code():
    ag.check_pure(sgd, dict(PARAMS), GRADS)
    ag.check_pure(jax.jit(sgd), dict(PARAMS), GRADS)
    ag.check_pure(lambda x: jnp.asarray(x).at[0].set(1.0), np.zeros(3, np.float32))
    ag.check_pure(lambda x: jax.debug.print("x={x}", x=x) or x, jnp.ones(2))


@pytest.mark.parametrize(
    "impure, message",
    [
        (sgd_mutating, "changed its input in place"),
        (sgd_printing, "prints while JAX traces it"),
        (sgd_remembering, r"changes state outside itself \(history\)"),
        (sgd_leaking, "leaks a traced value"),
    ],
)
def test_check_pure_catches_each_side_effect(impure, message):
    with pytest.raises(ag.CheckFailed, match=message):
        ag.check_pure(impure, dict(PARAMS), GRADS)


def test_check_pure_catches_in_place_numpy_writes_and_closures():
    def scale_in_place(x):
        x *= 2
        return x

    with pytest.raises(ag.CheckFailed, match="changed its input in place"):
        ag.check_pure(scale_in_place, np.ones(3, np.float32))

    calls = []

    def counting(x):
        calls.append(1)
        return x * 2

    with pytest.raises(ag.CheckFailed, match="a captured variable"):
        ag.check_pure(counting, jnp.ones(3))


def test_global_counter_is_caught():
    namespace = {"jax": jax, "steps": 0}
    exec("def step(x):\n    global steps\n    steps += 1\n    return x * 2\n", namespace)
    with pytest.raises(ag.CheckFailed, match=r"\(steps\)"):
        ag.check_pure(namespace["step"], jnp.ones(3))
    namespace["steps"] = 0
    exec("def step(x):\n    return x * 2 + steps\n", namespace)  # reads a global: fine
    ag.check_pure(namespace["step"], jnp.ones(3))


def test_partial_is_unwrapped_for_purity():
    ag.check_pure(partial(sgd, grads=GRADS), dict(PARAMS))


def hvp_forward_over_reverse(x, v):
    return jax.jvp(jax.grad(lambda x: jnp.sum(jnp.sin(x)) ** 2), (x,), (v,))[1]


def hvp_via_hessian(x, v):
    return jax.hessian(lambda x: jnp.sum(jnp.sin(x)) ** 2)(x) @ v


def test_largest_intermediate_sees_the_hessian():
    x = v = jnp.ones(300)
    assert ag.largest_intermediate(hvp_forward_over_reverse, x, v)[:2] == (300, (300,))
    assert ag.largest_intermediate(hvp_via_hessian, x, v)[:2] == (90_000, (300, 300))
    # ... also inside a nested jit.
    assert ag.largest_intermediate(jax.jit(hvp_via_hessian), x, v)[0] == 90_000
    ag.check_largest_intermediate(hvp_forward_over_reverse, x, v, max_elements=3000)
    with pytest.raises(ag.CheckFailed, match=r"shape \(300, 300\) \(90,000 elements"):
        ag.check_largest_intermediate(hvp_via_hessian, x, v, max_elements=3000, what="hvp")


def test_collectives_are_found_with_their_axes_in_pmap_and_shard_map():
    from jax.sharding import NamedSharding, PartitionSpec as P

    n = jax.device_count()
    assert n == 8, "conftest gives the tests 8 simulated devices"
    center_pmap = jax.pmap(lambda p: p - lax.pmean(jnp.mean(p), "devices"), axis_name="devices")
    assert ("psum", "devices") in ag.collectives(center_pmap, jnp.ones((n, 2)))
    mesh = jax.make_mesh((n,), ("data",))
    x = jax.device_put(jnp.arange(2.0 * n), NamedSharding(mesh, P("data")))
    center = jax.shard_map(lambda p: p - lax.pmean(jnp.mean(p), "data"), mesh=mesh, in_specs=P("data"), out_specs=P("data"))
    ag.check_collective(center, x, kind="psum", over="data")  # written psum_invariant inside shard_map
    with pytest.raises(ag.CheckFailed, match="psum over the mesh axis 'data', but it uses psum over 'devices'"):
        ag.check_collective(lambda x: center_pmap(x.reshape(n, -1)), jnp.arange(2.0 * n), kind="psum", over="data")
    with pytest.raises(ag.CheckFailed, match="no collective at all"):
        ag.check_collective(lambda x: x - x.mean(), x, kind="psum")


def test_check_sharding():
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = jax.make_mesh((4, 2), ("x", "y"))
    wanted = NamedSharding(mesh, P("x", "y"))
    placed = jax.jit(jnp.matmul, out_shardings=wanted)(jnp.ones((8, 4)), jnp.ones((4, 8)))
    ag.check_sharding(placed, wanted)
    with pytest.raises(ag.CheckFailed, match=r"not as requested \(P\('x', 'y'\)\)"):
        ag.check_sharding(jnp.ones((8, 8)), wanted, what="A @ B")
    with pytest.raises(ag.CheckFailed, match="not as requested"):
        ag.check_sharding(jax.device_put(placed, NamedSharding(mesh, P("y", "x"))), wanted)
    with pytest.raises(ag.CheckFailed, match="not a JAX array"):
        ag.check_sharding(np.ones((8, 8)), wanted)
