"""The README and the guides it points to (docs/guide/): every guide linked, every link reaching its target.

The same Markdown is read on GitHub and on the site, so a link must work in both: to a file that
exists, and to a heading whose anchor is the same on GitHub (lower case) and on the site
(JupyterLab's, docs/jupyter_anchors.py), or to a notebook heading as JupyterLab names it.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest
from jupyter_anchors import jupyter_anchor

from support import ROOT

pytestmark = pytest.mark.unit

README = ROOT / "README.md"
GUIDES = sorted((ROOT / "docs" / "guide").glob("*.md"))
_LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def _headings(markdown: str) -> list[str]:
    return [line.lstrip("#").strip() for line in _FENCE.sub("", markdown).splitlines() if line.startswith("#")]


def _github_anchor(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def _anchors(target: Path) -> set[str]:
    """The anchors a link may name in `target`: for Markdown, those GitHub and the site agree on."""
    if target.suffix == ".ipynb":
        nb = nbformat.read(target, as_version=4)
        return {jupyter_anchor(h) for c in nb.cells if c.cell_type == "markdown" for h in _headings(c.source)}
    return {jupyter_anchor(h) for h in _headings(target.read_text()) if jupyter_anchor(h) == _github_anchor(h)}


def test_there_is_a_guide_for_each_reader_and_each_starts_with_its_title():
    names = {path.stem for path in GUIDES}
    assert {"students", "self-learners", "instructors", "checks", "tables", "developers"} <= names
    for path in GUIDES:
        assert path.read_text().startswith("# "), f"{path.name} does not start with a level-1 heading"


def test_the_readme_links_every_guide():
    links = {urlsplit(link).path for link in _LINK.findall(README.read_text())}
    missing = [path.name for path in GUIDES if path.relative_to(ROOT).as_posix() not in links]
    assert not missing, f"README.md links no {missing}"


@pytest.mark.parametrize("page", [README, *GUIDES], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_reaches_a_file_and_its_heading(page: Path):
    broken = []
    for link in _LINK.findall(page.read_text()):
        parts = urlsplit(link)
        if parts.scheme or link.startswith("//"):
            continue
        target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif parts.fragment and unquote(parts.fragment) not in _anchors(target):
            broken.append(f"{link}: no heading with that anchor on both GitHub and the site")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)
