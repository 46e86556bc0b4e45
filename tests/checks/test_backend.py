"""JAX's platform names map to the three kinds of backend the thresholds know."""

from __future__ import annotations

import jax
import pytest

import autograder as ag

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "platform, kind", [("cpu", "cpu"), ("gpu", "gpu"), ("cuda", "gpu"), ("rocm", "gpu"), ("tpu", "tpu")]
)
def test_backend_names(monkeypatch, platform, kind):
    monkeypatch.setattr(jax, "default_backend", lambda: platform)
    assert ag.backend() == kind
