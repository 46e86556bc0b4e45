"""Hints a test cell names by key, kept in `hints.toml`, so that only a failure shows their words.

A learner reads a test cell before trying the problem; a hint written out there (`jax.grad(f, argnums=(0, 1))`)
would hand out the answer. A cell passes `hint="@06_grad/grads.jax_grad_argnums"` instead: the text under
`[06_grad.grads]`, `jax_grad_argnums = "..."` in `hints.toml`, which `CheckFailed` and every `ag.check_*` look up.
A hint with values the cell computes is a template: `hint=("@SET/test.name", {"devices": 8})` fills its
`{devices}` with `str.format`. Any other hint is shown as written (the package's own, the hidden tests').
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeGuard

HINTS_FILE = Path(__file__).parent / "hints.toml"

# A key has no spaces, so a hint written out as a sentence is never taken for one.
_KEY = re.compile(r"@(?P<assignment>[^\s/]+)/(?P<name>\S+)")

Hint = str | tuple[str, Mapping[str, Any]]


class UnknownHint(LookupError):
    """A test cell names a hint the package does not have: the course author's mistake, not the learner's."""


def is_key(hint: object) -> TypeGuard[str]:
    return isinstance(hint, str) and _KEY.fullmatch(hint) is not None


@functools.cache
def _all() -> dict[str, dict[str, dict[str, str]]]:
    return tomllib.loads(HINTS_FILE.read_text(encoding="utf-8"))


@functools.cache
def stored(assignment: str) -> dict[str, str]:
    """Every hint of `assignment`, by "test.name"."""
    if assignment not in _all():
        raise UnknownHint(
            f"autograder/checks/hints.toml has no hints of set {assignment!r} (tables [{assignment}.TEST])."
        )
    return {f"{test}.{name}": text for test, hints in _all()[assignment].items() for name, text in hints.items()}


def assignments() -> list[str]:
    """The sets that have hints stored."""
    return sorted(_all())


def hint_text(hint: Hint | None) -> str | None:
    """The words a failure shows for `hint`: a key's stored text (a template's, filled in), or `hint` as written."""
    if isinstance(hint, tuple):
        key, fields = hint
        if not is_key(key):
            raise UnknownHint(f"a hint template is named by a key such as '@05_vmap/pairwise.name', not {key!r}.")
        return _lookup(key).format(**fields)
    return _lookup(hint) if is_key(hint) else hint


def _lookup(key: str) -> str:
    found = _KEY.fullmatch(key)
    assert found is not None
    assignment, name = found["assignment"], found["name"]
    hints = stored(assignment)
    if name not in hints:
        raise UnknownHint(
            f"no hint {name!r} of set {assignment!r} in autograder/checks/hints.toml (a key is '@SET/test.name', its "
            'text stored under [SET.test] as name = "...").'
        )
    return hints[name]
