"""What an error raised inside an answer means at the test that ran it, in the problem's words (`raises/SET.toml`).

JAX's and Python's messages name what failed, not the mistake a learner made at this problem: `jax.grad(f)` of a
function returning a pair says "scalar-output", where the problem's skill is `has_aux`. A set's file,
`raises/SET.toml`, names per test cell the errors its learners meet and what each means there:

    [[test_tree]]
    raised = "too many values to unpack|not enough values to unpack"   # searched in "ErrorType: message"
    cause = "loss_and_grads returned ... where the test unpacks two: the loss and its gradients."
    try = "return both from one pass: jax.value_and_grad(loss)(params, X, y)."
    section = "06#Gradients of pytrees"   # optional: else the test cell's own section nearest the failing line

The first entry whose `raised` matches wins; an error no entry names gets the classic mistake's words (`_mistakes`).
"""

from __future__ import annotations

import functools
import re
import tomllib
from pathlib import Path

from ._mistakes import Mistake

RAISES = Path(__file__).parent / "raises"
KEYS = {"raised", "cause", "try", "section"}


@functools.cache
def _all() -> dict[str, dict[str, list[dict[str, str]]]]:
    """Each set's entries by test (a file that cannot be read is named: the course author's mistake)."""
    found = {}
    for path in sorted(RAISES.glob("*.toml")):
        try:
            found[path.stem] = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise ValueError(f"autograder/checks/raises/{path.name} is not valid TOML: {error}") from None
    return found


def entries() -> dict[tuple[str, str], list[dict[str, str]]]:
    """Every set's entries, by `(set, test grade_id)`."""
    return {(assignment, test): found for assignment, tests in _all().items() for test, found in tests.items()}


def at_test(assignment: str, test: str, shown: list[str], section: str | None) -> Mistake | None:
    """The mistake `shown` (each error's "ErrorType: message", the error and those it came from) means at test
    `test` of set `assignment`, rereading `section` where the entry names none; None if no entry names it."""
    for entry in _all().get(assignment, {}).get(test, []):
        if any(re.search(entry["raised"], text) for text in shown):
            where = entry.get("section") or section or assignment[:2]
            lecture, _, heading = where.partition("#")
            return Mistake(f"{assignment}/{test}", entry["cause"], entry["try"], {lecture: heading}, entry["raised"])
    return None
