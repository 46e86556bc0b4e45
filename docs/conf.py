"""The course site: the README, the guides, every lecture with its outputs, every exercise set as released.

Built by `make site` (Sphinx, myst-nb, sphinx-book-theme) from the repository root into
`build/site/`. Lectures are not run here when the tests have already run them: their executed
notebooks wait in a jupyter-cache (`build/jupyter_cache`), matched by their code.
"""

from __future__ import annotations

import os
import shutil
import sys
import tomllib
from pathlib import Path

from sphinx.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
_project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

import lecture_runs  # noqa: E402  (docs/ is on the path only from here)

project = "Learn JAX properly"
copyright = "the course's authors, Apache-2.0"
version = release = _project["version"]

# githubpages writes .nojekyll, so GitHub Pages serves the _static/ folders as they are.
extensions = ["myst_nb", "sphinx.ext.githubpages"]
root_doc = "README"
# Only what a reader should see: never solutions/, hidden tests or the grader's own files.
include_patterns = [
    "README.md",
    "docs/guide/*.md",
    "autograder/INTEGRITY.md",
    "course/[0-9]*.ipynb",
    "exercises/[0-9]*/*.ipynb",
]
exclude_patterns = [".venv", "build", "hub/node_modules", "**/.ipynb_checkpoints"]

# Lectures come from the cache the tests fill (tests/course/test_notebooks.py), or run once here.
nb_execution_mode = "cache"
nb_execution_cache_path = str(lecture_runs.CACHE)
# Exercises are shown as released: unanswered, so running them would only raise NotImplementedError.
nb_execution_excludepatterns = ["exercises/*/*.ipynb"]
nb_execution_timeout = 300
nb_execution_raise_on_error = True
# IPython's traceback lexer stops at some quotes in JAX's errors (cells tagged raises-exception);
# Sphinx then highlights those tracebacks in its relaxed mode, and says so in a warning.
suppress_warnings = ["misc.highlighting_failure"]

# Headings get the anchors JupyterLab gives them (`#NaN-gradients-through-jnp.where`), so a link
# between notebooks, or a check's "Reread:", leads to the same place on the site and in the lab.
myst_heading_anchors = 6
myst_heading_slug_func = "jupyter_anchors.jupyter_anchor"

html_theme = "sphinx_book_theme"
html_title = project
html_theme_options = {
    "repository_url": _project["urls"]["Repository"],
    "repository_branch": "main",
    "use_repository_button": True,
    "use_download_button": True,
    "launch_buttons": {
        "binderhub_url": "https://mybinder.org",
        "colab_url": "https://colab.research.google.com",
        "notebook_interface": "jupyterlab",
    },
}


# Pages built elsewhere, served beside the site's: the item-analysis example (the Makefile's ITEM_ANALYSIS_EXAMPLE).
html_extra_path = [str(ROOT / "build" / "site-examples")]


def _docs(folder: Path, pattern: str) -> list[str]:
    return sorted(path.relative_to(folder).with_suffix("").as_posix() for path in folder.glob(pattern))


# The guides the README points each reader to, in the order a reader meets them (a guide not
# listed here is in no contents, which `make site` reports as an error).
GUIDES = ["students", "self-learners", "mistakes", "instructors", "checks", "tables", "developers"]


def _toctree(caption: str, docs: list[str]) -> str:
    return f"\n```{{toctree}}\n:hidden:\n:caption: {caption}\n\n" + "\n".join(docs) + "\n```\n" if docs else ""


def _contents_after_readme(app, docname, source):
    """The README stays the landing page as GitHub shows it; the sidebar's contents follow it."""
    if docname == root_doc:
        folder = Path(app.srcdir)
        guides = [f"docs/guide/{name}" for name in GUIDES if (folder / "docs" / "guide" / f"{name}.md").is_file()]
        source[0] += _toctree("Guides", guides)
        source[0] += _toctree("Lectures", _docs(folder, "course/[0-9]*.ipynb"))
        source[0] += _toctree("Exercises", _docs(folder, "exercises/[0-9]*/*.ipynb"))
        source[0] += _toctree("For instructors", _docs(folder, "autograder/INTEGRITY.md"))


def _landing_page_as_index(app, exception):
    """Web servers (GitHub Pages too) open index.html: the README's page, under that name too."""
    if exception is None and app.builder.format == "html":
        shutil.copy(Path(app.outdir) / "README.html", Path(app.outdir) / "index.html")


def _lectures_run_by_the_tests(app, config):
    """`make test` builds from the runs its lecture tests stored: running a lecture again here
    would pay for it twice, so a lecture without one stops the build, with its name."""
    if os.environ.get("SITE_LECTURES_FROM_TESTS"):
        missing = lecture_runs.not_stored(sorted(ROOT.glob("course/[0-9]*.ipynb")))
        if missing:
            names = ", ".join(path.name for path in missing)
            raise ConfigError(f"No stored run of {names}: tests/course/test_notebooks.py stores each lecture it ran.")


def setup(app):
    app.connect("config-inited", _lectures_run_by_the_tests)
    app.connect("source-read", _contents_after_readme)
    app.connect("build-finished", _landing_page_as_index)
