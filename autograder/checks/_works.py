"""A property is worth points only for an answer that works.

Purity, a constant-size program, unused keys, a small footprint, one compilation, speed: a
function that computes nothing has them all. So every check of such a property takes `works`,
and confirms the answer's values on the check's own inputs before it judges the property; a wrong
answer then fails with what is wrong with its values. `works` is required, so no test can forget it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax

from ._errors import CheckFailed
from ._reference import compare_with_reference

# The id of a reference output recorded from the solutions (`check_reference`), or a check of its own
# that raises `CheckFailed` when the value it is given is wrong (for random answers, whose exact
# values differ between right answers).
Works = str | Callable[[Any], None]


# A property is judged only once the values are right, so a wrong value is what to fix first.
_VALUES_FIRST = (
    "make the values right first: this check judges its property only for an answer that works, and the test "
    "of this function's values says what differs."
)


def confirm(value: Any, works: Works, *, what: str, section: str | None, hint: str = _VALUES_FIRST) -> None:
    """Check `value`, an answer's output on a property check's inputs, before the property is judged; a failure
    that says no Try line of its own gets `hint`."""
    if isinstance(works, str):
        compare_with_reference(
            value, works, what=f"{what} (on the inputs of this check)", hint=hint, section=section, values_only=True
        )
    elif callable(works):
        try:
            works(value)
        except CheckFailed as failure:  # a test's own check, written with neither hint nor section: the check's
            if failure.hint and failure.section:
                raise
            raise CheckFailed(failure.problem, hint=failure.hint or hint, section=failure.section or section) from None
    else:
        raise TypeError(f"works= takes a reference id or a check, not {type(works).__name__}")


def confirm_call(f: Callable, args: tuple, works: Works, *, what: str, section: str | None) -> Any:
    """`f(*args)`, confirmed with `works` (see `confirm`), and returned."""
    value = jax.block_until_ready(f(*args))
    confirm(value, works, what=what, section=section)
    return value
