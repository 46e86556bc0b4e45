"""`check_close`: structure, then shape and dtype of each leaf, then values, with messages that say what differs."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograder as ag

pytestmark = pytest.mark.unit


def test_matching_pytree_passes():
    tree = {"w": jnp.ones((2, 3)), "b": (jnp.zeros(3), jnp.arange(3))}
    ag.check_close(jax.tree.map(lambda x: x + 0, tree), tree)


def test_value_difference_names_leaf_index_and_size():
    expected = {"w": jnp.zeros((2, 3)), "b": jnp.zeros(3)}
    actual = {"w": jnp.zeros((2, 3)).at[1, 2].set(0.5), "b": jnp.zeros(3)}
    with pytest.raises(ag.CheckFailed) as error:
        ag.check_close(actual, expected, what="params", section="02#Functional state updates")
    message = str(error.value)
    assert "leaf ['w'] of params differs" in message
    assert "(1, 2)" in message and "got 0.5" in message and "expected 0" in message
    assert "1 of 6 positions" in message
    assert "relative for float32 on" in message  # the dtype compared, not the one widened to
    assert "course/02_immutability.ipynb#Functional-state-updates" in message


def test_shape_mismatch_says_both_shapes():
    with pytest.raises(ag.CheckFailed, match=r"shape \(3,\), expected \(3, 1\)"):
        ag.check_close(jnp.zeros(3), jnp.zeros((3, 1)))


def test_dtype_mismatch_explains_numpy_float64():
    with pytest.raises(ag.CheckFailed, match="(?s)float64, expected float32.*NumPy"):
        ag.check_close(np.zeros(3), jnp.zeros(3))


def test_a_64_bit_result_of_jax_enable_x64_is_compared_by_value_at_the_32_bit_tolerance():
    with jax.enable_x64(True):
        wide, literal, whole = jnp.arange(3.0) / 3, jnp.array([0.0, 1.0, 2.0]) / 3, jnp.arange(3)
        off = wide * (1 + 1e-4)
    narrow = jnp.arange(3.0, dtype=jnp.float32) / 3
    ag.check_close(wide, narrow)  # float64 for float32: the setting's doing, right values
    ag.check_close(narrow, literal)  # a test's literal made float64 by the setting
    ag.check_close(whole, jnp.arange(3))
    # The wider dtype loosens nothing: off by 1e-4, as in float32, fails (float64's own tolerance is tighter).
    with pytest.raises(ag.CheckFailed, match="relative for float32"):
        ag.check_close(off, narrow)
    with pytest.raises(ag.CheckFailed, match="int64, expected int32"):
        ag.check_close(np.arange(3), jnp.arange(3))  # NumPy's int64 is no setting's doing


def test_structure_mismatch_names_missing_and_extra_leaves():
    with pytest.raises(ag.CheckFailed, match=r"missing leaf \['b'\] of params.*unexpected leaf \['bias'\] of params"):
        ag.check_close({"w": jnp.zeros(1), "bias": jnp.zeros(1)}, {"w": jnp.zeros(1), "b": jnp.zeros(1)}, what="params")


def test_nan_where_a_number_is_expected_is_named():
    with pytest.raises(ag.CheckFailed, match="is nan at index"):
        ag.check_close(jnp.array([0.5, jnp.nan]), jnp.array([0.5, 0.5]))


@pytest.mark.filterwarnings("error")  # what the check computes prints nothing in the student's cell
@pytest.mark.parametrize(
    "got, expected, says",
    [
        ([-jnp.inf], [jnp.inf], "is -inf at index (0,) where inf is expected"),
        ([jnp.nan, 0.0], [jnp.inf, 0.0], "is nan at index (0,) where inf is expected (1 of 2"),
        ([1.0, 0.0], [jnp.nan, 1.0], "is 1 at index (0,) where nan is expected (2 of 2"),
        ([jnp.inf, 1.0], [jnp.inf, 2.0], "differs from the expected values at 1 of 2 positions; first at index (1,)"),
    ],
)
def test_matching_nan_and_inf_pass_but_any_other_value_where_one_is_expected_is_named(got, expected, says):
    ag.check_close(jnp.array([jnp.nan, jnp.inf, -jnp.inf]), jnp.array([jnp.nan, jnp.inf, -jnp.inf]))
    with pytest.raises(ag.CheckFailed) as failed:
        ag.check_close(jnp.array(got), jnp.array(expected))
    assert says in str(failed.value)


def test_integers_compare_exactly():
    ag.check_close(jnp.array([1, 2]), jnp.array([1, 2]))
    with pytest.raises(ag.CheckFailed, match="first at index \\(1,\\)"):
        ag.check_close(jnp.array([1, 3]), jnp.array([1, 2]))


def test_float32_tolerance_accepts_rounding_and_rejects_real_errors():
    expected = jnp.linspace(1.0, 100.0, 50)
    ag.check_close(expected * (1 + 3e-7), expected)
    with pytest.raises(ag.CheckFailed):
        ag.check_close(expected * (1 + 1e-3), expected)


def test_an_object_that_claims_equality_is_still_compared_by_value():
    class Liar:
        def __eq__(self, other):
            return True

    with pytest.raises(ag.CheckFailed, match="not numbers|not an array"):
        ag.check_close(Liar(), jnp.zeros(3))


def test_inputs_of_large_magnitude_allow_the_rounding_they_carry():
    """A softmax through logsumexp at inputs of 1000 is off by ~1.5e-5: the inputs' rounding, not a mistake."""
    big = jnp.array([1000.0, 1000.0])
    through_logsumexp = jnp.exp(big - jax.scipy.special.logsumexp(big))
    with pytest.raises(ag.CheckFailed):
        ag.check_close(through_logsumexp, jnp.array([0.5, 0.5]))
    ag.check_close(through_logsumexp, jnp.array([0.5, 0.5]), inputs=big)
    with pytest.raises(ag.CheckFailed, match="that the inputs' own rounding carries"):
        ag.check_close(through_logsumexp + 1e-3, jnp.array([0.5, 0.5]), inputs={"x": big})


