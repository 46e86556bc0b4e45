"""The site's page "Common JAX mistakes and what the checks say" (docs/guide/mistakes.md), written from the
checks' own catalogue (autograder/checks/_mistakes.py): `python docs/mistakes_page.py` rewrites it."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "guide" / "mistakes.md"

INTRO = """\
# Common JAX mistakes and what the checks say

When a test cell fails because of one of these mistakes, its message ends with the three lines
below the mistake: what it means, what to try, and the section to reread. The section is the one
in the lecture of the set you are working on, or the latest lecture before it that teaches it.
Look a message up here by the words JAX or the check shows ("You see").

This page is written from the checks' own catalogue (`autograder/checks/_mistakes.py`), so it says
what the checks say.
"""


def _link(lecture: str, heading: str) -> str:
    from jupyter_anchors import jupyter_anchor

    from autograder.checks._errors import LECTURES

    return f"[lecture {lecture}, {heading}](../../{LECTURES[lecture]}#{jupyter_anchor(heading)})"


def _sentence(text: str) -> str:
    """`text` as a sentence: its first letter a capital, unless it starts with code (`jax.grad`, `vmap`), which is
    written as code is, in backticks."""
    first, _, rest = text.partition(" ")
    if "." in first.rstrip(".,:;") or first in _CODE_WORDS:
        return f"`{first}` {rest}"
    return text[0].upper() + text[1:]


_CODE_WORDS = {"vmap", "jit", "grad", "scan", "pmap", "jnp", "lax"}


PYTHON_INTRO = """
## Python's own errors in an answer

An error Python raises in your code (or when JAX calls a function of yours) gets these words, and rereads
the section the failing test names, or your set's lecture. Where a problem has words of its own for an error
(`autograder/checks/raises/SET.toml`), its failure shows those instead.
"""


def render() -> str:
    from autograder.checks._mistakes import ANY_ERROR, MISTAKES, PYTHON, TEST_ASSERTION

    parts = [INTRO]
    level = "##"
    for mistake in (*MISTAKES, None, *PYTHON, TEST_ASSERTION, ANY_ERROR):
        if mistake is None:
            parts.append(PYTHON_INTRO)
            level = "###"  # within that section
            continue
        taught = "; ".join(_link(lecture, heading) for lecture, heading in sorted(mistake.taught.items()))
        taught = taught or "the section the failing test names"
        parts.append(
            f"\n{level} {mistake.title}\n\n"
            f"- **You see:** `{mistake.shows}`\n"
            f"- **What it means:** {_sentence(mistake.cause)}\n"
            f"- **Try:** {_sentence(mistake.hint)}\n"
            f"- **Reread:** {taught}\n"
        )
    return "".join(parts)


if __name__ == "__main__":
    sys.path[:0] = [str(ROOT), str(ROOT / "docs")]
    PAGE.write_text(render())
    print(f"rewrote {PAGE.relative_to(ROOT)}")
