"""`python -m autograder.verifying ASSIGNMENT [GRADE_ID ...]`: handed-over programs (JSON, stdin) in, verdicts out
(stdout, one JSON object a line, written as each is decided), for every verified test or only those named."""

import contextlib
import json
import os
import sys

import jax

from .._verified import devices
from . import verify


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: python -m autograder.verifying ASSIGNMENT [GRADE_ID ...] < handed-over.json", file=sys.stderr)
        return 2
    out = sys.stdout
    if (count := devices(sys.argv[1])) and "JAX_NUM_CPU_DEVICES" not in os.environ:
        # As the set's setup cell gives its kernel, before the first operation (it affects the CPU backend only).
        jax.config.update("jax_num_cpu_devices", count)
    handed = json.load(sys.stdin)

    def tell(grade_id: str, verdict: dict) -> None:
        out.write(json.dumps({"grade_id": grade_id, **verdict}) + "\n")
        out.flush()

    # What a check prints (an advisory timing verdict) goes to stderr: stdout carries only the verdicts.
    with contextlib.redirect_stdout(sys.stderr):
        verify(sys.argv[1], handed if isinstance(handed, dict) else {}, only=sys.argv[2:], each=tell)
    return 0


if __name__ == "__main__":
    sys.exit(main())
