"""The instructor side: the `jax-course` command, batch grading, the self-check, Colab
badges and the nbgrader plugins. Needs nbgrader, never JAX.

- `jax-course grade`: `_run.py` drives a batch; `_convert.py` is nbgrader's converter,
  `_runner.py` and `_driver.py` run one notebook under limits, `_ledger.py` remembers
  what is done, `_report.py` writes what the instructor reads.
- `jax-course check` and `ag.check_my_work()`: `_selfcheck.py` runs the notebook, `_selfreport.py`
  says what each test found.
- `jax-course references`: `_references.py`; `jax-course badges`: `_colab.py`.
- nbgrader's plugins: `plugins.py`: preprocessors (with `_tampering.py`), the LMS collector and
  grade exports (with `_lms.py`).
"""

from ._cli import main
from ._selfcheck import check_my_work, check_notebook

__all__ = ["check_my_work", "check_notebook", "main"]
