"""Which classic mistake (`_mistakes`) a JAX error or a result shows, and the course's words for it.

A failure names the section of the lecture of the set being worked on: the set is read from the running
test cell's `section=`, else from the notebook's name or folder.
"""

from __future__ import annotations

import linecache
import os
import re
import sys
import types
from collections.abc import Iterable, Iterator

from ._mistakes import FROM_JAX, MISTAKES, Mistake


def _chain(error: BaseException | None) -> Iterator[BaseException]:
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def mistake_of(error: BaseException) -> Mistake | None:
    """The classic mistake that `error` (or an error it was raised from) means, if any."""
    for link in _chain(error):
        names = {cls.__name__ for cls in type(link).__mro__}
        text = str(link)
        for mistake in MISTAKES:
            if mistake.says and re.search(mistake.says, text):
                return mistake
        for mistake in MISTAKES:
            if names & set(mistake.errors):
                return mistake
    return None


def _from_jax(error: BaseException) -> bool:
    """Whether `error` is one of JAX's, or was raised inside JAX's code."""
    if type(error).__module__.split(".")[0] in ("jax", "jaxlib"):
        return True
    *_, innermost = (None, *walk(error.__traceback__))
    return innermost is not None and f"{os.sep}jax{os.sep}" in innermost.tb_frame.f_code.co_filename


_SECTION = re.compile(r"""section\s*=\s*["'](\d\d)#""")
_FOLDER = re.compile(r"(?:^|[/\\])(\d\d)_[a-z]")


def is_cell(filename: str) -> bool:
    """Whether code comes from a notebook cell (IPython files its cells as ipykernel_*/*.py)."""
    return "ipykernel_" in filename or filename.startswith("<ipython-input")


def walk(tb: types.TracebackType | None) -> Iterator[types.TracebackType]:
    """The entries of traceback `tb`, outermost first."""
    while tb is not None:
        yield tb
        tb = tb.tb_next


def _cells(frames: Iterable[types.FrameType]) -> Iterator[str]:
    """The source of each notebook cell among `frames`."""
    for frame in frames:
        if is_cell(frame.f_code.co_filename):
            yield "".join(linecache.getlines(frame.f_code.co_filename))


def _stack() -> Iterator[types.FrameType]:
    frame = sys._getframe(1)
    while frame is not None:
        yield frame
        frame = frame.f_back


def current_set(tb: types.TracebackType | None = None, section: str | None = None) -> str | None:
    """The set being worked on: the `section` a check was given, else the `section=` of the test cell running
    (in `tb`, else on the stack), else the notebook's name (JupyterLab's JPY_SESSION_NAME) or folder."""
    if section and re.match(r"\d\d#", section):
        return section[:2]
    frames = _stack() if tb is None else (entry.tb_frame for entry in walk(tb))
    for source in _cells(frames):
        found = _SECTION.search(source)
        if found:
            return found.group(1)
    for path in (os.environ.get("JPY_SESSION_NAME", ""), os.getcwd()):
        found = _FOLDER.search(path)
        if found:
            return found.group(1)
    return None


def explained(error: BaseException, tb: types.TracebackType | None = None) -> bool:
    """Put the course's words after JAX's message in `error`, if it is a classic mistake or another of JAX's
    errors; True if it got them."""
    mistake = mistake_of(error) or (FROM_JAX if _from_jax(error) else None)
    if mistake is None or getattr(error, "_course_words", False):
        return mistake is not None
    words = f"{error}\n\nWhat it means: {mistake.explain(current_set(tb))}"
    try:
        error.args = (words,)
        error._course_words = True  # pyright: ignore[reportAttributeAccessIssue]
    except (AttributeError, TypeError):
        pass
    if "What it means:" not in str(error):  # an exception type that keeps its message elsewhere
        error.add_note(f"What it means: {mistake.explain(current_set(tb))}")
    return True
