"""Pallas kernels, read from the program: each `pallas_call`'s grid, its operands' blocks, the blocks its
grid visits, and the work left outside it. Speed cannot be graded on a CPU; what a kernel is can."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
from jax.core import eval_jaxpr

from ._errors import CheckFailed, name_of
from ._kernel_values import Mistake, known_mistake, reads_unwritten_memory, unwritten_memory
from ._structure import _sub_jaxprs, trace
from ._works import Works, confirm

# What may run outside a kernel: moving, reshaping and casting data, and the calls that hold programs.
_NOT_WORK = {"reshape", "broadcast_in_dim", "transpose", "convert_element_type", "squeeze", "expand_dims", "pad",
             "slice", "dynamic_slice", "concatenate", "copy", "copy_p", "iota", "device_put", "sharding_constraint",
             "pallas_call"}  # fmt: skip


@dataclass(frozen=True)
class Operand:
    """One array a `pallas_call` reads or writes: its shape, its block's, and the block each program uses."""

    role: str  # "input 0", "output 1", counted in the pallas_call's own order
    shape: tuple[int, ...]
    dtype: str
    block: tuple[int, ...]  # a squeezed (None) block dimension counts 1
    starts: np.ndarray | None  # (programs, ndim): the first element of each program's block; None if dynamic

    @property
    def whole(self) -> bool:
        return all(b >= s for b, s in zip(self.block, self.shape, strict=True))

    @property
    def itemsize(self) -> int:
        return np.dtype(self.dtype).itemsize


@dataclass(frozen=True)
class Kernel:
    """One `pallas_call` equation: its grid (programs in the order the grid runs them) and operands."""

    grid: tuple[int, ...]
    inputs: tuple[Operand, ...]
    outputs: tuple[Operand, ...]


def _starts(mapping: Any, grid: tuple[int, ...]) -> np.ndarray | None:
    """Each program's block start, in elements, from the block mapping's index map, in the grid's order."""
    closed = mapping.index_map_jaxpr
    if len(closed.jaxpr.invars) != len(grid) or not all(isinstance(n, int) for n in grid):
        return None  # a dynamic grid, or scalar prefetch: the blocks depend on values
    ids = np.indices(grid).reshape(len(grid), -1).astype(np.int32) if grid else np.zeros((0, 1), np.int32)

    def index(*program):
        return eval_jaxpr(closed.jaxpr, closed.consts, *program)

    found = jax.vmap(index)(*ids) if grid else index()
    found = np.stack([np.broadcast_to(np.asarray(v), ids.shape[1:]) for v in found], axis=1)
    sizes = [getattr(dim, "block_size", 1) for dim in mapping.block_shape]
    blocked = [type(dim).__name__ == "Blocked" for dim in mapping.block_shape]
    return np.where(blocked, found * np.asarray(sizes), found)


def _operand(mapping: Any, grid: tuple[int, ...], role: str) -> Operand:
    array = mapping.array_aval
    block = tuple(int(getattr(dim, "block_size", 1)) for dim in mapping.block_shape)
    return Operand(role, tuple(array.shape), str(array.dtype), block, _starts(mapping, grid))


def _eqns(jaxpr: Any, inside: bool = False) -> Iterable[tuple[Any, bool]]:
    """Every equation with whether it runs inside a kernel; into calls, loops and branches, and kernel bodies."""
    for eqn in jaxpr.eqns:
        yield eqn, inside
        for sub in _sub_jaxprs(eqn.params):
            yield from _eqns(sub, inside or eqn.primitive.name == "pallas_call")


def _kernel(eqn: Any) -> Kernel:
    mapping = eqn.params["grid_mapping"]
    grid = tuple(int(n) if isinstance(n, (int, np.integer)) else n for n in mapping.grid)
    ins, outs = mapping.block_mappings[: mapping.num_inputs], mapping.block_mappings[mapping.num_inputs :]
    return Kernel(grid, tuple(_operand(m, grid, f"input {i}") for i, m in enumerate(ins)),
                  tuple(_operand(m, grid, f"output {i}") for i, m in enumerate(outs)))  # fmt: skip


