"""nbgrader settings for this course: solutions/ is the source, exercises/ the release."""

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.converters import Autograde
from nbgrader.preprocessors import (
    CheckCellMetadata,
    ClearHiddenTests,
    ClearOutput,
    DeduplicateIds,
    Execute,
    GetGrades,
    OverwriteKernelspec,
)

from autograder._config import GUARD_ARGUMENTS
from autograder.grading.plugins import (
    HandOver,
    LmsCollector,
    OwnResultsOnly,
    RefuseTampering,
    RestoreCells,
    ShortenTestErrors,
    Verify,
    WarmExecute,
)

c = get_config()  # noqa: F821  (nbgrader provides it)

c.CourseDirectory.course_id = "jax-course"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"

# JAX notebooks start slowly and timing checks measure for several seconds; a
# hung cell still ends here. Timeouts count per cell.
c.Execute.timeout = 120
# A busy grading machine can deliver a cell's output after nbgrader's 4 s wait for it, which fails the
# whole notebook (jupyter/nbgrader#1230); a kernel that dies is still noticed within a second.
c.Execute.iopub_timeout = 30

# Defences against tampering (autograder/INTEGRITY.md). After the locked cells are restored (nbgrader's
# OverwriteCells, warning of a changed test only where the student changed it: `RestoreCells`),
# a student cell that replaces the grader's tools, ends processes or runs code from text is
# not run. Before any cell, the kernel caps file sizes and records the tools the checks trust, with
# the submission's folder off sys.path until then, so no file handed in beside the notebook stands in
# for a module (nbgrader's default kernel argument, an in-memory history, is kept).
c.Autograde.sanitize_preprocessors = [
    ClearOutput,
    DeduplicateIds,
    OverwriteKernelspec,
    RestoreCells,
    RefuseTampering,
    CheckCellMetadata,
    HandOver,
]
# Each notebook gets a fresh kernel of its own, forked from a process that has already imported
# NumPy, JAX and the checks (autograder/grading/kernels/), rather than a new interpreter importing them.
# The kernel runs the student's code, so it cannot be trusted to judge it: right after it, the verified
# answers it handed over are checked in a process of their own (`Verify`, autograder/INTEGRITY.md). Then no
# value the student's code showed in a test cell is read as that cell's score (`OwnResultsOnly`).
c.Autograde.autograde_preprocessors = [
    replaced
    for step in Autograde.class_traits()["autograde_preprocessors"].default()
    for replaced in ([WarmExecute, Verify, OwnResultsOnly] if step is Execute else [step])
]
c.Execute.extra_arguments = [
    "--HistoryManager.hist_file=:memory:",
    *GUARD_ARGUMENTS,
]
# What one submission may take of the machine: a kernel and all it starts, and the verifier running its
# programs, are stopped past this memory (MB), and a kernel past 1 GB of files (`files_mb`); the notebook or the
# test then fails, saying which (`jax-course grade` takes its own --memory for both).
c.WarmKernelManager.memory_mb = 4096
c.Verify.memory_mb = 4096
# And the verifier's time for one notebook in all (s): an honest notebook's verdicts take well under a minute.
c.Verify.timeout = 600

# Feedback keeps each test's message (what a student acts on) but never its code:
# hidden tests and reference code stay with the instructor (jupyter/nbgrader#917).
# Tracebacks quote test code, so they are cut to the error's name and message.
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, ShortenTestErrors, CSSHTMLHeaderPreprocessor]

# An LMS download (Canvas's or Moodle's zip, put in downloaded/<assignment>/archive/) goes into
# submitted/<LMS id>/ with `nbgrader zip_collect <assignment>`; what it cannot place is reported.
c.ZipCollectApp.collector_plugin = LmsCollector
