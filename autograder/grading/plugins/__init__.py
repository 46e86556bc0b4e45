"""What plugs into nbgrader (`nbgrader_config.py` names them): preprocessors, the LMS collector and grade exports.

- `RestoreCells`, in the autograde sanitize step: nbgrader's `OverwriteCells`, which warns of a changed test
  cell only where the student changed it (nbgrader warns of every cell with hidden tests, jupyter/nbgrader#1961).
- `RefuseTampering`, in the autograde sanitize step: a student-editable cell that reaches
  for the grader's tools is not run; its source becomes an error saying why.
- `ShortenTestErrors`, in feedback: IPython tracebacks quote the lines around the failing
  call, so a hidden test that raises would show its own code even after nbgrader's
  `ClearHiddenTests` blanks the cell (jupyter/nbgrader#917). Only the error's name and
  message, what the student acts on, are kept.
- `WarmExecute`, in the autograde step: nbgrader's `Execute`, with kernels forked warm
  (`kernels/`).
- `HandOver`, in the sanitize step, and `Verify`, right after `Execute`: the verified answers leave
  the kernel as exported programs, and a process that runs no student code decides their test
  cells (`verification/`).
- `OwnResultsOnly`, right after `Verify`: a value the student's code shows in a test cell is never read as
  its score (`_scores.py`).
- `LmsCollector`, for `nbgrader zip_collect`: a Canvas or Moodle download goes into
  `submitted/<LMS id>/`; a file whose owner cannot be told, a non-notebook and a second
  notebook from one student are each reported, never dropped silently.
- `RefuseLinks`, the converter `nbgrader autograde` uses once this package is imported: a submission that holds
  a link is refused before nbgrader copies what it points to (`_links.py`).
- `CanvasGrades` and `MoodleGrades`, for `nbgrader export --exporter=...`: the CSV the LMS's
  grade import reads.

The preprocessors are in `_preprocessors.py` (`_tampering.py` reads the cells they refuse; `_schema.py` speeds up
nbgrader's own metadata check, installed here), the LMS's plug-ins in `_lms.py`. `_gradebook.py` keeps what
SQLAlchemy says of nbgrader's gradebook out of `jax-course grade` and `check_my_work`.
"""

from ._links import RefuseLinks, refuse_links_in_submissions
from ._lms import CanvasGrades, LmsCollector, MoodleGrades
from ._preprocessors import (
    HandOver,
    OwnResultsOnly,
    RefuseTampering,
    RestoreCells,
    ShortenTestErrors,
    Verify,
    WarmExecute,
)
from ._schema import check_each_schema_once

# Every grading path reads this module: nbgrader_config.py imports it.
check_each_schema_once()
refuse_links_in_submissions()

__all__ = [
    "CanvasGrades",
    "HandOver",
    "LmsCollector",
    "MoodleGrades",
    "OwnResultsOnly",
    "RefuseLinks",
    "RefuseTampering",
    "RestoreCells",
    "ShortenTestErrors",
    "Verify",
    "WarmExecute",
]
