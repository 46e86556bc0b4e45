"""The classic mistakes a wrong result shows (`_symptoms`), as `check_close` names them."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograder as ag
from autograder.checks._errors import ANY_TRY
from autograder.checks._symptoms import dtype_symptom, x64_twins

pytestmark = pytest.mark.unit

WANT = jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]])


def _message(got, want, **kw) -> str:
    with pytest.raises(ag.CheckFailed) as failed:
        ag.check_close(got, want, what="columns(W, X)", section="05#in_axes and out_axes", **kw)
    return str(failed.value)


def test_a_transposed_shape_names_the_swapped_axes():
    message = _message(WANT.T, WANT)
    assert "has shape (3, 2), expected (2, 3): the result is the transpose" in message
    assert "in_axes" in message and "Reread: course/05_vmap.ipynb#in_axes-and-out_axes" in message


def test_a_transposed_square_result_is_named_by_its_values():
    square = jnp.array([[1.0, 2.0], [3.0, 4.0]])
    assert "last two axes swapped" in _message(square.T, square)


def test_a_result_a_device_count_times_too_big_is_a_sum_over_devices():
    message = _message(WANT * jax.device_count(), WANT) if jax.device_count() > 1 else "pmean"
    assert "pmean" in message


def test_a_whole_multiple_of_the_expected_is_a_sum_for_a_mean_but_twice_is_not_named():
    times = jax.device_count() + 3
    assert f"exactly {times} times the expected values" in _message(WANT * times, WANT)
    assert "exactly 1/5 of the expected values" in _message(WANT / 5, WANT)
    assert f"Try: {ANY_TRY}" in _message(WANT * 2, WANT)  # a missing factor of 2 is as likely: no mistake named


def test_elements_where_a_fill_value_was_expected_are_a_clamped_index():
    x = jnp.array([10.0, 20.0, 30.0])
    message = _message(x[jnp.array([0, 2, 3, -1])], jnp.array([10.0, 30.0, -1.0, -1.0]))
    assert "clamps" in message and "jnp.where(valid" in message
    assert "clamps" not in _message(jnp.array([10.0, 30.0, 0.0, 0.0]), jnp.array([10.0, 30.0, -1.0, -1.0]))
    # One count off (a repeated bin written once) is no clamp.
    assert "clamps" not in _message(jnp.array([1, 1, 1]), jnp.array([1, 1, 2]))
    # One place wrong where the fill value is also expected elsewhere (a negative index that wraps) is a clamp.
    assert "clamps" in _message(jnp.array([10.0, 30.0, -1.0, 30.0]), jnp.array([10.0, 30.0, -1.0, -1.0]))


def test_float64_is_told_apart_numpy_from_x64():
    assert "NumPy computed it" in _message(np.asarray(WANT, np.float64), WANT)
    with jax.enable_x64(True):
        wide, whole = jnp.asarray(WANT, jnp.float64), jnp.arange(3)
    for leaf, narrow in ((wide, np.float32), (whole, np.int32)):
        mistake = dtype_symptom(leaf, np.dtype(leaf.dtype), np.dtype(narrow))
        assert mistake is not None and "jax_enable_x64 is on" in mistake.cause and "NumPy" not in mistake.cause
    assert x64_twins(wide, WANT, np.dtype(np.float64), np.dtype(np.float32)) == np.float32
    # A NumPy float64 is NumPy doing the work, and float32 against int32 no setting's doing.
    assert x64_twins(np.asarray(WANT, np.float64), WANT, np.dtype(np.float64), np.dtype(np.float32)) is None
    assert x64_twins(WANT, whole, np.dtype(np.float32), np.dtype(np.int32)) is None


def test_one_number_a_whole_multiple_of_the_expected_is_not_called_a_sum_for_a_mean():
    # Set 04's unmasked padding: 54 where 2 is expected, 27 times by chance, not a sum over a batch.
    message = _message(jnp.float32(54.0), jnp.float32(2.0))
    assert "So " not in message and f"Try: {ANY_TRY}" in message


def test_an_ordinary_difference_names_no_mistake():
    message = _message(WANT.at[0, 1].add(0.5), WANT)
    assert "So " not in message and f"Try: {ANY_TRY}" in message


def test_a_wrong_structure_shows_what_the_test_knows_of_it():
    # A gradient of the wrong arguments (argnums) shows as a wrong structure: the test's hint names them.
    message = _message(WANT, (WANT, WANT), hint="take both gradients at once: jax.grad(f, argnums=(0, 1)).")
    assert "wrong structure" in message and "Try: return exactly the containers" in message
    assert "argnums=(0, 1)" in message


def test_integer_results_name_their_mistake_too():
    x = jnp.array([10, 20, 30])
    assert "clamps" in _message(x[jnp.array([0, 2, 3, -1])], jnp.array([10, 30, -1, -1]))
    counts = jnp.array([[1, 2, 0], [4, 0, 6]])
    assert "the transpose" in _message(counts.T, counts) or "swapped" in _message(counts.T, counts)
