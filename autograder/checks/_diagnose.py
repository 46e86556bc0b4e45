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

import jax

from .._passes import which_test
from ._errors import CheckFailed
from ._mistakes import ANY_ERROR, FROM_JAX, MISTAKES, PYTHON, SYMPTOMS, TEST_ASSERTION, Mistake
from ._raises import at_test


def _chain(error: BaseException | None) -> Iterator[BaseException]:
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def mistake_of(error: BaseException, catalogue: tuple[Mistake, ...] = MISTAKES) -> Mistake | None:
    """The classic mistake that `error` (or an error it was raised from) means, if any."""
    for link in _chain(error):
        names = {cls.__name__ for cls in type(link).__mro__}
        text = str(link)
        for mistake in catalogue:
            if mistake.says and re.search(mistake.says, text):
                return mistake
        for mistake in catalogue:
            if names & set(mistake.errors):
                return mistake
    return None


# A check's `section="..."`, or the constant a test cell names it by (`SECTION = "..."`).
_SECTION = re.compile(r"""section\s*=\s*["'](\d\d#[^"']*)["']""", re.IGNORECASE)


def running_test(tb: types.TracebackType | None) -> tuple[str, str, str | None] | None:
    """`(set, test grade_id, section)` of the course's test cell that raised (`tb`'s outermost notebook cell, else
    the running one's), with the section its checks name nearest the failing line; None for any other cell."""
    frames = (
        [(entry.tb_frame, entry.tb_lineno) for entry in walk(tb)]
        if tb is not None
        else [(frame, frame.f_lineno) for frame in _stack()][::-1]
    )
    cell = next(((frame, line) for frame, line in frames if is_cell(frame.f_code.co_filename)), None)
    if cell is None:
        return None
    source = "".join(linecache.getlines(cell[0].f_code.co_filename))
    found = which_test(source)
    if found is None:
        return None
    # The first section named from the failing line on (a check's arguments follow its first line), else the last.
    after = "\n".join(source.splitlines()[cell[1] - 1 :])
    named = _SECTION.search(after) or ([*_SECTION.finditer(source)] or [None])[-1]
    return (*found, named[1] if named else None)


def at_running_test(error: BaseException, test: tuple[str, str, str | None] | None = None) -> Mistake | None:
    """What `error` means at the test cell running (`test`, else found on the stack), in its own words."""
    test = test or running_test(None)
    shown = [f"{type(link).__name__}: {link}" for link in _chain(error)]
    return at_test(test[0], test[1], shown, test[2]) if test else None


def meaning(error: BaseException, tb: types.TracebackType | None = None) -> tuple[Mistake | None, str | None]:
    """What `error` means where it was raised, and the section to reread (None: the mistake's own): the test's
    own words for it (`raises/SET.toml`), else a classic JAX mistake, else the kind of Python error (JAX's calls
    of the learner's functions included), else what any error from JAX or from the learner's code means; the
    test's section for all but a classic mistake. Outside the course's sets (another course graded with the
    same grader, a notebook of one's own), Python's errors are left as Python says them: no mistake."""
    test = running_test(tb)
    section = test[2] if test else None
    if mistake := at_running_test(error, test):
        return mistake, None
    if mistake := mistake_of(error):
        return mistake, None
    ours = test is not None or current_set(tb) is not None
    # A Python error JAX raised, calling a function of the learner's, is still that kind of mistake.
    if ours and (mistake := mistake_of(error, PYTHON)):
        return mistake, section
    if _from_jax(error):
        return FROM_JAX, section
    if not ours:
        return None, None
    return (TEST_ASSERTION if test and isinstance(error, AssertionError) else ANY_ERROR), section


_COLLECTIVE = re.compile(r"\b(psum|pmean|pmax|pmin|psum_scatter|all_gather|all_to_all|ppermute|axis_index)\s*\(")
_NAME = re.compile(r"""["'](\w+)["']""")


def _axis_names(names: list[str], local: dict) -> Iterator[str]:
    """The axis names that variables `names` hold in a frame's `local`s: a string, or a tuple of strings."""
    for name in names:
        value = local.get(name)
        for axis in (value,) if isinstance(value, str) else value if isinstance(value, tuple) else ():
            if isinstance(axis, str):
                yield axis


