"""nbgrader settings for this course: solutions/ is the source, exercises/ the release."""

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import ClearHiddenTests, GetGrades

from autograder.feedback import ShortenTestErrors

c = get_config()  # noqa: F821  (nbgrader provides it)

c.CourseDirectory.course_id = "jax-course"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"

# JAX notebooks start slowly and timing checks measure for several seconds; a
# hung cell still ends here. Timeouts count per cell.
c.Execute.timeout = 120

# Feedback keeps each test's message (what a student acts on) but never its code:
# hidden tests and reference code stay with the instructor (jupyter/nbgrader#917).
# Tracebacks quote test code, so they are cut to the error's name and message.
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, ShortenTestErrors, CSSHTMLHeaderPreprocessor]
