"""What the compiler made of a sharded program: its collectives with the bytes each device sends, its memory
per device and its costs, and the checks on them (autograder/checks/_compiled.py, _scaling.py)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

import autograder as ag
from autograder.checks._compiled import Collective, hlo_collectives

from support import ANY_VALUE

pytestmark = pytest.mark.unit


def _mesh(n: int, name: str = "d"):
    return jax.make_mesh((n,), (name,), devices=jax.devices()[:n], axis_types=(AxisType.Auto,))


def _programs(n: int, shape=(16, 24)):
    """One shard_map program per collective on n devices, each device holding an array of `shape`."""
    mesh = _mesh(n)
    spec = dict(mesh=mesh, in_specs=P("d"))
    return mesh, {
        "all-gather": jax.shard_map(
            lambda b: lax.all_gather(b, "d", tiled=True, to="invarying"), **spec, out_specs=P()
        ),
        "reduce-scatter": jax.shard_map(lambda b: lax.psum_scatter(b, "d", tiled=True), **spec, out_specs=P("d")),
        "all-reduce": jax.shard_map(lambda b: lax.psum(b, "d"), **spec, out_specs=P()),
        "all-to-all": jax.shard_map(lambda b: lax.all_to_all(b, "d", 1, 0, tiled=True), **spec, out_specs=P("d")),
    }


@pytest.mark.parametrize("n", [2, 4, 8])
def test_each_collective_is_read_with_the_bytes_each_device_sends(n):
    mesh, programs = _programs(n)
    x = jax.device_put(jnp.ones((16 * n, 24 * n)), NamedSharding(mesh, P("d")))
    held = 16 * 24 * n * 4  # bytes of each device's piece of x
    expected = {
        "all-gather": n * held * (n - 1) / n,  # the gathered array, less the device's own piece
        "reduce-scatter": held * (n - 1) / n,
        "all-reduce": 2 * held * (n - 1) / n,
        "all-to-all": held * (n - 1) / n,
    }
    for kind, program in programs.items():
        found = ag.compiled_collectives(program, x)
        assert [c.kind for c in found] == [kind]
        assert found[0].group == n and found[0].axes == ("d",)
        assert ag.collective_bytes(program, x) == pytest.approx({kind: expected[kind]})


def test_hlo_text_in_its_other_forms_gives_groups_and_bytes():
    text = """HloModule m, num_partitions=8
  %a = bf16[4,8]{1,0} all-reduce(%p), channel_id=1, replica_groups=[2,4]<=[8], to_apply=%add
  %b = (f32[2]{0}, f32[2]{0}) all-to-all(%x, %y), replica_groups={{0,1},{2,3},{4,5},{6,7}}
  ROOT %c = f32[8]{0} all-gather(%q), channel_id=2, replica_groups={}, dimensions={0}
  %d = f32[3]{0} collective-permute(%r), source_target_pairs={{0,1},{1,0}}