def unknown_axis(error: BaseException) -> str | None:
    """Words for the bare `AssertionError` (no text) JAX raises when a collective inside `shard_map` names an axis
    its mesh does not have: the axis used and the mesh's, read from the frames the error went through."""
    if type(error) is not AssertionError or str(error):
        return None
    entries = list(walk(error.__traceback__))[::-1]  # innermost first
    mesh_axes = next(
        (
            tuple(value.axis_names)
            for entry in entries
            for value in entry.tb_frame.f_locals.values()
            if type(value).__name__ in ("Mesh", "AbstractMesh") and getattr(value, "axis_names", None)
        ),
        None,
    )
    used, collective = (), "a collective"
    for entry in entries:
        code = entry.tb_frame.f_code
        if code.co_name == "pvary" and isinstance(axes := entry.tb_frame.f_locals.get("axes"), tuple) and not used:
            used = axes  # JAX's own: the axes it was asked to vary over
        theirs = f"{os.sep}jax{os.sep}" not in code.co_filename  # a notebook cell, or a module of the student's
        if theirs and (call := _COLLECTIVE.search(linecache.getline(code.co_filename, entry.tb_lineno))):
            collective = f"jax.lax.{call[1]}"
            rest, local = call.string[call.end() :], entry.tb_frame.f_locals
            used = used or (*_NAME.findall(rest), *_axis_names(re.findall(r"\b[A-Za-z_]\w*\b", rest), local))
            break
    unknown = [axis for axis in used if mesh_axes and axis not in mesh_axes]
    if not unknown:
        return None
    return (
        f"{collective} names the axis {', '.join(map(repr, unknown))}, which is not found in mesh: its axes are "
        f"{', '.join(map(repr, mesh_axes or ()))} (JAX stopped at an assert with no message of its own)."
    )


def _from_jax(error: BaseException) -> bool:
    """Whether `error` is one of JAX's, or was raised inside JAX's code."""
    if type(error).__module__.split(".")[0] in ("jax", "jaxlib"):
        return True
    *_, innermost = (None, *walk(error.__traceback__))
    return innermost is not None and f"{os.sep}jax{os.sep}" in innermost.tb_frame.f_code.co_filename


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
            return found.group(1)[:2]
    for path in (os.environ.get("JPY_SESSION_NAME", ""), os.getcwd()):
        found = _FOLDER.search(path)
        if found:
            return found.group(1)
    return None


def explained(error: BaseException, tb: types.TracebackType | None = None) -> bool:
    """Put the course's words after the error's message in `error`: what it means (`meaning`), Try and Reread;
    True if it got them."""
    if not getattr(error, "_course_words", False) and (words := unknown_axis(error)):
        error.args = (words,)
    if getattr(error, "_course_words", False) or "not answered yet" in str(error):
        return True
    mistake, section = meaning(error, tb)
    if mistake is None:
        return False
    said = mistake.explain(current_set(tb), section)
    words, original = f"{error}\n\nWhat it means: {said}" if str(error) else f"What it means: {said}", error.args
    try:
        error.args = (words,)
        error._course_words = True  # pyright: ignore[reportAttributeAccessIssue]
    except (AttributeError, TypeError):
        pass
    if str(error) != words:  # a type that shows its message otherwise (a KeyError shows the repr of its key)
        error.args = original
        error.add_note(f"\nWhat it means: {said}")
    return True


def setting_failure(failure: CheckFailed, symptom: str, value: str, section: str | None) -> CheckFailed:
    """`failure`, with the global setting that may cause it named (its value), and the setting's Try and Reread."""
    mistake = SYMPTOMS[symptom]
    return CheckFailed(
        f"{failure.problem} A global setting may be the cause: {mistake.cause} Here it is {value}.",
        hint=mistake.hint + (f" If it still fails without the setting: {failure.hint}" if failure.hint else ""),
        section=mistake.section(current_set(section=section)),
    )


def on_one_device(failure: CheckFailed, sharding: jax.sharding.Sharding, section: str | None) -> CheckFailed:
    """`failure` of an array `sharding` lays out, naming jax_default_device if it is set and put it on one device."""
    device = jax.config.jax_default_device
    if len(sharding.device_set) == 1 and device is not None:
        return setting_failure(failure, "default_device", str(device), section)
    return failure
