"""nbgrader's gradebook without SQLAlchemy's warnings about how nbgrader uses it.

With SQLAlchemy 2, nbgrader's gradebook (as of the release pinned in pyproject.toml) warns as it records a
submission: an object "not in session" while the session flushes itself (`SAWarning`). It is nbgrader's own use
of SQLAlchemy, which neither an instructor grading nor a learner checking their work can change, and the rows are
written all the same. Other warnings still show.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.exc import SAWarning


@contextmanager
def without_sqlalchemy_warnings() -> Iterator[None]:
    """No `SAWarning` inside, as a `with` block or a function's decorator. The filter is the process's, as every
    warning filter is: each thread heeds it while it holds, and it is taken off on leaving."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)
        yield