def _kernels_in(jaxpr: Any) -> list[Kernel]:
    return [_kernel(eqn) for eqn, inside in _eqns(jaxpr) if eqn.primitive.name == "pallas_call" and not inside]


def pallas_kernels(f: Callable, *args: Any, static_argnums: Sequence[int] = ()) -> list[Kernel]:
    """The `pallas_call`s in the program of `f(*args)`, in program order, nested calls included."""
    return _kernels_in(trace(f, *args, static_argnums=static_argnums).jaxpr)


def _fetches(operand: Operand) -> int:
    """How many times the grid, run in order, moves a block of `operand` between HBM and the kernel.

    As Pallas does on TPU: a program whose block is the one the previous program had reuses it, without a copy.
    """
    if operand.starts is None:
        raise ValueError(f"the blocks of {operand.role} depend on values, so what it moves cannot be counted")
    return 1 + int(np.any(operand.starts[1:] != operand.starts[:-1], axis=1).sum())


def kernel_traffic(f: Callable, *args: Any, static_argnums: Sequence[int] = ()) -> int:
    """Bytes the `pallas_call`s of `f(*args)` move between HBM and their blocks, their grids run in order: every
    input block a program needs and the previous program did not have is read, every output block written once
    per run of consecutive programs that write it."""
    return sum(
        _fetches(op) * math.prod(op.block) * op.itemsize
        for kernel in pallas_kernels(f, *args, static_argnums=static_argnums)
        for op in (*kernel.inputs, *kernel.outputs)
    )


def _uncovered(operand: Operand) -> str | None:
    """Which elements of an operand no program's block holds, in words, or None when the grid covers it."""
    if operand.starts is None:
        return None
    written = np.zeros(operand.shape, bool)
    for start in {tuple(s) for s in operand.starts.tolist()}:
        written[tuple(slice(a, a + b) for a, b in zip(start, operand.block, strict=True))] = True
    if written.all():
        return None
    missing = np.argwhere(~written)
    return f"{(~written).sum()} of its {written.size} elements, the first at index {tuple(missing[0].tolist())}"


def _past_end(operand: Operand) -> str | None:
    """The first block a program asks for that starts past the end of its array, in words, or None."""
    if operand.starts is None:
        return None
    for program, start in enumerate(operand.starts.tolist()):
        if any(a >= n for a, n in zip(start, operand.shape, strict=True)):
            return f"program {program} of the grid asks for the block starting at element {tuple(start)}"
    return None


_INDEX_MAP = ("its index map returns block indices, one per axis of the array, from the program ids: program (i, j) "
              "should get the block whose position along each axis follows the grid axis that walks it")  # fmt: skip


def _coverage_problem(kernels: list[Kernel], unread: bool = True) -> tuple[str, str] | None:
    """A block past an array's end, an output no program writes all of, or (`unread`) an input no program reads all
    of: a kernel may leave part of an input unread on purpose, so that is named only to explain wrong values."""
    for kernel in kernels:
        for op in (*kernel.inputs, *kernel.outputs):
            if (beyond := _past_end(op)) is not None:
                return (f"{beyond} of {op.role} ({op.dtype}{list(op.shape)}), past the array's end: interpret mode "
                        "holds NaN there. An index map that swaps the axes, or returns element offsets where "
                        "block indices are meant, does this.",
                        f"check the index map of {op.role}: {_INDEX_MAP}.")  # fmt: skip
        for op in kernel.outputs:
            if (missing := _uncovered(op)) is not None:
                return (f"its grid {kernel.grid} never writes {op.role} ({op.dtype}{list(op.shape)}) at {missing}, "
                        "and interpret mode fills what no program writes with NaN (a TPU leaves whatever the "
                        "memory held).", "make the grid as long as the number of blocks along each axis "
                        "(pl.cdiv(size, block)), and check that the output's index map reaches every block: "
                        f"{_INDEX_MAP}.")  # fmt: skip
        for op in kernel.inputs if unread else ():
            if (missing := _uncovered(op)) is not None:
                return (f"no program of its grid {kernel.grid} reads {op.role} ({op.dtype}{list(op.shape)}) at "
                        f"{missing}: its index map does not follow the program ids, so some programs read another "
                        "program's block.", f"check the index map of {op.role}: {_INDEX_MAP}.")  # fmt: skip
    return None


