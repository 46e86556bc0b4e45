"""Wrong answers a student might submit, and the tests each must fail.

Each variant starts from the reference answers and replaces some answer cells
(by grade_id). `loses` names every test cell that must score 0; all other test
cells must keep full points. Together they prove that each timed or structural
problem costs its points, and only its points, for the mistakes it targets.
`lost_in_the_verifier` names those of `loses` that the kernel's own checks pass and only the
verifier fails (autograder/verifying/): a program that cannot leave the kernel, for one.
`setting` names a global setting the variant's answers change (`jax.config.update("jax_enable_x64", True)` in an
answer cell): every later cell sees it, so it can affect every test cell after them, and is graded alone.
"""

from .set01 import VARIANTS as _set01
from .set02 import VARIANTS as _set02
from .set03 import VARIANTS as _set03
from .set04 import VARIANTS as _set04
from .set05 import VARIANTS as _set05
from .set06 import VARIANTS as _set06
from .set07 import VARIANTS as _set07
from .set08 import VARIANTS as _set08
from .set09 import VARIANTS as _set09
from .set10 import VARIANTS as _set10
from .set11 import VARIANTS as _set11
from .set12 import VARIANTS as _set12
from .set13 import VARIANTS as _set13
from .set14 import VARIANTS as _set14
from .set15 import VARIANTS as _set15
from .set16 import VARIANTS as _set16

VARIANTS = {
    "01_arrays": _set01,
    "02_immutability": _set02,
    "03_tracing": _set03,
    "04_jit": _set04,
    "05_vmap": _set05,
    "06_grad": _set06,
    "07_prng": _set07,
    "08_parallel": _set08,
    "09_capstone": _set09,
    "10_pytrees": _set10,
    "11_custom_derivatives": _set11,
    "12_control_flow": _set12,
    "13_debugging": _set13,
    "14_ecosystem": _set14,
    "15_pallas": _set15,
    "16_scaling": _set16,
}
