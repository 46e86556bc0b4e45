"""Compare a student's pytree of arrays with an expected one, leaf by leaf."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ._backend import backend
from ._diagnose import current_set, setting_failure
from ._errors import CheckFailed
from ._mistakes import SYMPTOMS, Mistake
from ._symptoms import dtype_symptom, narrowed, shape_symptom, value_symptom, x64_twins
from ._thresholds import tolerance


def _is_float(dtype: Any) -> bool:
    # jnp's test knows bfloat16, which NumPy does not count as inexact.
    return bool(jnp.issubdtype(dtype, jnp.inexact))


def _leaves(tree: Any) -> tuple[list[str], list[Any], Any]:
    with_paths, treedef = jax.tree_util.tree_flatten_with_path(tree)
    paths = [jax.tree_util.keystr(path) for path, _ in with_paths]
    return paths, [leaf for _, leaf in with_paths], treedef


def _as_numpy(leaf: Any) -> np.ndarray:
    if isinstance(leaf, jax.Array) and jnp.issubdtype(leaf.dtype, jax.dtypes.prng_key):
        leaf = jax.random.key_data(leaf)
    return np.asarray(leaf)


def _kind(leaf: Any) -> str:
    # Python numbers have no dtype of their own: compare their values only.
    return "python" if isinstance(leaf, (bool, int, float, complex)) else "array"


class _Leaf:
    """A leaf as a structure shows it: `float32[3]` for an array (`float32[]` for a scalar), else its type."""

    def __init__(self, leaf: Any):
        shape, dtype = getattr(leaf, "shape", None), getattr(leaf, "dtype", None)
        if shape is not None and dtype is not None:
            self.text = f"{dtype}[{','.join(map(str, shape))}]"
        else:
            self.text = type(leaf).__name__

    def __repr__(self) -> str:
        return self.text


def _describe(tree: Any) -> str:
    """The containers of `tree` with each leaf's dtype and shape: one array of shape (3,) is not three numbers."""
    leaves, treedef = jax.tree.flatten(tree)
    if len(leaves) <= 8:
        try:
            shown = repr(jax.tree.unflatten(treedef, [_Leaf(leaf) for leaf in leaves]))
        except Exception:  # noqa: BLE001 - a custom node that cannot hold stand-ins: its plain structure
            shown = ""
        if shown and "\n" not in shown and len(shown) <= _LONGEST:
            return shown
        # A module's repr runs to pages: its class, and what it holds.
        return f"a {type(tree).__name__} holding ({', '.join(_Leaf(leaf).text for leaf in leaves)})"
    text = str(treedef).replace("PyTreeDef(", "", 1)
    text = text[:-1] if text.endswith(")") else text
    return text if len(text) <= _LONGEST else f"{text[: _LONGEST - 3]}..."


_LONGEST = 200


def _where(what: str, path: str) -> str:
    return f"leaf {path} of {what}" if path else what


def check_close(
    actual: Any,
    expected: Any,
    *,
    what: str = "your result",
    rtol: float | None = None,
    atol: float | None = None,
    inputs: Any = None,
    hint: str | None = None,
    section: str | None = None,
) -> None:
    """Check that pytree `actual` matches `expected`: structure, shapes, dtypes, values.

    Raises `CheckFailed` naming the first leaf that differs and by how much; `hint` is what
    to try when the values (or the containers, or a leaf's shape) differ.
    Tolerances default to `tolerance(dtype)` of each expected leaf. Pass the `inputs` the
    result was computed from when its values move no more than the inputs do (softmax,
    logsumexp, differences): see `input_rounding`.
    """
    exp_paths, exp_leaves, exp_def = _leaves(expected)
    try:
        act_paths, act_leaves, act_def = _leaves(actual)
    except Exception as error:  # a pytree node whose flatten raises
        raise CheckFailed(f"{what} could not be read as arrays ({error}).", section=section) from None
    if act_paths != exp_paths:
        missing = [p for p in exp_paths if p not in act_paths]
        extra = [p for p in act_paths if p not in exp_paths]
        detail = []
        if missing:
            detail.append("missing " + ", ".join(_where(what, p) for p in missing[:5]))
        if extra:
            detail.append("unexpected " + ", ".join(_where(what, p) for p in extra[:5]))
        raise CheckFailed(
            f"{what} has the wrong structure: expected {_describe(expected)}, "
            f"got {_describe(actual)}" + (f" ({'; '.join(detail)})" if detail else "") + ".",
            hint=structure_hint(hint),
            section=section,
        )
    kinds = [_kind(x) for x in exp_leaves]
    magnitude = input_magnitude(inputs)
    _compare_leaves(what, act_paths, act_leaves, exp_leaves, kinds, rtol, atol, section, magnitude, hint)


