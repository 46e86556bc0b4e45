"""Which kind of accelerator the checks run on."""

from __future__ import annotations

import jax

BACKENDS = ("cpu", "gpu", "tpu")


def backend() -> str:
    """The default backend as `"cpu"`, `"gpu"` or `"tpu"`.

    JAX reports CUDA and ROCm platforms as `"gpu"` already; anything unknown is
    treated as the nearest kind: a plugin that is not a TPU computes like a GPU.
    """
    name = jax.default_backend().lower()
    if name in BACKENDS:
        return name
    if name in ("cuda", "rocm", "metal"):
        return "gpu"
    return "cpu" if "cpu" in name else "gpu"
