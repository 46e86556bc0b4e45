"""The one exception every check raises, and links into the lectures."""

from __future__ import annotations

from ._hints import Hint, hint_text

# Headings in course/*.ipynb; JupyterLab anchors a heading by its text with
# spaces turned into dashes.
LECTURES = {
    "01": "course/01_arrays.ipynb",
    "02": "course/02_immutability.ipynb",
    "03": "course/03_tracing.ipynb",
    "04": "course/04_jit.ipynb",
    "05": "course/05_vmap.ipynb",
    "06": "course/06_grad.ipynb",
    "07": "course/07_prng.ipynb",
    "08": "course/08_parallel.ipynb",
    "09": "course/09_capstone.ipynb",
    "10": "course/10_pytrees.ipynb",
    "11": "course/11_custom_derivatives.ipynb",
    "12": "course/12_control_flow.ipynb",
    "13": "course/13_debugging.ipynb",
    "14": "course/14_ecosystem.ipynb",
    "15": "course/15_pallas.ipynb",
    "16": "course/16_scaling.ipynb",
}


def lecture_link(section: str) -> str:
    """`"01#Out-of-bounds indexing"` -> `course/01_arrays.ipynb#Out-of-bounds-indexing`."""
    lecture, _, heading = section.partition("#")
    path = LECTURES.get(lecture, lecture)
    return f"{path}#{heading.replace(' ', '-')}" if heading else path


# What to try where a check knows nothing more specific: every failure says what to try and what to reread.
ANY_TRY = (
    "run your answer on this test's inputs (the test cell shows them), print what it returns beside what the "
    "message expects, and compare both with what the problem asks for."
)


class CheckFailed(AssertionError):
    """A check found a problem with the student's answer.

    It subclasses `AssertionError` so that nbgrader counts it as a failed test.
    The message says what differs and what to try (`hint`, its words or a key of
    `_hints`; `ANY_TRY` without one); `section` names the lecture section to reread
    (without one, the lecture of the set being worked on).
    """

    def __init__(self, message: str, *, hint: Hint | None = None, section: str | None = None):
        hint = hint_text(hint)
        self.problem = message
        self.hint = hint
        self.section = section
        reread = section
        if not reread:
            from ._diagnose import current_set  # the set worked on, read from the running cells

            reread = current_set()
        parts = [message, f"Try: {hint or ANY_TRY}"]
        if reread:
            parts.append(f"Reread: {lecture_link(reread)}")
        super().__init__("\n".join(parts))


def name_of(f: object, what: str | None = None) -> str:
    """What a message calls the function `f`: `what` if given, else its name (a lambda is "the function")."""
    name = getattr(f, "__name__", None) or getattr(getattr(f, "func", None), "__name__", None)
    return what or (name if name and name != "<lambda>" else "the function")
