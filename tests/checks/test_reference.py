"""Stored reference outputs: saved, loaded, compared, and never switched into recording by student code."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograder as ag
from autograder._config import RECORD_REFERENCES, REFERENCES
from autograder.checks import _reference

pytestmark = pytest.mark.unit


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
    monkeypatch.setenv(REFERENCES, str(tmp_path))
    ag.save_reference("demo/out", {"y": jnp.array([1.0, 2.0])}, tmp_path)
    ag.check_reference({"y": jnp.array([1.0, 2.0])}, "demo/out")
    with pytest.raises(ag.CheckFailed, match=r"leaf \['y'\] of result differs"):
        ag.check_reference({"y": jnp.array([1.0, 2.5])}, "demo/out", what="result")
    with pytest.raises(ag.CheckFailed, match="wrong structure"):
        ag.check_reference(jnp.array([1.0, 2.0]), "demo/out", what="result")
    with pytest.raises(ag.CheckFailed, match=r"(?s)differs.*Try: chain them in this order"):
        ag.check_reference({"y": jnp.array([1.0, 2.5])}, "demo/out", what="result", hint="chain them in this order")
    # The test's hint stays when the containers or a shape are wrong too: it knows how the result is made.
    with pytest.raises(ag.CheckFailed, match=r"(?s)wrong structure.*Try: return exactly.*chain them in this order"):
        ag.check_reference(jnp.array([1.0, 2.0]), "demo/out", what="result", hint="chain them in this order")
    with pytest.raises(ag.CheckFailed, match=r"(?s)has shape \(3,\), expected \(2,\).*Try: chain them in this order"):
        ag.check_reference({"y": jnp.ones(3)}, "demo/out", what="result", hint="chain them in this order")


def test_a_dtype_that_is_the_problems_point_is_held_against_jax_enable_x64(tmp_path, monkeypatch):
    monkeypatch.setenv(REFERENCES, str(tmp_path))
    ag.save_reference("demo/out", jnp.array([1.0, 2.0]), tmp_path)
    with jax.enable_x64(True):
        wide = jnp.array([1.0, 2.0])
    ag.check_reference(wide, "demo/out")  # the values are right, and the dtype is not this problem's point
    with pytest.raises(ag.CheckFailed, match=r"(?s)float64, expected float32: .*jax_enable_x64 is on.*Try: .*Reread"):
        ag.check_reference(wide, "demo/out", exact_dtype=True)


def test_references_recorded_under_another_seed_are_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(REFERENCES, str(tmp_path))
    ag.save_reference("demo/out", jnp.zeros(2), tmp_path)
    monkeypatch.setenv("JAXCOURSE_GRADER_SEED", "7")
    with pytest.raises(RuntimeError, match="re-record"):
        ag.check_reference(jnp.zeros(2), "demo/out")


def test_missing_reference_tells_the_instructor_what_to_run(tmp_path, monkeypatch):
    monkeypatch.setenv(REFERENCES, str(tmp_path))
    with pytest.raises(FileNotFoundError, match="jax-course references"):
        ag.check_reference(jnp.zeros(2), "demo/none")


def test_recording_is_decided_at_import_not_by_later_student_code(monkeypatch):
    assert not _reference.recording()
    monkeypatch.setenv(RECORD_REFERENCES, "/tmp/anywhere")
    assert not _reference.recording()


def test_the_same_value_saved_at_another_time_gives_the_same_bytes(tmp_path, monkeypatch):
    import time

    value = {"a": jnp.arange(3.0), "b": [jnp.int32(4), 2.5]}
    first = ag.save_reference("demo/thing", value, tmp_path).read_bytes()
    monkeypatch.setattr(time, "time", lambda: 2_000_000_000.0)  # years on: a zip member dated now would differ
    assert ag.save_reference("demo/thing", value, tmp_path).read_bytes() == first


def test_recording_again_keeps_a_stored_file_its_check_takes_the_value_for(tmp_path, monkeypatch):
    stored, into = tmp_path / "stored", tmp_path / "into"
    values = np.array([1.0, 2.0, 3.0], np.float32)
    # Stored with its last bit off: what another machine's rounding gives.
    kept = ag.save_reference("demo/out", {"y": np.nextafter(values, np.float32(4))}, stored).read_bytes()
    ag.save_reference("demo/count", np.int64(5), stored)
    ag.save_reference("demo/wide", values, stored)
    monkeypatch.setenv(REFERENCES, str(stored))

    assert _reference.record_reference("demo/out", {"y": jnp.asarray(values)}, into).read_bytes() == kept
    # Within tolerance only with the rounding the inputs carry (check_reference's `inputs`).
    moved = values + np.float32(1e-3)
    assert _reference.record_reference("demo/out", {"y": moved}, into, inputs=np.float32(1e4)).read_bytes() == kept

    def recorded_anew(problem, value):
        recorded = _reference.record_reference(problem, value, into).read_bytes()
        return recorded == ag.save_reference(problem, value, tmp_path / "fresh").read_bytes()

    assert recorded_anew("demo/out", {"y": moved})  # without the inputs' rounding: changed
    assert recorded_anew("demo/out", {"y": values + np.float32(0.5)})
    assert recorded_anew("demo/out", {"z": values})  # another structure
    assert recorded_anew("demo/count", np.int64(6))  # an integer, compared exactly
    assert recorded_anew("demo/wide", values.astype(np.float64))  # a dtype the check would forgive
    assert recorded_anew("demo/new", values)  # nothing stored before
    monkeypatch.setenv("JAXCOURSE_GRADER_SEED", "7")
    assert recorded_anew("demo/out", {"y": values})  # the same values, drawn with another seed
