"""How a failure looks in a notebook: the student's lines and the course's message, never the grader's code.

IPython hands every exception raised in a cell to this handler (`InteractiveShell.set_custom_exc`), which
shows it with IPython's own `showtraceback` after the frames of this package are taken out: a `CheckFailed`
then shows the test cell's line and its message (what differs, "Try:", "Reread:"); an error raised in the
student's code, called from a check, keeps the student's frames, and a classic JAX mistake (`_mistakes`) gets
the course's words after JAX's message. nbgrader still sees an error output, so
grading is the same.
"""

from __future__ import annotations

import ast
import linecache
import sys
import types
from pathlib import Path

from ._diagnose import explained, is_cell, walk
from ._errors import CheckFailed

_OURS = str(Path(__file__).resolve().parents[1])
_RED, _RESET = "\x1b[0;31m", "\x1b[0m"


def _ours(frame: types.FrameType) -> bool:
    return frame.f_code.co_filename.startswith(_OURS)


def without_our_frames(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback `tb` without the frames of this package (all of it, if nothing else is left)."""
    kept, walk = [], tb
    while walk is not None:
        if not _ours(walk.tb_frame):
            kept.append(walk)
        walk = walk.tb_next
    if len(kept) < 2:  # only IPython's own first frame would be left: keep what there was
        return tb
    rebuilt = None
    for entry in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt


def _test_line(tb: types.TracebackType | None) -> str:
    """`line N: <code>` of the outermost notebook cell frame in `tb`: the test cell's own line, also when a
    helper defined above it raised (empty if none)."""
    for entry in walk(tb):
        name = entry.tb_frame.f_code.co_filename
        if is_cell(name):
            return f"line {entry.tb_lineno}: {linecache.getline(name, entry.tb_lineno).strip()}"
    return ""


def _innermost(tb: types.TracebackType | None) -> types.CodeType | None:
    *_, last = (None, *walk(tb))
    return last.tb_frame.f_code if last is not None else None


# Names an answer cell was to define when it raised NotImplementedError: a later NameError is no typo.
_unanswered: set[str] = set()
# Set when an answer cell that binds no name raised NotImplementedError (nbgrader's stub for an answer that is
# the whole cell): the name a later NameError misses may be the one it was to define, or a typo.
_unnamed_unanswered: set[str] = set()  # their cells' file names


def _bound_by(source: str) -> set[str]:
    """The names a cell's top level defines or assigns."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
    return names


def _not_answered(value: BaseException, tb: types.TracebackType | None) -> None:
    """Say "not answered yet", by name, for an answer still raising NotImplementedError, and for the NameError
    of what its cell would have defined; a NameError after a stub that names nothing says it may be either."""
    code = _innermost(tb)
    if isinstance(value, NotImplementedError) and not str(value) and code and is_cell(code.co_filename):
        where = code.co_name  # a stub's, in a notebook cell: a library's bare NotImplementedError is no stub
        if where == "<module>":  # the cell's own top level: what it would have bound is not there
            names = _bound_by("".join(linecache.getlines(code.co_filename)))
            _unanswered.update(names)
            if not names:
                _unnamed_unanswered.add(code.co_filename)
            where = ", ".join(sorted(names)) or "this cell"
        else:
            _unanswered.add(where)  # a class whose body raised is not bound either
        verb = "are" if ", " in where else "is"
        value.args = (
            f"{where} {verb} not answered yet: replace `raise NotImplementedError()` in its cell with your answer, "
            "and run that cell.",
        )
    elif isinstance(value, NameError) and getattr(value, "name", None) in _unanswered:
        value.args = (
            f"{value.name} is not answered yet: its cell still raises NotImplementedError(); write your "
            "answer there and run that cell.",
        )
    elif isinstance(value, NameError) and (name := getattr(value, "name", None)) and _unnamed_unanswered:
        value.args = (
            f"name '{name}' is not defined: an answer cell above still raises NotImplementedError() (not answered "
            f"yet). If {name} is its answer, write it there and run that cell; otherwise check the spelling.",
        )


def _unanswered_behind(failure: CheckFailed) -> str | None:
    """What to say instead of `failure`, if it was raised while handling an unanswered stub's error ("not answered
    yet"): a test that catches what the student's code raised, to name it, would show an empty NotImplementedError."""
    seen, error = set(), failure.__cause__ or failure.__context__
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, (NotImplementedError, NameError)):
            _not_answered(error, error.__traceback__)
            if "not answered yet" in str(error):
                return str(error)
        error = error.__cause__ or error.__context__
    return None


def short_traceback(shell, etype, value, tb, tb_offset=None):
    tb = without_our_frames(tb)
    if isinstance(value, CheckFailed) and (unanswered := _unanswered_behind(value)):
        CheckFailed.__init__(value, unanswered, section=value.section)  # the check's hint was for an answer
    if isinstance(value, CheckFailed):
        # Its message says all a student needs, then the test's line; where it was raised from, inside a
        # check, says nothing.
        value.__suppress_context__ = True
        value.__cause__ = None
        where = _test_line(tb)
        lines = [f"{_RED}CheckFailed{_RESET}: {value}"] + ([f"(in the test cell, {where})"] if where else [])
        value._render_traceback_ = lambda: lines  # pyright: ignore[reportAttributeAccessIssue]
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
        return
    _not_answered(value, tb)
    explained(value, tb)  # a classic mistake gets the course's words after JAX's
    seen: set[int] = set()
    chained = value
    while chained is not None and id(chained) not in seen:  # a JAX error a check caught and raised again
        seen.add(id(chained))
        if chained is not value:
            chained.__traceback__ = without_our_frames(chained.__traceback__)
        chained = chained.__cause__ or (None if chained.__suppress_context__ else chained.__context__)
    # The message first, so that a long traceback (or Validate's dialog) shows it without scrolling; then
    # IPython's own frames, the student's.
    stb = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
    value._render_traceback_ = lambda: [stb[-1], *stb[:-1]] if len(stb) > 1 else stb  # pyright: ignore[reportAttributeAccessIssue]
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)


def show_short_tracebacks() -> None:
    """In an IPython kernel, render failures without this package's frames (nothing elsewhere)."""
    if "IPython" not in sys.modules:
        return
    from IPython import get_ipython

    shell = get_ipython()
    # A handler the user set keeps its place; the package's own, set at its import, is this one already.
    if shell is not None and not shell.custom_exceptions:
        shell.set_custom_exc((Exception,), short_traceback)
