"""Thresholds and tolerances follow the backend; every timed problem has a threshold."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import nbformat
import pytest

import autograder as ag
from autograder.checks import _thresholds

from support import ASSIGNMENTS, ROOT

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "dtype, on, rtol",
    [
        (jnp.float32, "cpu", 1e-5),
        (jnp.float32, "gpu", 2e-3),
        (jnp.float32, "tpu", 2e-2),
        (jnp.bfloat16, "cpu", 2e-2),
        (jnp.int32, "tpu", 0.0),
    ],
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


def test_backend_tables_override_only_what_they_name(monkeypatch, tmp_path):
    table = tmp_path / "thresholds.toml"
    table.write_text(
        '[speedup]\n"a/b" = 5.0\n"a/c" = 2.0\n[tolerance]\nfloat32 = [1e-5, 1e-6]\n'
        '[gpu]\ntolerance_floor = 2e-3\n[gpu.speedup]\n"a/b" = 8.0\n'
    )
    monkeypatch.setattr(_thresholds, "_THRESHOLDS", _thresholds.load_thresholds(table))
    for platform, ratio in [("cpu", 5.0), ("cuda", 8.0), ("tpu", 5.0)]:
        monkeypatch.setattr(jax, "default_backend", lambda platform=platform: platform)
        assert ag.required_speedup("a/b") == ratio
        assert ag.required_speedup("a/c") == 2.0
    assert ag.tolerance(jnp.float32, on="gpu") == (2e-3, 2e-3)
    assert ag.tolerance(jnp.float32, on="cpu") == (1e-5, 1e-6)


def test_every_timed_problem_has_a_threshold_on_every_backend():
    used = set()
    for assignment in ASSIGNMENTS:
        nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
        text = "\n".join(cell.source for cell in nb.cells)
        used |= set(re.findall(r'check_speedup\([^"]*?"([\w/]+)"', text))
    assert used, "no timed problems found"
    table = _thresholds.load_thresholds()
    for backend in ("cpu", "gpu", "tpu"):
        assert set(table[backend]["speedup"]) == used, backend
