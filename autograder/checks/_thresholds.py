"""What the checks demand, by backend: required speedups and float tolerances (`thresholds.toml`)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import jax.numpy as jnp

from ._backend import BACKENDS, backend

THRESHOLDS_FILE = Path(__file__).parent / "thresholds.toml"


def load_thresholds(path: Path = THRESHOLDS_FILE) -> dict[str, dict[str, Any]]:
    """`{backend: {"speedup": {...}, "tolerance": {...}, "tolerance_floor": x}}`: defaults with overrides applied."""
    with open(path, "rb") as f:
        table = tomllib.load(f)
    merged = {}
    for on in BACKENDS:
        settings = {"speedup": dict(table["speedup"]), "tolerance": dict(table["tolerance"]), "tolerance_floor": 0.0}
        for key, value in table.get(on, {}).items():
            if isinstance(value, dict):
                settings[key].update(value)
            else:
                settings[key] = value
        merged[on] = settings
    return merged


# Read once, when the kernel first imports the checks, before any student cell runs.
_THRESHOLDS = load_thresholds()


def required_speedup(problem: str, on: str | None = None) -> float:
    """The speedup `problem` must reach on backend `on` (default: this one)."""
    on = on or backend()
    try:
        return float(_THRESHOLDS[on]["speedup"][problem])
    except KeyError:
        raise KeyError(f"thresholds.toml has no speedup for {problem!r} on {on}") from None


def tolerance(dtype: Any, on: str | None = None) -> tuple[float, float]:
    """`(rtol, atol)` for comparing values of `dtype` computed on backend `on`.

    Exact (0, 0) for integers and booleans; for floats, from the dtype's
    precision, widened to the backend's matmul precision.
    """
    # jnp's test knows bfloat16, which NumPy does not count as inexact.
    if not jnp.issubdtype(dtype, jnp.inexact):
        return 0.0, 0.0
    settings = _THRESHOLDS[on or backend()]
    name = jnp.finfo(dtype).dtype.name
    rtol, atol = settings["tolerance"].get(name, settings["tolerance"]["float32"])
    floor = settings["tolerance_floor"]
    return max(rtol, floor), max(atol, floor)
