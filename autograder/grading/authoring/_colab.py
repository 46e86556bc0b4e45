"""Colab: the "Open in Colab" badge and the setup cell that head every notebook.

The repository's address lives in one place, `[project.urls] Repository` in
`pyproject.toml`. `jax-course badges` rewrites every badge and setup cell from it
(and from the package's and JAX's versions); `jax-course badges --check` lists the
notebooks that are out of date. Exercises are regenerated from `solutions/`
afterwards (`make exercises`), never edited by hand.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import nbformat
from packaging.requirements import Requirement

from ..._config import PIP_SOURCE

BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
SETUP_MARK = "#@title Setup"
_OLD_SETUP_MARK = "# Setup for Colab"
# Its code is folded away: a form in Colab (its title shows), a collapsed input in JupyterLab.
SETUP_METADATA = {"cellView": "form", "jupyter": {"source_hidden": True}}
# Colab needs the badge and the setup cell first; the course site has its own launch buttons, so there the
# page opens on its title (myst-nb leaves out a cell tagged remove-cell).
SITE_HIDDEN = {"tags": ["remove-cell"]}

_SETUP = """\
#@title Setup: installs the course on Colab, or wherever it is missing (elsewhere it does nothing)
# The course package, the version these notebooks belong to, with its pinned JAX, Flax, Optax and Orbax.
import importlib, importlib.metadata, os, shutil, subprocess, sys

COURSE_VERSION, JAX_VERSION = "{version}", "{jax_version}"
try:
    importlib.metadata.version("jax-course")
except importlib.metadata.PackageNotFoundError:
    accelerator = "[cuda12]" if shutil.which("nvidia-smi") else "[tpu]" if os.path.exists("/dev/accel0") else ""
    source = os.environ.get("{variable}", "git+{repository}@{branch}")
    print(f"Installing the course package and JAX {{JAX_VERSION}} (a minute or two) ...", flush=True)
    course = f"jax-course[ecosystem] @ {{source}}"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", course, f"jax{{accelerator}}=={{JAX_VERSION}}"], check=True)
    importlib.invalidate_caches()
    if importlib.metadata.version("jax-course") != COURSE_VERSION:
        raise RuntimeError("The course has moved on since this copy of the notebook: open it again from its badge.")"""  # noqa: E501  (the cell students see)


def project(root: Path) -> dict:
    return tomllib.loads((root / "pyproject.toml").read_text())["project"]


def repository(root: Path) -> str:
    """The repository's web address, e.g. https://github.com/owner/name."""
    url = project(root)["urls"]["Repository"].rstrip("/")
    if not re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url):
        raise ValueError(f"[project.urls] Repository must be https://github.com/OWNER/NAME, not {url!r}")
    return url


def _jax_version(root: Path) -> str:
    for line in project(root)["dependencies"]:
        requirement = Requirement(line)
        pins = [spec.version for spec in requirement.specifier if spec.operator == "=="]
        if requirement.name == "jax" and pins:
            return pins[0]
    raise ValueError("pyproject.toml pins no jax==VERSION")


def colab_url(repo: str, notebook: str, branch: str = "main") -> str:
    return (
        f"https://colab.research.google.com/github/{repo.removeprefix('https://github.com/')}/blob/{branch}/{notebook}"
    )


def badge_source(repo: str, notebook: str, branch: str = "main") -> str:
    """A Markdown badge opening `notebook` (a path in the repository) in Colab."""
    return f"[![Open In Colab]({BADGE_IMAGE})]({colab_url(repo, notebook, branch)})"


def setup_source(root: Path, branch: str = "main") -> str:
    return _SETUP.format(
        version=project(root)["version"],
        jax_version=_jax_version(root),
        variable=PIP_SOURCE,
        repository=repository(root),
        branch=branch,
    )


def _is_badge(cell) -> bool:
    return cell.cell_type == "markdown" and cell.source.startswith("[![Open In Colab]")


def _is_setup(cell) -> bool:
    return cell.cell_type == "code" and cell.source.startswith((SETUP_MARK, _OLD_SETUP_MARK))


def _new_cell(nb, kind: str, source: str, name: str, graded: bool):
    cell = nbformat.v4.new_code_cell(source) if kind == "code" else nbformat.v4.new_markdown_cell(source)
    # A fixed id, so that rewriting an unchanged notebook changes nothing.
    if nb.nbformat_minor < 5:
        cell.pop("id", None)
    else:
        cell["id"] = name.replace("_", "-")
    if graded:
        cell.metadata["nbgrader"] = {
            "grade": False,
            "grade_id": name,
            "locked": True,
            "schema_version": 3,
            "solution": False,
        }
    return cell


def notebooks(root: Path) -> list[tuple[Path, str]]:
    """(file to rewrite, the path a student opens in Colab): lectures, and exercises via solutions/."""
    found = [(p, p.relative_to(root).as_posix()) for p in sorted((root / "course").glob("*.ipynb"))]
    for source in sorted((root / "solutions").glob("*/*.ipynb")):
        found.append((source, f"exercises/{source.parent.name}/{source.name}"))
    return found


def rewrite_notebook(path: Path, opened_as: str, root: Path, *, check: bool = False) -> bool:
    """Put the badge first and the setup cell second in one notebook; True if it changed."""
    nb = nbformat.read(path, as_version=4)
    graded = path.is_relative_to(root / "solutions")
    cells = [c for c in nb.cells if not (_is_badge(c) or _is_setup(c))]
    badge = _new_cell(nb, "markdown", badge_source(repository(root), opened_as), "colab_badge", graded)
    badge.metadata.update(SITE_HIDDEN)
    setup = _new_cell(nb, "code", setup_source(root), "colab_setup", graded)
    setup.metadata.update({**SETUP_METADATA, **SITE_HIDDEN})
    old = [c for c in nb.cells[:2]]
    if (
        len(old) == 2
        and _is_badge(old[0])
        and _is_setup(old[1])
        and (old[0].source, old[0].metadata) == (badge.source, badge.metadata)
        and (old[1].source, old[1].metadata) == (setup.source, setup.metadata)
    ):
        return False
    if not check:
        nb.cells = [badge, setup, *cells]
        nbformat.write(nb, path)
    return True


_README_BADGES = re.compile(r"(<!-- badges -->\n).*?(<!-- /badges -->)", re.S)


def readme_badges(root: Path) -> str:
    repo = repository(root)
    name = repo.removeprefix("https://github.com/")
    binder = f"https://mybinder.org/v2/gh/{name}/main?urlpath=lab/tree/course/01_arrays.ipynb"
    return (
        f"[![Binder](https://mybinder.org/badge_logo.svg)]({binder}) "
        f"[![Open In Colab]({BADGE_IMAGE})]({colab_url(repo, 'course/01_arrays.ipynb')})"
    )


def rewrite_all(root: Path, *, check: bool = False) -> list[str]:
    """Rewrite (or with `check`, only list) every notebook and README whose badges are stale."""
    changed = [opened for path, opened in notebooks(root) if rewrite_notebook(path, opened, root, check=check)]
    readme = root / "README.md"
    text = readme.read_text()
    if not _README_BADGES.search(text):
        raise ValueError("README.md has no <!-- badges --> ... <!-- /badges --> block to rewrite")
    new = _README_BADGES.sub(lambda m: m.group(1) + readme_badges(root) + "\n" + m.group(2), text)
    if new != text:
        changed.append("README.md")
        if not check:
            readme.write_text(new)
    return changed
