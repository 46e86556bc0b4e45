"""The instructor side: the `jax-course` command, batch grading, the self-check, Colab
badges and the nbgrader plugins. Needs nbgrader, never JAX.

- `jax-course grade`: `_run.py` drives a batch; `_convert.py` is nbgrader's converter,
  `_runner.py` and `_driver.py` run one notebook under limits, `_ledger.py` remembers
  what is done, `_failures.py` says why a submission could not be graded, `_report.py`
  writes what the instructor reads; `_seed.py` picks the seed hidden inputs come from (both graders).
- `jax-course check` and `ag.check_my_work()`: `_selfcheck.py` runs the notebook, `_selfreport.py`
  says what each test found; `jax-course watch`: `_watch.py` checks again on every save.
- Warm kernels, for every path that runs a notebook: `kernels.py` is the kernel manager nbclient
  takes, `_nursery.py` the process it forks fresh kernels from (`_in_the_nursery.py` runs there).
- `jax-course references`: `_references.py`; `jax-course badges`: `_colab.py`.
- Verdicts outside the kernel: `_verification.py` adds the hand-over cells and applies the verdicts;
  `_verifier.py` runs the verifier's processes, kept warm between notebooks.
- nbgrader's plugins: `plugins.py`: preprocessors (with `_tampering.py`, and `WarmExecute`), the LMS collector and
  grade exports (with `_lms.py`).
"""

import importlib as _importlib
import sys as _sys
import types as _types

# jsonschema imports `rfc3987_syntax`, where installed (jupyter-events installs it), only to check
# the "iri" string format, which neither nbformat's nor nbgrader's schemas use; building its grammar
# is most of the time `import nbformat` takes. Without it, jsonschema leaves that format unchecked.
_sys.modules.setdefault("rfc3987_syntax", None)  # pyright: ignore[reportArgumentType] (None: "not installed")


def _loaded_when_used(name: str) -> _types.ModuleType:
    """A stand-in for the server extension `name`: the real module is imported when the extension is
    loaded, or anything else is read from it (nbgrader's `__init__` only takes the loading function)."""
    stand_in = _types.ModuleType(name)

    def real(attribute: str):
        if attribute.startswith("__"):  # the import system asking what kind of module this is
            raise AttributeError(attribute)
        if _sys.modules.get(name) is stand_in:
            del _sys.modules[name]
        return getattr(_importlib.import_module(name), attribute)

    def load_jupyter_server_extension(app):
        return real("load_jupyter_server_extension")(app)

    stand_in.__getattr__ = real  # pyright: ignore[reportAttributeAccessIssue] (a module's own __getattr__, PEP 562)
    stand_in.load_jupyter_server_extension = load_jupyter_server_extension  # pyright: ignore[reportAttributeAccessIssue]
    return stand_in


# `import nbgrader` imports its Jupyter server extensions, and with them jupyter_server and tornado: most
# of the time grading or a self-check spends before it starts. Nothing here serves Jupyter, so each is
# imported when first used (a Jupyter server that loads them gets the real ones).
if "nbgrader" not in _sys.modules:
    for _extension in ("assignment_list", "course_list", "validate_assignment", "formgrader"):
        _name = f"nbgrader.server_extensions.{_extension}"
        _sys.modules.setdefault(_name, _loaded_when_used(_name))

from ._cli import main  # noqa: E402  (after the line above)
from ._selfcheck import check_my_work, check_notebook  # noqa: E402

__all__ = ["check_my_work", "check_notebook", "main"]
