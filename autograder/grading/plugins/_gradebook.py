"""nbgrader's gradebook without SQLAlchemy's warnings about how nbgrader uses it.

With SQLAlchemy 2, nbgrader's gradebook (as of the release pinned in pyproject.toml) warns as it records a
submission: an object "not in session" while the session flushes itself (`SAWarning`). It is nbgrader's own use
of SQLAlchemy, which neither an instructor grading nor a learner checking their work can change, and the rows are
written all the same. Other warnings still show.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.exc import SAWarning


@contextmanager
def without_sqlalchemy_warnings() -> Iterator[None]:
    """No `SAWarning` inside, as a `with` block or a function's decorator. The filter is the process's, as every
    warning filter is: each thread heeds it while it holds, and it is taken off on leaving."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)
        yield


def alembic_on_path() -> None:
    """Put this environment's commands first on PATH: nbgrader runs its gradebook migrations with `alembic`, by
    name, and the environment may not be activated (`.venv/bin/jax-course`)."""
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
