"""`python -m autograder.verifying ASSIGNMENT`: a verifier kept warm for many notebooks of one assignment.

Each line on stdin is a request, `{"handed": {grade_id: programs}, "only": [grade_id, ...]}` (every verified
test when `only` is empty); its verdicts go to stdout as each is decided, one JSON object a line, then
`{"done": true}`. It ends when stdin does. Programs carry no state from one request to the next.
"""

import contextlib
import json
import os
import sys

import jax

from .._verified import devices
from . import verify


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: python -m autograder.verifying ASSIGNMENT < requests (a JSON object a line)", file=sys.stderr)
        return 2
    assignment, out = sys.argv[1], sys.stdout
    if (count := devices(assignment)) and "JAX_NUM_CPU_DEVICES" not in os.environ:
        # As the set's setup cell gives its kernel, before the first operation (it affects the CPU backend only).
        jax.config.update("jax_num_cpu_devices", count)

    def tell(grade_id: str, verdict: dict) -> None:
        out.write(json.dumps({"grade_id": grade_id, **verdict}) + "\n")
        out.flush()

    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError:
            request = {}
        request = request if isinstance(request, dict) else {}
        handed, only = request.get("handed"), request.get("only")
        # What a check prints (an advisory timing verdict) goes to stderr: stdout carries only the verdicts.
        with contextlib.redirect_stdout(sys.stderr):
            verify(assignment, handed if isinstance(handed, dict) else {}, only=only or None, each=tell)
        out.write(json.dumps({"done": True}) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
