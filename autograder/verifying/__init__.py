"""Verdicts computed outside the student's process (`autograder/INTEGRITY.md`).

- `hand_over`, in the student's kernel: a verified answer leaves as exported programs
  (`jax.export`, serialized StableHLO), one per call the grader will make; never a verdict.
- `verify`, in the verifier's process, which never runs a notebook: each program is checked on
  inputs drawn there, against the recorded references, and timed there against the course's baseline.

`python -m autograder.verifying ASSIGNMENT` reads what the kernel handed over (JSON) on stdin and
writes the verdicts (JSON) on stdout. Which answers are verified, and how: `autograder/verified/*.toml`.
"""

from ._hand_over import hand_over
from ._verdicts import verify

__all__ = ["hand_over", "verify"]
