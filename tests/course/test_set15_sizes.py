"""Set 15's kernels, at every size and block its tests use, lowered for a TPU from this CPU.

The tests run the kernels in Pallas's interpreter, which accepts blocks a TPU refuses (the last two
dimensions of a block divisible by 8 and 128, or spanning the array). Lowering checks that rule, as
lecture 15 shows: the reference answers, compiled rather than interpreted, lower at each size.
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import nbformat
import pytest

from support import ROOT

pytestmark = pytest.mark.unit

SOLUTIONS = ROOT / "solutions" / "15_pallas" / "15_pallas.ipynb"


def _array(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.float32)


# (function, arrays, the sizes after them): the visible tests' sizes, and the largest and smallest blocks the
# hidden tests draw.
CASES = [
    ("column_norm", (_array(64, 512),), (128,)),
    ("column_norm", (_array(24, 512),), (256,)),
    ("linear_relu", (_array(32, 256), _array(256, 256), _array(256)), (16, 128, 128)),
    ("linear_relu", (_array(16, 128), _array(128, 256), _array(256)), (8, 128, 128)),
    ("linear_relu", (_array(48, 512), _array(512, 512), _array(512)), (16, 256, 256)),
    ("local_attention", (_array(128, 32),) * 3, (48, 32, 32)),
    ("local_attention", (_array(128, 32),) * 3, (40, 64, 32)),
    ("local_attention", (_array(128, 16),) * 3, (8, 16, 64)),
]


@pytest.fixture(scope="module")
def answers() -> dict:
    """The reference answers, compiled on every backend (no interpreter): what runs on a TPU."""
    namespace: dict = {}
    for cell in nbformat.read(SOLUTIONS, as_version=4).cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or meta.get("grade") or meta.get("grade_id") == "colab_setup":
            continue
        exec(re.sub(r"^\s*### (BEGIN|END) SOLUTION\n", "", cell.source, flags=re.M), namespace)
        namespace.update(INTERPRET=False, SEQUENTIAL_INTERPRET=False)
    return namespace


@pytest.mark.parametrize("name, arrays, sizes", CASES, ids=[f"{n}{s}" for n, _, s in CASES])
def test_the_sets_kernels_lower_for_a_tpu_at_the_tests_sizes(answers, name, arrays, sizes):
    function = answers[name]
    jax.jit(lambda *a: function(*a, *sizes)).trace(*arrays).lower(lowering_platforms=("tpu",))
