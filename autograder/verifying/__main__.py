"""`python -m autograder.verifying ASSIGNMENT`: handed-over programs (JSON, stdin) in, verdicts (JSON, stdout) out."""

import contextlib
import json
import os
import sys

import jax

from .._verified import devices
from . import verify


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: python -m autograder.verifying ASSIGNMENT < handed-over.json", file=sys.stderr)
        return 2
    if (count := devices(sys.argv[1])) and "JAX_NUM_CPU_DEVICES" not in os.environ:
        # As the set's setup cell gives its kernel, before the first operation (it affects the CPU backend only).
        jax.config.update("jax_num_cpu_devices", count)
    handed = json.load(sys.stdin)
    # What a check prints (an advisory timing verdict) goes to stderr: stdout carries only the verdicts.
    with contextlib.redirect_stdout(sys.stderr):
        verdicts = verify(sys.argv[1], handed if isinstance(handed, dict) else {})
    json.dump(verdicts, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