def test_integer_and_small_inputs_add_no_allowance():
    small = jnp.array([1.0, 2.0])
    with pytest.raises(ag.CheckFailed):
        ag.check_close(jnp.array([0.5 + 1e-4]), jnp.array([0.5]), inputs=small)
    with pytest.raises(ag.CheckFailed):
        ag.check_close(jnp.array([0.5 + 1e-4]), jnp.array([0.5]), inputs=jnp.array([10**6]))


def test_a_hint_says_what_to_try_when_values_differ():
    hint = "keep each value with probability 1 - rate"
    with pytest.raises(ag.CheckFailed, match=r"(?s)differs from the expected values.*\nTry: keep each value"):
        ag.check_close(jnp.array([1.0, 2.0]), jnp.array([1.0, 3.0]), hint=hint)
    with pytest.raises(ag.CheckFailed, match=r"(?s)differs at 1 of 2 positions.*\nTry: keep each value"):
        ag.check_close(jnp.array([1, 2]), jnp.array([1, 3]), hint=hint)


def test_the_tests_hint_is_kept_when_the_shape_or_structure_is_wrong():
    # A matmul where a vmap was asked: words about reduced axes and keepdims would send the learner the wrong way.
    hint = "nest two jax.vmap calls instead of looping over rows"
    with pytest.raises(ag.CheckFailed, match=r"has shape \(3,\), expected \(2,\)\.\nTry: nest two jax.vmap") as shape:
        ag.check_close(jnp.ones(3), jnp.ones(2), hint=hint)
    assert "keepdims" not in str(shape.value)
    with pytest.raises(ag.CheckFailed, match="Try: check which axis you reduce over"):
        ag.check_close(jnp.ones(3), jnp.ones(2))  # no hint of the test's: the generic one
    transposed = r"(?s)expected \(2, 3\).*Try: check which axis of each argument vmap maps.*nest two jax.vmap"
    with pytest.raises(ag.CheckFailed, match=transposed):
        ag.check_close(jnp.ones((3, 2)), jnp.ones((2, 3)), hint=hint)  # what the shape shows, then the test's hint
    with pytest.raises(ag.CheckFailed, match=r"wrong structure(?s:.*)Try: return exactly the containers.*nest two"):
        ag.check_close((jnp.ones(2),), (jnp.ones(2), jnp.ones(2)), hint=hint)


def test_a_hint_named_by_key_shows_its_stored_words():
    from autograder.checks._hints import stored

    with pytest.raises(ag.CheckFailed) as failure:
        ag.check_close(jnp.ones(3), jnp.ones(2), hint="@05_vmap/pairwise.nest_jax_vmap")
    assert f"Try: {stored('05_vmap')['pairwise.nest_jax_vmap']}" in str(failure.value)
    assert "@05_vmap" not in str(failure.value)


def test_a_value_that_differs_with_matmul_precision_lowered_names_the_setting_where_the_backend_heeds_it(monkeypatch):
    import autograder.checks._compare as compare

    got, want = jnp.array([1.0, 2.0]), jnp.array([1.0, 2.5])
    with jax.default_matmul_precision("bfloat16"):
        with pytest.raises(ag.CheckFailed) as on_cpu:
            ag.check_close(got, want)
        assert "jax_default_matmul_precision" not in str(on_cpu.value)  # this CPU heeds it not: no lead to follow
        monkeypatch.setattr(compare, "backend", lambda: "gpu")
        with pytest.raises(ag.CheckFailed) as on_gpu:
            ag.check_close(got, want, hint="add the bias")
    said = str(on_gpu.value)
    assert "jax_default_matmul_precision is set to a reduced precision" in said and "Here it is 'bfloat16'" in said
    assert (
        "Try: set it back" in said and "add the bias" in said and "Reread: course/13_debugging.ipynb#Precision" in said
    )
    with pytest.raises(ag.CheckFailed) as unset:
        ag.check_close(got, want)
    assert "jax_default_matmul_precision" not in str(unset.value)


def test_a_wrong_structure_shows_each_leaf_s_dtype_and_shape_in_one_line():
    pair = (jnp.ones(3), jnp.ones(3))
    with pytest.raises(ag.CheckFailed, match=r"expected \(float32\[3\], float32\[3\]\), got float32\[3\] \(missing"):
        ag.check_close(jnp.ones(3), pair, what="grads")
    with pytest.raises(ag.CheckFailed, match=r"got \(float32\[\], float32\[\], float32\[\]\)"):
        ag.check_close(tuple(jnp.ones(3)), pair, what="grads")

    class Layer:  # a custom node whose repr would run to many lines
        def __init__(self, w):
            self.w = w

        def __repr__(self):
            return "Layer(\n" + "\n".join(["  ..."] * 30) + "\n)"

    jax.tree_util.register_pytree_node(Layer, lambda layer: ((layer.w,), None), lambda _, ws: Layer(*ws))
    with pytest.raises(ag.CheckFailed) as failed:
        ag.check_close(Layer(jnp.ones((2, 3))), pair, what="the model")
    first = str(failed.value).splitlines()[0]
    assert "got a Layer holding (float32[2,3])" in first
