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


def render() -> str:
    from autograder.checks._mistakes import MISTAKES

    parts = [INTRO]
    for mistake in MISTAKES:
        taught = "; ".join(_link(lecture, heading) for lecture, heading in sorted(mistake.taught.items()))
        parts.append(
            f"\n## {mistake.title}\n\n"
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
