"""Collectives are read from the program with their axes; shardings are compared by layout."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import autograder as ag

from support import ANY_VALUE

pytestmark = pytest.mark.unit


def test_collectives_are_found_with_their_axes_in_pmap_and_shard_map():
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    n = jax.device_count()
    assert n == 8, "conftest gives the tests 8 simulated devices"
    center_pmap = jax.pmap(lambda p: p - lax.pmean(jnp.mean(p), "devices"), axis_name="devices")
    assert ("psum", "devices") in ag.collectives(center_pmap, jnp.ones((n, 2)))
    mesh = jax.make_mesh((n,), ("data",))
    x = jax.device_put(jnp.arange(2.0 * n), NamedSharding(mesh, P("data")))
    center = jax.shard_map(
        lambda p: p - lax.pmean(jnp.mean(p), "data"), mesh=mesh, in_specs=P("data"), out_specs=P("data")
    )
    ag.check_collective(center, x, kind="psum", over="data", works=ANY_VALUE)  # written psum_invariant inside shard_map
    with pytest.raises(ag.CheckFailed, match="psum over the mesh axis 'data', but it uses psum over 'devices'"):
        ag.check_collective(
            lambda x: center_pmap(x.reshape(n, -1)), jnp.arange(2.0 * n), kind="psum", over="data", works=ANY_VALUE
        )
    with pytest.raises(ag.CheckFailed, match="no collective at all") as plain:
        ag.check_collective(lambda x: x - x.mean(), x, kind="psum", over="data", works=ANY_VALUE)
    assert "pmap" not in str(plain.value)


def test_a_collective_written_with_pmap_is_named_as_the_older_interface():
    n = jax.device_count()
    center_pmap = jax.pmap(lambda p: p - lax.pmean(jnp.mean(p), "devices"), axis_name="devices")
    with pytest.raises(ag.CheckFailed, match="written with jax.pmap, the older interface.*jax.shard_map over the mesh"):
        ag.check_collective(
            lambda x: center_pmap(x.reshape(n, -1)), jnp.arange(2.0 * n), kind="psum", over="data", works=ANY_VALUE
        )


def test_check_sharding():
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((4, 2), ("x", "y"))
    wanted = NamedSharding(mesh, P("x", "y"))
    placed = jax.jit(jnp.matmul, out_shardings=wanted)(jnp.ones((8, 4)), jnp.ones((4, 8)))
    ag.check_sharding(placed, wanted, works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match=r"not as requested \(P\('x', 'y'\)\)"):
        ag.check_sharding(jnp.ones((8, 8)), wanted, what="A @ B", works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="not as requested"):
        ag.check_sharding(jax.device_put(placed, NamedSharding(mesh, P("y", "x"))), wanted, works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="not a JAX array"):
        ag.check_sharding(np.ones((8, 8)), wanted, works=ANY_VALUE)


def test_a_result_on_the_device_jax_default_device_names_names_the_setting():
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    wanted = NamedSharding(jax.make_mesh((4, 2), ("x", "y")), P("x", "y"))
    with jax.default_device(jax.devices()[1]):
        on_one = jnp.ones((8, 8))
        with pytest.raises(ag.CheckFailed) as failure:
            ag.check_sharding(on_one, wanted, works=ANY_VALUE)
    said = str(failure.value)
    assert "not as requested" in said and "jax_default_device is set" in said and "Here it is" in said
    assert (
        "jax.config.update('jax_default_device', None)" in said and "Reread: course/08_parallel.ipynb#Devices" in said
    )
    with pytest.raises(ag.CheckFailed) as failure:
        ag.check_sharding(on_one, wanted, works=ANY_VALUE)  # the setting off: the message is the plain one
    assert "jax_default_device" not in str(failure.value)
