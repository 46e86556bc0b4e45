"""The classic mistakes (`_mistakes`) that a wrong result shows in its shape, dtype or values."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._mistakes import SYMPTOMS, Mistake


def shape_symptom(got: tuple[int, ...], want: tuple[int, ...]) -> Mistake | None:
    """Two axes swapped: the expected shape, reversed."""
    return SYMPTOMS["transposed"] if len(got) >= 2 and got != want and got == want[::-1] else None


# The 64-bit width of each dtype whose 32-bit width is JAX's default: only jax_enable_x64 makes a jax.Array of one.
X64_TWINS = {
    np.dtype(np.float64): np.dtype(np.float32),
    np.dtype(np.int64): np.dtype(np.int32),
    np.dtype(np.uint64): np.dtype(np.uint32),
    np.dtype(np.complex128): np.dtype(np.complex64),
}


def x64_twins(got_leaf: Any, want_leaf: Any, got: np.dtype, want: np.dtype) -> np.dtype | None:
    """The 32-bit dtype, when `got` and `want` are its two widths and the 64-bit one is a jax.Array: a difference
    that only jax_enable_x64 makes (a NumPy float64 is NumPy doing the work, not a setting)."""
    import jax

    for wide, narrow, leaf in ((got, want, got_leaf), (want, got, want_leaf)):
        if narrowed(wide) == str(np.dtype(narrow)) and isinstance(leaf, jax.Array):
            return np.dtype(narrow)
    return None


def narrowed(dtype: np.dtype) -> str:
    """The 32-bit twin's name of a 64-bit dtype, else empty."""
    # A name, not a dtype: NumPy reads `None == dtype` as `dtype("float64") == dtype`.
    return str(X64_TWINS.get(np.dtype(dtype), ""))


def dtype_symptom(leaf: Any, got: np.dtype, want: np.dtype) -> Mistake | None:
    """64-bit where 32-bit is expected: NumPy did the work (float64), or jax_enable_x64 is on."""
    import jax

    if isinstance(leaf, jax.Array) and narrowed(got) == str(want):
        return SYMPTOMS["x64"]
    if got != np.float64 or want != np.float32:
        return None
    return SYMPTOMS["numpy"]


def _ratio(got: np.ndarray, want: np.ndarray, scale: float) -> float | None:
    """The one factor that takes `want` to `got` everywhere (None if there is none)."""
    sized = np.abs(want) > 1e-6 * scale
    if not sized.any() or np.any(np.abs(got[~sized]) > 1e-5 * scale):
        return None
    with np.errstate(all="ignore"):  # an inf or NaN expected: no factor, and no warning in the student's cell
        ratios = got[sized] / want[sized]
    first = ratios.flat[0]
    return float(first.real) if np.allclose(ratios, first, rtol=1e-4) and np.isreal(first) else None


def value_symptom(got: np.ndarray, want: np.ndarray, bad: np.ndarray, scale: float) -> tuple[Mistake, str] | None:
    """The mistake a wrong float result shows, and how it shows it (words that give no expected value away)."""
    if got.ndim >= 2 and got.shape[-1] == got.shape[-2] and np.allclose(np.swapaxes(got, -1, -2), want, rtol=1e-4):
        return SYMPTOMS["transposed"], "It equals the expected result with its last two axes swapped."
    ratio = _ratio(got, want, scale)
    if ratio is not None and abs(ratio) > 1e-12:
        times = round(ratio) if abs(ratio) >= 1 else round(1 / ratio)
        exact = times >= 2 and np.isclose(ratio if abs(ratio) >= 1 else 1 / ratio, times, rtol=1e-4)
        if exact:
            import jax

            devices = times == jax.device_count() and times > 1
            if not devices and times < 3:  # twice or half is as often a missing factor as a sum for a mean
                return None
            if not devices and np.count_nonzero(np.abs(want) > 1e-6 * scale) < 2:
                return None  # one wrong number a whole multiple of the right one is as often chance
            how = f"{times} times the expected values" if ratio > 1 else f"1/{times} of the expected values"
            return SYMPTOMS["devices" if devices else "batch"], f"It is exactly {how} at every position."
    wanted = want[bad]
    if bad.all() or not np.all(wanted == wanted.flat[0]) or np.any(got[bad] == wanted.flat[0]):
        return None
    # A fill value is expected at two or more places (one wrong count alone is as often a miscount as a clamp).
    if np.count_nonzero(want == wanted.flat[0]) < 2:
        return None
    if np.all(np.isin(got[bad], got[~bad])):
        return SYMPTOMS["clamped"], "Where one fill value is expected, it holds values that appear elsewhere in it."
    return None