def input_magnitude(inputs: Any) -> float:
    """The largest magnitude among the float leaves of `inputs` (0 for none or only integers)."""
    largest = 0.0
    for leaf in jax.tree.leaves(inputs):
        values = _as_numpy(leaf)
        if _is_float(values.dtype) and values.size:
            finite = values[np.isfinite(values)]
            largest = max(largest, float(np.max(np.abs(finite.astype(np.float64)), initial=0.0)))
    return largest


def input_rounding(magnitude: float, dtype: Any) -> float:
    """The error inputs of this `magnitude` carry in `dtype`: stored values are only known to eps * |x|.

    A correct formula whose output moves as much as its inputs (softmax through logsumexp,
    at inputs of 1000 in float32) is off by that much however carefully it is written.
    """
    return float(jnp.finfo(dtype).eps) * magnitude if _is_float(dtype) else 0.0


def _compare_leaves(
    what,
    paths,
    act_leaves,
    exp_leaves,
    kinds,
    rtol,
    atol,
    section,
    magnitude=0.0,
    hint=None,
    reveal=True,
    exact_dtype=False,
    values_only=False,
) -> None:
    """Each leaf's shape, dtype and values. The 32- and 64-bit widths of one dtype differ only where jax_enable_x64 is
    on (a global setting, or a `with` block): unless `exact_dtype` (the dtype is the problem's point), such leaves
    are compared by value, at the 32-bit width's tolerance, which the wider one cannot loosen. `hint` is the test's,
    shown for a wrong shape too, unless `values_only` (see `compare_with_reference`)."""
    for path, got, want, kind in zip(paths, act_leaves, exp_leaves, kinds, strict=True):
        name = _where(what, path)
        try:
            got_np = _as_numpy(got)
        except Exception as error:
            raise CheckFailed(f"{name} is a {type(got).__name__}, not an array ({error}).", section=section) from None
        want_np = _as_numpy(want)
        if got_np.dtype == object:
            raise CheckFailed(
                f"{name} is a {type(got).__name__} holding Python objects, not numbers.",
                hint="build it with jnp functions so it is a jax.Array.",
                section=section,
            )
        if got_np.shape != want_np.shape:
            mistake = shape_symptom(got_np.shape, want_np.shape)
            raise CheckFailed(
                f"{name} has shape {got_np.shape}, expected {want_np.shape}"
                + (f": {mistake.cause}" if mistake else "."),
                hint=_shape_hint(mistake, None if values_only else hint),
                section=mistake.section(current_set(section=section)) if mistake else section,
            )
        narrow = x64_twins(got, want, got_np.dtype, want_np.dtype) if kind == "array" else None
        if narrow is not None and not exact_dtype:
            if _is_float(narrow):
                want_np = want_np.astype(narrow)  # its tolerance, and the rounding its inputs carry
        elif kind == "array" and got_np.dtype != want_np.dtype:
            mistake = dtype_symptom(got, got_np.dtype, want_np.dtype)
            raise CheckFailed(
                f"{name} has dtype {got_np.dtype}, expected {want_np.dtype}"
                + (f": {mistake.cause}" if mistake else "."),
                hint=mistake.hint if mistake else _dtype_hint(got_np.dtype, want_np.dtype),
                section=mistake.section(current_set(section=section))
                if mistake
                else "01#Dtypes and the float32 default",
            )
        carried = input_rounding(magnitude, want_np.dtype)
        try:
            _check_values(name, got_np, want_np, rtol, atol, section, carried, hint, reveal)
        except CheckFailed as failure:
            if narrow is None and not (jax.config.jax_enable_x64 and narrowed(got_np.dtype)):
                if (lowered := lowered_precision()) is not None:
                    raise setting_failure(failure, "matmul_precision", repr(lowered), section) from None
                raise
            raise _x64_failure(failure, section) from None


