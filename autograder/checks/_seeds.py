"""Inputs the student never saw: drawn from a seed the grader sets."""

from __future__ import annotations

import hashlib
import os

import jax
import numpy as np

SEED_VARIABLE = "JAXCOURSE_GRADER_SEED"
# The course's default seed. An instructor who wants inputs students cannot
# reproduce sets JAXCOURSE_GRADER_SEED on the grading machine and re-records the
# references there (`jax-course references`).
DEFAULT_SEED = 20261122


def grader_seed() -> int:
    """The seed hidden tests draw from: `$JAXCOURSE_GRADER_SEED` or the course default."""
    value = os.environ.get(SEED_VARIABLE, "").strip()
    if not value:
        return DEFAULT_SEED
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{SEED_VARIABLE} must be a whole number, got {value!r}") from None


def _mix(problem: str) -> int:
    digest = hashlib.sha256(f"{grader_seed()}/{problem}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def grader_rng(problem: str) -> np.random.Generator:
    """A NumPy generator for one problem's hidden inputs, the same on every run."""
    return np.random.default_rng(_mix(problem))


def grader_key(problem: str) -> jax.Array:
    """A typed JAX PRNG key for one problem's hidden inputs."""
    return jax.random.key(_mix(problem) % (2**31))