def _outside_work(jaxpr: Any) -> tuple[str, tuple[int, ...]] | None:
    """The first computation outside every kernel on an array of more than one element: (primitive, shape)."""
    for eqn, inside in _eqns(jaxpr):
        name = eqn.primitive.name
        if inside or name in _NOT_WORK or any(True for _ in _sub_jaxprs(eqn.params)):
            continue
        shapes = [tuple(getattr(v.aval, "shape", ())) for v in (*eqn.invars, *eqn.outvars)]
        largest = max(shapes, key=math.prod, default=())
        if math.prod(largest) > 1:
            return name, largest
    return None


def _run(
    f: Callable,
    args: tuple,
    works: Works,
    what: str,
    section: str | None,
    static_argnums: Sequence[int],
    mistakes: Sequence[Mistake],
) -> None:
    """`f(*args)` confirmed by `works`; when its values are wrong, the cause named where the program shows it."""
    try:
        value = jax.block_until_ready(f(*args))
    except ValueError as error:
        if "captures constants" not in str(error):
            raise
        raise CheckFailed(
            f"the kernel of {what} reads an array it was not given as an input: Pallas refuses a kernel that "
            f"captures arrays from the enclosing function ({str(error).splitlines()[0][:160]}).",
            hint="pass every array the kernel reads to the pallas_call as an input with a BlockSpec, and compute "
            "inside the kernel from its refs only.",
            section=section,
        ) from None
    try:
        confirm(value, works, what=what, section=section, hint=_VALUES_HINT)
    except CheckFailed as failure:
        closed = trace(f, *args, static_argnums=static_argnums, what=what)
        kernels = _kernels_in(closed.jaxpr)
        problem = _coverage_problem(kernels)
        if problem is not None:
            raise CheckFailed(f"{what} gives wrong values, and the program shows why: {problem[0]}", hint=problem[1],
                              section=section) from None  # fmt: skip
        if (known := known_mistake(value, mistakes, what, section)) is not None:
            raise known from None
        if reads_unwritten_memory(closed, args, value):
            raise unwritten_memory(what, section) from None
        raise failure


_VALUES_HINT = ("compare your kernel, one program at a time, with the formula: which block each index map hands it, "
                "that a sum carried across the grid starts (pl.when at the first step) and finishes (at the last) "
                "once, and the arithmetic on the blocks.")  # fmt: skip


def _structure_problem(kernels: list[Kernel], tiled: int | None) -> tuple[str, str] | None:
    """What keeps these kernels from being tiled, and what to try; None when nothing does. Every input and output
    must be cut, but a vector among the first kernel's inputs after its first `tiled` (the bias of a layer, say)."""
    for number, kernel in enumerate(kernels):
        for index, op in enumerate((*kernel.inputs, *kernel.outputs)):
            vector = sum(size > 1 for size in op.shape) <= 1  # a bias, a scale: one block of it is not the skill
            if op.whole and not (vector and number == 0 and tiled is not None and tiled <= index < len(kernel.inputs)):
                return (f"its pallas_call takes {op.role} ({op.dtype}{list(op.shape)}) as one block of {op.block}: "
                        "every program holds the whole array, so nothing is tiled, and on a chip the block would "
                        "outgrow VMEM (TPU) or shared memory (GPU) as the array grows.",
                        "give it a BlockSpec whose block_shape is smaller than the array, with an index map, and a "
                        "grid with one program per block.")  # fmt: skip
        if (problem := _coverage_problem([kernel], unread=False)) is not None:
            return problem
        for op in kernel.outputs:
            if op.starts is not None and _fetches(op) > len({tuple(s) for s in op.starts.tolist()}):
                return (f"its grid {kernel.grid} comes back to a block of {op.role} after writing others: on a TPU "
                        "an output block stays in VMEM only while consecutive programs write it, so a sum carried "
                        "across the grid would be lost.", "put the reduction axis last in the grid, so that the "
                        "programs writing one output block run one after another.")  # fmt: skip
    return None