# What jax_default_matmul_precision may hold that still means full float32 products (None: the backend's default).
_FULL_PRECISION = (None, "default", "highest", "float32")


def lowered_precision() -> str | None:
    """The reduced precision jax_default_matmul_precision asks of every matrix product, where the backend heeds it
    (a GPU or TPU: this CPU computes float32 products in full whatever the setting); else None."""
    value = jax.config.jax_default_matmul_precision
    return None if value in _FULL_PRECISION or backend() == "cpu" else str(value)


# What a value that differs says when jax_enable_x64 made one side 64-bit: the setting may be the cause.
_X64_VALUES = (
    " One side is 64-bit because jax_enable_x64 is on "
    "(jax.config.update('jax_enable_x64', True) in a cell, or a `with jax.enable_x64(True)` block): in 64 bits "
    "random draws (jax.random samples by dtype) and rounding differ from the 32-bit ones the course's results use."
)


def _x64_failure(failure: CheckFailed, section: str | None) -> CheckFailed:
    mistake = SYMPTOMS["x64"]
    return CheckFailed(
        failure.problem + _X64_VALUES,
        hint=mistake.hint + (f" If the values still differ with it off: {failure.hint}" if failure.hint else ""),
        section=mistake.section(current_set(section=section)),
    )


def structure_hint(hint: str | None) -> str:
    """What to try for a result of the wrong containers: the test's own hint after the generic words, since it knows
    what the result is made of (which arguments a gradient is taken for)."""
    return "return exactly the containers and keys the exercise asks for, with arrays as leaves." + (
        f" {hint}" if hint else ""
    )


_SHAPE_HINT = "check which axis you reduce over and whether you need keepdims=True or broadcasting."


def _shape_hint(mistake: Mistake | None, hint: str | None) -> str:
    """What to try for a leaf of the wrong shape: the mistake its shape shows, then the test's own hint, which knows
    how the result is made (a vmap asked for, where the generic words about reduced axes would mislead)."""
    if mistake is not None:
        return mistake.hint + (f" {hint}" if hint else "")
    return hint or _SHAPE_HINT


def _dtype_hint(got: np.dtype, want: np.dtype) -> str:
    if np.issubdtype(got, np.integer) and np.issubdtype(want, np.floating):
        return f"convert before dividing or averaging, e.g. x.astype(jnp.{want})."
    return f"convert with .astype(jnp.{want})."


_NON_FINITE_HINT = (
    "look for overflow (exp of large numbers), underflow to 0 (a long product of small numbers, then divided by), "
    "division by zero, or log/sqrt of negatives."
)


# What a message says in place of an expected value read from a stored reference (`reveal=False`): on
# the grader's inputs it is the hidden answer, which an answer cell could read off the message and return.
_NOT_SHOWN = "the expected value is not shown"


def _check_exact(name: str, got: np.ndarray, want: np.ndarray, section, hint, reveal) -> None:
    """Integers and booleans: equal at every position."""
    bad = got != want
    if np.any(bad):
        index = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
        expected = f"expected {want[index].item()}" if reveal else _NOT_SHOWN
        wide = np.asarray(want, np.float64)
        symptom = value_symptom(np.asarray(got, np.float64), wide, bad, float(np.max(np.abs(wide), initial=1.0)))
        raise CheckFailed(
            f"{name} differs at {int(bad.sum())} of {bad.size} positions; "
            f"first at index {index}: got {got[index].item()}, {expected}."
            + (f" {symptom[1]} So {symptom[0].cause}" if symptom else ""),
            hint=symptom[0].hint if symptom else hint,
            section=symptom[0].section(current_set(section=section)) if symptom else section,
        )


