"""Inputs the student never saw: drawn from a seed the grader sets."""

from __future__ import annotations

import hashlib

import jax
import numpy as np

from .._config import grader_seed


def _mix(problem: str) -> int:
    digest = hashlib.sha256(f"{grader_seed()}/{problem}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def grader_rng(problem: str) -> np.random.Generator:
    """A NumPy generator for one problem's hidden inputs, the same on every run."""
    return np.random.default_rng(_mix(problem))


def grader_key(problem: str) -> jax.Array:
    """A typed JAX PRNG key for one problem's hidden inputs."""
    return jax.random.key(_mix(problem) % (2**31))