def _blocks_problem(kernels: list[Kernel], in_blocks: Sequence[tuple[int, ...]] | None) -> tuple[str, str] | None:
    found = [op.block for op in kernels[0].inputs][: len(in_blocks or ())]
    if in_blocks is not None and [tuple(b) for b in in_blocks] != found:
        return (f"the blocks of its inputs are {found}; this problem asks for {[tuple(b) for b in in_blocks]}.",
                "build the BlockSpecs from the block sizes the function is given.")  # fmt: skip
    return None


def _size_problem(jaxpr: Any, max_elements: int | None) -> tuple[str, str] | None:
    if max_elements is None:
        return None
    size, shape, primitive = max(
        ((math.prod(v.aval.shape), tuple(v.aval.shape), e.primitive.name)
         for e, _ in _eqns(jaxpr) for v in e.outvars if hasattr(v.aval, "shape")), default=(0, (), ""))  # fmt: skip
    if size <= max_elements:
        return None
    return (f"it builds an array of shape {shape} ({size:,} elements, made by `{primitive}`), where {max_elements:,} "
            "elements are the most any array needs here.", "keep only blocks in the kernel, and no large array "
            "between kernels: work through the arrays a block at a time.")  # fmt: skip


def check_pallas_kernel(
    f: Callable,
    *args: Any,
    works: Works,
    in_blocks: Sequence[tuple[int, ...]] | None = None,
    static_argnums: Sequence[int] = (),
    what: str | None = None,
    hint: str | None = None,
    section: str | None = None,
    mistakes: Sequence[Mistake] = (),
    max_elements: int | None = None,
) -> None:
    """Check that `f(*args)` is computed by a Pallas kernel that tiles its arrays.

    A `pallas_call` each of whose inputs and outputs is cut into blocks smaller than the array, whose grid writes
    every element of each output, each output block by consecutive programs (as a TPU needs to carry a sum in it),
    and with no computation left to XLA outside it (reshapes, casts, padding and scalars only). `in_blocks`, when
    given, are the block shapes the first kernel's first inputs must have; a vector input after those may be one
    block. `max_elements`, when given, bounds every array the program builds (an (n, n) matrix of scores split
    across two kernels, say). Speed cannot be judged on a CPU; this can.

    Wrong values are explained where the program shows why: an output block no program writes, an input block
    past the array's end or never read, an accumulator read before it was started (NaN in interpret mode), or one
    of the test's `mistakes`, each `(what the answer does, a function giving its values, what to try)`.
    """
    what = name_of(f, what)
    _run(f, args, works, what, section, static_argnums, mistakes)
    jaxpr = trace(f, *args, static_argnums=static_argnums, what=what).jaxpr
    kernels = _kernels_in(jaxpr)
    if not kernels:
        used = sorted(
            {e.primitive.name for e, _ in _eqns(jaxpr) if not any(True for _ in _sub_jaxprs(e.params))} - _NOT_WORK
        )
        raise CheckFailed(
            f"{what} runs no pallas_call: XLA computes it from {', '.join(f'`{u}`' for u in used[:6]) or 'nothing'}, "
            "operations you did not write as a kernel.",
            hint=hint
            or "write the kernel body and call it with pl.pallas_call, with a grid and a BlockSpec for "
            "every input and output.",
            section=section,
        )
    problem = _structure_problem(kernels, None if in_blocks is None else len(in_blocks))
    if problem is None and (outside := _outside_work(jaxpr)) is not None:
        problem = (f"it computes `{outside[0]}` on a {list(outside[1])} array outside its pallas_call: work the kernel "
                   "should do is done by XLA before or after it.", "do the computation inside the kernel, on the "
                   "blocks its refs hold; outside it keep only reshapes, casts and padding.")  # fmt: skip
    problem = problem or _blocks_problem(kernels, in_blocks) or _size_problem(jaxpr, max_elements)
    if problem is not None:
        raise CheckFailed(f"{what} is not the tiled kernel asked for: {problem[0]}", hint=hint or problem[1],
                          section=section)  # fmt: skip