def _widened(values: np.ndarray) -> np.ndarray:
    """In float64 (complex128), where a comparison neither overflows nor rounds: no copy if it already is."""
    return values.astype(np.complex128 if np.iscomplexobj(values) else np.float64, copy=False)


def allowed_differences(
    want: np.ndarray, rtol: float | None, atol: float | None, carried: float = 0.0, *, dtype: np.dtype | None = None
) -> tuple[np.ndarray, float, float]:
    """How far a correct answer may be from each of `want`'s (floating) values: `atol` times the largest finite
    value's size, plus `rtol` times its own, plus what the inputs' own rounding `carried`. Also that size, and the
    `rtol` used: `rtol` and `atol` default (None) to the tolerance of the values' dtype on this backend (`dtype`,
    where `want` was widened already, else its own)."""
    default_rtol, default_atol = tolerance(want.dtype if dtype is None else dtype)
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    wide = _widened(want)
    scale = float(np.max(np.abs(wide[np.isfinite(wide)]), initial=1.0))
    with np.errstate(invalid="ignore", over="ignore"):
        return atol * scale + rtol * np.abs(wide) + carried, scale, rtol


def _check_values(
    name: str, got: np.ndarray, want: np.ndarray, rtol, atol, section, carried=0.0, hint=None, reveal=True
) -> None:
    if not _is_float(want.dtype):
        _check_exact(name, got, want, section, hint, reveal)
        return
    dtype = want.dtype  # named in the message and deciding the tolerance; the comparison below runs widened
    want = _widened(want)
    got = got.astype(want.dtype)
    allowed, scale, rtol = allowed_differences(want, rtol, atol, carried, dtype=dtype)
    finite = np.isfinite(want)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(got - want)
        close = diff <= allowed
    # Non-finite expected values must be matched exactly: nan by nan, inf by inf of the same sign.
    same_special = (np.isnan(want) & np.isnan(got)) | (want == got)
    bad = ~np.where(finite, close, same_special)
    if not np.any(bad):
        return
    index = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
    count = int(bad.sum())
    if not np.isfinite(got[index]) and np.isfinite(want[index]):
        expected = f"{want[index]:.6g}" if reveal else "a finite number"
        raise CheckFailed(
            f"{name} is {got[index]} at index {index} where {expected} is expected "
            f"({count} of {bad.size} positions are wrong).",
            hint=_NON_FINITE_HINT if hint is None else f"{hint} If not, {_NON_FINITE_HINT}",
            section=section,
        )
    if not finite[index]:  # nan or an infinity expected: a difference in numbers would say nothing
        expected = f"{want[index].real}" if reveal else "nan or an infinity"
        raise CheckFailed(
            f"{name} is {got[index]:.6g} at index {index} where {expected} is expected ({count} of {bad.size} "
            "positions are wrong); nan must be matched by nan, and an infinity by one of the same sign.",
            hint=hint
            or "where the formula overflows or is undefined (a division by zero, log of 0), yours must give the same.",
            section=section,
        )
    symptom = value_symptom(got, want, bad, scale)
    if symptom is not None:
        hint, section = symptom[0].hint, symptom[0].section(current_set(section=section))
    largest = float(np.max(np.where(bad & np.isfinite(diff), diff, 0.0)))
    if reveal:
        shown = f"expected {want[index]:.6g}; largest difference {largest:.3g}"
    else:  # how far, only roughly: an exact difference next to `got` would give the expected value away
        size = "under" if largest <= 0.01 * scale else "over"
        shown = f"{_NOT_SHOWN}; the largest difference is {size} 1% of the values' size"
    raise CheckFailed(
        f"{name} differs from the expected values at {count} of {bad.size} positions; first at index {index}: "
        f"got {got[index]:.6g}, {shown} (allowed about {rtol:.0e} relative for {dtype} on {backend()}"
        + (f", plus {carried:.1g} that the inputs' own rounding carries" if carried else "")
        + ")."
        + (f" {symptom[1]} So {symptom[0].cause}" if symptom else ""),
        hint=hint,
        section=section,
    )
