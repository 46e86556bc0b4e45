"""The course site as `make site` built it (build/site): complete, linked, and leak-free.

`make test` builds it after the other tiers, from the lecture runs they stored, then runs these.
"""

from __future__ import annotations

import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

from autograder.checks._errors import lecture_link
from autograder.grading.authoring._colab import repository

import lecture_runs
from support import ASSIGNMENTS, LECTURES, ROOT, secret_lines, section_links

pytestmark = pytest.mark.site

SITE = ROOT / "build" / "site"
# Each notebook's page, as its path in the repository without the suffix.
NOTEBOOKS = [p.relative_to(ROOT).with_suffix("").as_posix() for p in LECTURES]
NOTEBOOKS += [f"exercises/{a}/{a}" for a in ASSIGNMENTS]


@pytest.fixture(scope="module")
def pages() -> dict[Path, Page]:
    if not (SITE / "index.html").is_file():
        pytest.fail(f"no site in {SITE.relative_to(ROOT)}: run `make site` first (`make test` does)")
    # _static/ holds the theme's own templates and scripts, not pages.
    return {path: Page.read(path) for path in SITE.rglob("*.html") if "_static" not in path.relative_to(SITE).parts}


class Page(HTMLParser):
    """One built page: its links, its ids, its text, and the images in its cells' outputs (their alt texts)."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self.output_images = 0
        self.output_alts: list[str | None] = []
        self._divs: list[bool] = []  # for each open <div>: is it a cell's output?

    @classmethod
    def read(cls, path: Path) -> Page:
        page = cls()
        page.feed(path.read_text())
        return page

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("href", "src"):
            if attrs.get(name):
                self.links.append(attrs[name])
        self.ids.update(attrs[name] for name in ("id", "name") if attrs.get(name))
        if tag == "div":
            self._divs.append("cell_output" in (attrs.get("class") or "").split())
        elif tag == "img" and any(self._divs):
            self.output_images += 1
            self.output_alts.append(attrs.get("alt"))

    def handle_endtag(self, tag):
        if tag == "div" and self._divs:
            self._divs.pop()

    def handle_data(self, data):
        self.text.append(data)

    def lines(self) -> set[str]:
        return {line.strip() for line in "".join(self.text).splitlines()}


def _page(doc: str) -> Path:
    return SITE / f"{doc}.html"


def test_every_lecture_and_exercise_set_has_a_page_and_no_solution_does(pages):
    missing = [doc for doc in NOTEBOOKS if _page(doc) not in pages]
    assert not missing, f"no page for {missing}"
    assert not (SITE / "solutions").exists()


def test_every_notebook_page_launches_and_downloads_its_own_notebook(pages):
    repo = repository(ROOT).removeprefix("https://github.com/")
    for doc in NOTEBOOKS:
        links = set(pages[_page(doc)].links)
        assert f"https://mybinder.org/v2/gh/{repo}/main?urlpath=lab/tree/{doc}.ipynb" in links, doc
        assert f"https://colab.research.google.com/github/{repo}/blob/main/{doc}.ipynb" in links, doc
        download = [link for link in links if link.endswith(f"_sources/{doc}.ipynb")]
        assert download and (SITE / "_sources" / f"{doc}.ipynb").is_file(), doc


def test_a_notebook_page_opens_on_its_title_without_colabs_badge_or_setup_cell():
    """The badge and the setup cell come first for Colab; on the site the page's title does (`remove-cell`)."""
    wrong = []
    for doc in NOTEBOOKS:
        html = _page(doc).read_text()
        article = html[html.index('<article class="bd-article"') :]
        first = re.search(r'<h1\b|<div class="cell\b', article)
        if first is None or not first.group(0).startswith("<h1"):
            wrong.append(f"{doc}: a cell comes before the title")
        if "#@title Setup" in article or "colab-badge" in article:
            wrong.append(f"{doc}: shows the Colab badge or setup cell")
    assert not wrong, "\n".join(wrong)


def test_every_internal_link_reaches_a_page_and_its_anchor(pages):
    broken = []
    for path, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith(("//", "mailto:")) or not (parts.path or parts.fragment):
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{path.relative_to(SITE)}: {link}")
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in pages[target].ids:
                broken.append(f"{path.relative_to(SITE)}: {link} (no such anchor)")
    assert not broken, "broken links:\n" + "\n".join(broken[:20])


def test_every_section_a_check_tells_a_student_to_reread_is_an_anchor_on_the_site(pages):
    missing = []
    for lecture, heading in sorted(section_links()):
        path, _, anchor = lecture_link(f"{lecture}#{heading}").partition("#")
        if anchor not in pages[SITE / Path(path).with_suffix(".html")].ids:
            missing.append(f"{path}#{anchor}")
    assert not missing, f"no such anchor on the site: {missing}"


def _figures(notebook: nbformat.NotebookNode) -> int:
    return sum(
        any(kind.startswith("image/") for kind in output.get("data", {}))
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )


