"""Reference outputs: comparison, messages, tolerances, and the stored data files."""

from __future__ import annotations


import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograder as ag
from autograder import _reference
from conftest import ASSIGNMENTS, ROOT, VENV_BIN, run


def test_matching_pytree_passes():
    tree = {"w": jnp.ones((2, 3)), "b": (jnp.zeros(3), jnp.arange(3))}
    ag.check_close(jax.tree.map(lambda x: x + 0, tree), tree)


def test_value_difference_names_leaf_index_and_size():
    expected = {"w": jnp.zeros((2, 3)), "b": jnp.zeros(3)}
    actual = {"w": jnp.zeros((2, 3)).at[1, 2].set(0.5), "b": jnp.zeros(3)}
    with pytest.raises(ag.CheckFailed) as error:
        ag.check_close(actual, expected, what="params", section="02#Functional state updates")
    message = str(error.value)
    assert "params['w']" in message
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


def test_structure_mismatch_names_missing_and_extra_leaves():
    with pytest.raises(ag.CheckFailed, match=r"missing params\['b'\].*unexpected params\['bias'\]"):
        ag.check_close({"w": jnp.zeros(1), "bias": jnp.zeros(1)}, {"w": jnp.zeros(1), "b": jnp.zeros(1)}, what="params")


def test_nan_where_a_number_is_expected_is_named():
    with pytest.raises(ag.CheckFailed, match="is nan at index"):
        ag.check_close(jnp.array([0.5, jnp.nan]), jnp.array([0.5, 0.5]))


def test_matching_nan_and_inf_pass_but_wrong_sign_of_inf_fails():
    ag.check_close(jnp.array([jnp.nan, jnp.inf]), jnp.array([jnp.nan, jnp.inf]))
    with pytest.raises(ag.CheckFailed):
        ag.check_close(jnp.array([-jnp.inf]), jnp.array([jnp.inf]))


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


@pytest.mark.parametrize(
    "dtype, on, rtol",
    [(jnp.float32, "cpu", 1e-5), (jnp.float32, "gpu", 2e-3), (jnp.float32, "tpu", 2e-2), (jnp.bfloat16, "cpu", 2e-2), (jnp.int32, "tpu", 0.0)],
)
def test_tolerance_follows_dtype_and_backend(dtype, on, rtol):
    assert ag.tolerance(dtype, on)[0] == rtol


def test_tpu_tolerance_accepts_bfloat16_matmul_error(monkeypatch):
    # What a TPU's default-precision float32 matmul does: bfloat16 inputs.
    a = jax.random.normal(jax.random.key(0), (64, 64))
    exact = a @ a
    reduced = (a.astype(jnp.bfloat16) @ a.astype(jnp.bfloat16)).astype(jnp.float32)
    with pytest.raises(ag.CheckFailed):
        ag.check_close(reduced, exact)
    monkeypatch.setattr(jax, "default_backend", lambda: "tpu")
    ag.check_close(reduced, exact)


def test_save_and_load_round_trip(tmp_path):
    value = {"a": jnp.arange(3.0), "b": [jnp.int32(4), 2.5]}
    ag.save_reference("demo/thing", value, tmp_path)
    leaves, kinds, meta = ag.load_reference("demo/thing", tmp_path)
    assert meta["paths"] == ["['a']", "['b'][0]", "['b'][1]"]
    assert kinds == ["array", "array", "python"]
    np.testing.assert_array_equal(leaves[0], np.arange(3.0, dtype=np.float32))


def test_problem_ids_cannot_escape_the_folder(tmp_path):
    with pytest.raises(ValueError):
        ag.save_reference("../outside", jnp.zeros(1), tmp_path)


def test_check_reference_compares_with_the_stored_file(tmp_path, monkeypatch):
    monkeypatch.setenv(_reference.REFERENCES_VARIABLE, str(tmp_path))
    ag.save_reference("demo/out", {"y": jnp.array([1.0, 2.0])}, tmp_path)
    ag.check_reference({"y": jnp.array([1.0, 2.0])}, "demo/out")
    with pytest.raises(ag.CheckFailed, match=r"result\['y'\] differs"):
        ag.check_reference({"y": jnp.array([1.0, 2.5])}, "demo/out", what="result")
    with pytest.raises(ag.CheckFailed, match="wrong structure"):
        ag.check_reference(jnp.array([1.0, 2.0]), "demo/out", what="result")


def test_references_recorded_under_another_seed_are_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(_reference.REFERENCES_VARIABLE, str(tmp_path))
    ag.save_reference("demo/out", jnp.zeros(2), tmp_path)
    monkeypatch.setenv("JAXCOURSE_GRADER_SEED", "7")
    with pytest.raises(RuntimeError, match="re-record"):
        ag.check_reference(jnp.zeros(2), "demo/out")


def test_missing_reference_tells_the_instructor_what_to_run(tmp_path, monkeypatch):
    monkeypatch.setenv(_reference.REFERENCES_VARIABLE, str(tmp_path))
    with pytest.raises(FileNotFoundError, match="jax-course references"):
        ag.check_reference(jnp.zeros(2), "demo/none")


def test_recording_is_decided_at_import_not_by_later_student_code(monkeypatch):
    assert not _reference.recording()
    monkeypatch.setenv(_reference.RECORD_VARIABLE, "/tmp/anywhere")
    assert not _reference.recording()


def test_stored_references_match_the_solutions(tmp_path):
    """Re-record every reference from solutions/ and compare with the committed files."""
    run(VENV_BIN / "jax-course", "references", "--into", str(tmp_path), cwd=ROOT)
    for assignment in ASSIGNMENTS:
        committed = sorted(p.name for p in (ROOT / "autograder" / "references" / assignment).glob("*.npz"))
        fresh = sorted(p.name for p in (tmp_path / assignment).glob("*.npz"))
        assert committed == fresh, f"{assignment}: run `make references`"
        for name in committed:
            problem = f"{assignment}/{name[:-4]}"
            old, _, old_meta = ag.load_reference(problem, ROOT / "autograder" / "references")
            new, _, new_meta = ag.load_reference(problem, tmp_path)
            assert old_meta == new_meta, problem
            ag.check_close(new, old, what=problem)
