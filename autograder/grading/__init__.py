"""The instructor side: the `jax-course` command, batch grading, the self-check, Colab
badges and the nbgrader plugins. Needs nbgrader, never JAX.

A package per stage, each importing only those listed below it (an import-linter contract):

- `_cli.py`: `jax-course`, each command handed to the package that does it.
- `reports/`: what an instructor reads after grading (report.html, the item analysis);
  `authoring/`: for whoever edits the course (Colab badges, INTEGRITY.md's table).
- `batch/`: `jax-course grade`, a whole class, each notebook run under limits;
  `selfcheck/`: `ag.check_my_work()`, `jax-course check` and `watch`, for a self-learner.
- `plugins/`: what plugs into nbgrader (`nbgrader_config.py`): preprocessors, LMS collector, grade exports.
- `references/`: what hidden tests compare against: the grader's seed, recorded references and tests.
- `verification/`: verdicts a kernel cannot fake, from a process that runs no student code.
- `kernels/`: where every notebook's kernel comes from, forked fresh from a warm nursery.
- `_cells.py`: which cells are tests, as nbgrader marks them: what every stage reads of a notebook.

A package's `__init__` says what it is for and imports nothing (but `plugins`, whose classes nbgrader names),
so that importing one module (the forkserver's `batch/_driver.py`, a nursery's `kernels/_in_the_nursery.py`)
loads no other: other packages import a name from the module that defines it.
"""

import gc as _gc
import importlib as _importlib
import sys as _sys
import types as _types
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what `__getattr__` hands out, for editors and type checkers
    from .selfcheck._selfcheck import check_my_work, check_notebook

# Libraries imported only if installed, for what no process here does. jsonschema checks string formats
# with them (`rfc3987_syntax` builds a grammar for "iri", most of the time `import nbformat` takes;
# python-jsonschema/jsonschema#1428), and neither nbformat's nor nbgrader's schemas use a string format.
# nbconvert imports its `--post serve` (and tornado) for `jupyter nbconvert` alone. Marked absent (None)
# before anything imports them, the format goes unchecked and the post-processor unoffered. Not in a
# learner's kernel (`ag.check_my_work()`), which may import any of them, nor once they may be in use.
_OPTIONAL_UNUSED = ["rfc3987_syntax", "isoduration", "fqdn", "webcolors", "jsonpointer", "uri_template"]
_OPTIONAL_UNUSED += ["rfc3339_validator", "rfc3986_validator", "nbconvert.postprocessors.serve"]
if not {"jsonschema", "nbconvert", "ipykernel"} & _sys.modules.keys():
    for _name in _OPTIONAL_UNUSED:
        _sys.modules.setdefault(_name, None)  # pyright: ignore[reportArgumentType] (None: "not installed")


def _loaded_when_used(name: str, functions: tuple[str, ...]) -> _types.ModuleType:
    """A stand-in for module `name`: the real module is imported when one of its `functions` is called, or
    anything else is read from it (its importers only take those functions, and call them later)."""
    stand_in = _types.ModuleType(name)

    def real(attribute: str):
        if attribute.startswith("__"):  # the import system asking what kind of module this is
            raise AttributeError(attribute)
        if _sys.modules.get(name) is stand_in:
            del _sys.modules[name]
        return getattr(_importlib.import_module(name), attribute)

    def calling(function: str):
        return lambda *args, **kwargs: real(function)(*args, **kwargs)

    stand_in.__getattr__ = real  # pyright: ignore[reportAttributeAccessIssue] (a module's own __getattr__, PEP 562)
    for function in functions:
        setattr(stand_in, function, calling(function))
    return stand_in


# `import nbgrader` imports its Jupyter server extensions, and with them jupyter_server and tornado: most
# of the time grading or a self-check spends before it starts. Nothing here serves Jupyter, so each is
# imported when first used (a Jupyter server that loads them gets the real ones).
if "nbgrader" not in _sys.modules:
    for _extension in ("assignment_list", "course_list", "validate_assignment", "formgrader"):
        _name = f"nbgrader.server_extensions.{_extension}"
        _sys.modules.setdefault(_name, _loaded_when_used(_name, ("load_jupyter_server_extension",)))

# In the `jax-course` command alone (not in a kernel that imports the self-check), more libraries wait
# until used: setuptools, which nbgrader imports for `zip_collect`'s unpacking, requests, for its
# JupyterHub authenticator, and Beautiful Soup, which nbconvert imports for the HTML of feedback.
_USED_LATER = {
    "setuptools.archive_util": ("unpack_archive", "unpack_tarfile", "unpack_zipfile"),
    "requests": (),
    "bs4": ("BeautifulSoup",),
}

from ._cli import main as _main  # noqa: E402  (after the lines above)


def __getattr__(name: str):
    """The self-check's functions, imported when first asked for: no other command, nor a grader's forkserver
    (which imports this package first), uses them."""
    if name in ("check_my_work", "check_notebook"):
        from .selfcheck import _selfcheck

        return getattr(_selfcheck, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> int:
    """The `jax-course` command."""
    if "nbgrader" not in _sys.modules:
        for name, functions in _USED_LATER.items():
            if name.partition(".")[0] not in _sys.modules:
                _sys.modules.setdefault(name, _loaded_when_used(name, functions))
    try:
        return _main(argv)
    finally:
        # At exit, the interpreter's last garbage collection walks every object of some thousand modules, a
        # quarter of a second on each command; frozen objects are skipped (atexit handlers and finalizers
        # still run).
        _gc.freeze()


__all__ = ["check_my_work", "check_notebook", "main"]