@pytest.mark.parametrize("lecture", LECTURES, ids=lambda p: p.stem)
def test_a_lecture_page_shows_every_figure_its_run_made(lecture, pages):
    run = lecture_runs.executed(lecture)
    assert run is not None, f"no stored run of {lecture.name} matches its code: the site shows another run"
    made = _figures(run)
    shown = pages[_page(f"course/{lecture.stem}")].output_images
    assert shown == made, f"{lecture.name} made {made} figures; its page shows {shown}"


def test_lectures_with_plots_show_them(pages):
    plotted = [p for p in LECTURES if "plt." in p.read_text()]
    assert len(plotted) >= 5
    bare = [p.name for p in plotted if pages[_page(f"course/{p.stem}")].output_images == 0]
    assert not bare, f"lectures that plot but whose pages show no figure: {bare}"


# What myst-nb writes as alt text when a cell's metadata gives none: the image's file, named by its hash.
_FILE_PATH = re.compile(r"^\S*[/\\]\S*$|\.(png|jpe?g|gif|svg|pdf)$|[0-9a-f]{32}", re.IGNORECASE)


def test_every_figure_says_what_it_shows(pages):
    """A screen reader reads a figure's alt text out: it must say what the figure shows, which the cell's
    metadata gives (`"mystnb": {"image": {"alt": ...}}`), never the file's path."""
    figures, wrong = 0, []
    for lecture in LECTURES:
        for n, alt in enumerate(pages[_page(f"course/{lecture.stem}")].output_alts, start=1):
            figures += 1
            if not (alt or "").strip() or _FILE_PATH.search(alt.strip()):
                wrong.append(f"{lecture.name}, figure {n}: alt={alt!r}")
    assert figures >= 5, f"only {figures} figures on the lecture pages"
    assert not wrong, "figures whose alt text is empty or a file path:\n" + "\n".join(wrong)


@pytest.fixture(scope="module")
def shown(pages) -> set[str]:
    """Every line of text the site shows, and every line of the notebooks it offers for download."""
    shown = {line for page in pages.values() for line in page.lines()}
    for source in SITE.glob("_sources/**/*.ipynb"):
        shown |= {line.strip() for c in nbformat.read(source, as_version=4).cells for line in c.source.splitlines()}
    return shown


def test_no_page_shows_a_hidden_test(shown):
    hidden = {line: a for a in ASSIGNMENTS for line in secret_lines(a, kinds=("hidden test",))}
    assert len(hidden) > 100
    leaked = sorted(f"{hidden[line]}: {line}" for line in shown & hidden.keys())
    assert not leaked, "the site shows hidden tests:\n" + "\n".join(leaked[:10])
    marker = re.compile(r"### (BEGIN|END) (SOLUTION|HIDDEN TESTS)")
    # The instructors' guide teaches writing a problem with those markers, around a worked example's own answer
    # (no set's: the check above holds it to every set's hidden lines, as every page).
    teaching = {Path("docs/guide/instructors.html")}
    files = [
        p
        for p in SITE.rglob("*.*")
        if p.suffix in {".html", ".ipynb", ".txt", ".js"} and p.relative_to(SITE) not in teaching
    ]
    markers = [str(p.relative_to(SITE)) for p in files if marker.search(p.read_text(errors="replace"))]
    assert not markers, f"nbgrader's markers in {markers}"


def test_no_page_shows_an_answer_its_lecture_does_not_teach(shown):
    """An answer's line may also be a lecture's own code (`for _ in range(steps):`, the Hessian-vector
    product lecture 06 derives): those are public already. Any other answer line is a leak."""
    answers = {line: a for a in ASSIGNMENTS for line in secret_lines(a, kinds=("answer",))}
    assert len(answers) > 100
    lectures = [nbformat.read(path, as_version=4) for path in LECTURES]
    taught = {line.strip() for nb in lectures for c in nb.cells for line in c.source.splitlines()}
    leaked = sorted(f"{answers[line]}: {line}" for line in (shown & answers.keys()) - taught)
    assert not leaked, "the site shows answers:\n" + "\n".join(leaked[:10])


def test_a_broken_link_fails_the_build(tmp_path):
    """`make site` treats warnings as errors: a link to a page that does not exist stops it."""
    source = tmp_path / "source"
    source.mkdir()

    def build(readme: str) -> subprocess.CompletedProcess:
        (source / "README.md").write_text(readme)
        command = ["make", "-s", "site", f"SITE_SOURCE={source}", f"SITE_BUILD={tmp_path / 'site'}"]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True)

    good = build("# A course\n\nSee [the same page](README.md).\n")
    assert good.returncode == 0, good.stdout + good.stderr
    broken = build("# A course\n\nSee [lecture 4](course/04_jit.ipynb).\n")
    assert broken.returncode != 0
    assert "course/04_jit" in broken.stdout + broken.stderr