"""
    found = hlo_collectives(text)
    assert found == [
        Collective("all-reduce", 64, 4),
        Collective("all-to-all", 16, 2),
        Collective("all-gather", 32, 8),
        Collective("collective-permute", 12, 8),
    ]
    assert [c.sent for c in found] == [2 * 64 * 3 / 4, 16 / 2, 32 * 7 / 8, 12]


def test_memory_and_cost_are_per_device():
    mesh = _mesh(8)
    w = jax.device_put(jnp.ones((64, 128)), NamedSharding(mesh, P("d")))
    memory = ag.memory_per_device(lambda w: w * 2, w)
    assert memory["argument"] == 64 * 128 * 4 // 8 and memory["output"] == 64 * 128 * 4 // 8
    a, b = jnp.ones((32, 64), jnp.bfloat16), jnp.ones((64, 16), jnp.bfloat16)
    assert ag.compiled_cost(jnp.matmul, a, b) == {"flops": 2 * 32 * 64 * 16, "bytes": 2 * (32 * 64 + 64 * 16 + 32 * 16)}


def test_check_collectives_names_what_the_program_has_and_lacks():
    mesh = _mesh(8, "model")
    w_in = jax.device_put(jnp.ones((16, 64)), NamedSharding(mesh, P(None, "model")))
    w_out = jax.device_put(jnp.ones((64, 16)), NamedSharding(mesh, P("model", None)))
    x = jnp.ones((4, 16))
    tensor_parallel = jax.jit(lambda x, a, b: (x @ a) @ b, out_shardings=NamedSharding(mesh, P()))
    ag.check_collectives(tensor_parallel, x, w_in, w_out, uses=["all-reduce"], counts={"all-reduce": 1},
                         not_uses=["all-gather"], works=ANY_VALUE)  # fmt: skip
    gathered = jax.jit(lambda x, a, b: (x @ lax.with_sharding_constraint(a, NamedSharding(mesh, P()))) @ b)
    with pytest.raises(ag.CheckFailed, match="compiles to 1 all-gather over 'model'.*communication its strategy"):
        ag.check_collectives(gathered, x, w_in, w_out, not_uses=["all-gather"], works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="no collective at all, with no reduce-scatter or all-reduce"):
        ag.check_collectives(lambda x: x * 2, x, uses=[("reduce-scatter", "all-reduce")], works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="1 all-reduces where its strategy needs exactly 2"):
        ag.check_collectives(tensor_parallel, x, w_in, w_out, counts={"all-reduce": 2}, works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="cannot be traced by JAX"):  # NumPy on the host
        ag.check_collectives(lambda x: jnp.asarray(np.asarray(x) * 2), x, works=ANY_VALUE)


def test_check_collectives_same_on_tells_moved_weights_from_moved_activations():
    mesh = _mesh(8)
    w = jax.device_put(jnp.ones((64, 32)), NamedSharding(mesh, P("d")))
    small, large = jnp.ones((16, 64)), jnp.ones((64, 64))
    split = NamedSharding(mesh, P("d"))
    # The batch split, the weight gathered: the same bytes move whatever the batch.
    gather_weight = jax.jit(lambda w, x: lax.with_sharding_constraint(x, split) @ lax.with_sharding_constraint(
        w, NamedSharding(mesh, P())), out_shardings=split)  # fmt: skip
    ag.check_collectives(gather_weight, w, small, uses=["all-gather"], same_on=((w, large), "16 rows", "64 rows"),
                         works=ANY_VALUE)  # fmt: skip
    # The weight kept split on its contracting dimension: partial products of the batch are summed.
    sum_activations = jax.jit(lambda w, x: x @ w, out_shardings=NamedSharding(mesh, P()))
    with pytest.raises(ag.CheckFailed, match=r"on 16 rows, and .* MiB on 64 rows: it moves data that grows with them"):
        ag.check_collectives(sum_activations, w, small, same_on=((w, large), "16 rows", "64 rows"), works=ANY_VALUE)


def test_check_collectives_confirms_the_values_first():
    def wrong(value):
        raise ag.CheckFailed("the values differ")

    with pytest.raises(ag.CheckFailed, match="the values differ"):
        ag.check_collectives(lambda x: x, jnp.ones(3), uses=["all-reduce"], works=wrong)


def test_check_memory_per_device_holds_a_bound_only_the_sharded_layout_meets():
    mesh = _mesh(8)
    full = jnp.ones((256, 256))
    sharded = jax.device_put(full, NamedSharding(mesh, P("d")))
    replicated = jax.device_put(full, NamedSharding(mesh, P()))
    bound = 2 * full.nbytes / 8 * 1.1
    ag.check_memory_per_device(lambda w: w - 1, sharded, at_most=bound, works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match=r"needs 0\.50 MiB per device \(argument 0\.25 MiB, output 0\.25 MiB"):
        ag.check_memory_per_device(lambda w: w - 1, replicated, at_most=bound, parts=("argument", "output"),
                                   works=ANY_VALUE)  # fmt: skip


def test_check_not_replicated():
    mesh = _mesh(8)
    split = {"w": jax.device_put(jnp.ones((16, 4)), NamedSharding(mesh, P("d"))), "count": jnp.zeros(())}
    ag.check_not_replicated(split, works=ANY_VALUE)
    whole = {**split, "b": jax.device_put(jnp.ones(16), NamedSharding(mesh, P()))}
    with pytest.raises(ag.CheckFailed, match=r"leaf \['b'\] of the parameters is whole on each of 8 devices"):
        ag.check_not_replicated(whole, what="the parameters", works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="whole on its one device"):
        ag.check_not_replicated(jnp.ones(16), works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="not a JAX array"):
        ag.check_not_replicated([np.ones(16)], works=ANY_VALUE)


def test_check_no_program_built_tells_a_prediction_from_a_compiler_reading():
    def predicted(m, k, n):
        return 2 * m * k * n

    def read(m, k, n):
        a, b = jax.ShapeDtypeStruct((m, k), jnp.float32), jax.ShapeDtypeStruct((k, n), jnp.float32)
        return jax.jit(jnp.matmul).lower(a, b).cost_analysis()["flops"]

    def predicted_with_jnp(m, k, n):
        return float(jnp.asarray(2.0) * m * k * n)

    for f in (predicted, predicted_with_jnp):
        ag.check_no_program_built(f, 8, 16, 32, warm_up=(4, 8, 16), works=ANY_VALUE)
    with pytest.raises(ag.CheckFailed, match="reads the figures from the compiler"):
        ag.check_no_program_built(read, 8, 16, 32, warm_up=(4, 8, 16), works=ANY_VALUE)


def test_a_program_that_moves_arrays_onto_one_device_is_refused():
    mesh = _mesh(8)
    w = jax.device_put(jnp.ones((16, 4)), NamedSharding(mesh, P("d")))

    def on_one_device(w):
        return jax.device_put(
            jax.jit(lambda a: a * 2)(jax.device_put(w, jax.devices()[0])), NamedSharding(mesh, P("d"))
        )

    with pytest.raises(ag.CheckFailed, match="moves arrays onto one device") as failure:
        ag.check_collectives(on_one_device, w, works=ANY_VALUE, section="16#Tensor parallel")
    assert "Try:" in str(failure.value) and "Reread: course/16_scaling.ipynb#Tensor-parallel" in str(failure.value)
    with pytest.raises(ag.CheckFailed, match="Reread: course/16_scaling.ipynb#A-model-to-scale"):
        ag.memory_per_device(on_one_device, w)
    gathered = jax.jit(lambda w: w * 2, out_shardings=NamedSharding(mesh, P()))  # a sharding, not a device
    ag.check_collectives(gathered, w, uses=["all-gather"], works=ANY_VALUE)


def test_check_figures_compares_numbers_within_a_tolerance_and_words_exactly():
    expected = {"flops": 2048.0, "bound": "memory", "batch": None}
    ag.check_figures({"flops": 2049, "bound": "memory", "batch": None}, expected, rtol=1e-3)
    with pytest.raises(ag.CheckFailed, match=r"\['flops'\] is 2100 where the compiler's figures give 2048"):
        ag.check_figures({"flops": 2100, "bound": "memory", "batch": None}, expected, what="f(...)")
    with pytest.raises(ag.CheckFailed, match=r"\['bound'\] is 'compute' where the compiler's figures give 'memory'"):
        ag.check_figures({"flops": 2048, "bound": "compute", "batch": None}, expected)
    with pytest.raises(ag.CheckFailed, match="should be a dict with keys"):
        ag.check_figures([2048], expected)
    with pytest.raises(ag.CheckFailed, match="is a str, not a number"):
        ag.check_figures("7", 7.0)
    with pytest.raises(ag.CheckFailed) as failure:
        ag.check_figures(3.0, 7.0, what="f on hidden shapes", hidden=True)
    assert "does not match the compiler's figure" in str(failure.value) and "7" not in str(failure.value).split("(")[0]


def test_check_figures_names_the_cause_of_a_known_mistake_and_no_other():
    causes = {"flops": [(1024.0, "a multiply-add counted as one flop")]}
    with pytest.raises(ag.CheckFailed, match=r"is 1024 where .*: a multiply-add counted as one flop"):
        ag.check_figures({"flops": 1024}, {"flops": 2048.0}, causes=causes)
    with pytest.raises(ag.CheckFailed, match=r"does not match .*: a multiply-add counted as one flop"):
        ag.check_figures({"flops": 1024}, {"flops": 2048.0}, causes=causes, hidden=True)
    with pytest.raises(ag.CheckFailed) as failure:
        ag.check_figures({"flops": 1000}, {"flops": 2048.0}, causes=causes)
    assert "multiply-add" not in str(failure.value)
