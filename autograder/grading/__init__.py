"""The instructor side: the `jax-course` command, batch grading, the self-check, Colab
badges and the nbgrader plugins. Needs nbgrader, never JAX.

- `jax-course grade`: `_run.py` drives a batch; `_convert.py` is nbgrader's converter,
  `_runner.py` and `_driver.py` run one notebook under limits, `_ledger.py` remembers
  what is done, `_failures.py` says why a submission could not be graded, `_report.py`
  writes what the instructor reads.
- `jax-course check` and `ag.check_my_work()`: `_selfcheck.py` runs the notebook, `_selfreport.py`
  says what each test found; `jax-course watch`: `_watch.py` checks again on every save.
- Warm kernels, for every path that runs a notebook: `kernels.py` is the kernel manager nbclient
  takes, `_nursery.py` the process it forks fresh kernels from (`_in_the_nursery.py` runs there).
- `jax-course references`: `_references.py`; `jax-course badges`: `_colab.py`.
- nbgrader's plugins: `plugins.py`: preprocessors (with `_tampering.py`, and `WarmExecute`), the LMS collector and
  grade exports (with `_lms.py`).
"""

import sys as _sys

# jsonschema imports `rfc3987_syntax`, where installed (jupyter-events installs it), only to check
# the "iri" string format, which neither nbformat's nor nbgrader's schemas use; building its grammar
# is most of the time `import nbformat` takes. Without it, jsonschema leaves that format unchecked.
_sys.modules.setdefault("rfc3987_syntax", None)  # pyright: ignore[reportArgumentType] (None: "not installed")

from ._cli import main  # noqa: E402  (after the line above)
from ._selfcheck import check_my_work, check_notebook  # noqa: E402

__all__ = ["check_my_work", "check_notebook", "main"]
