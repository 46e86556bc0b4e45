"""The course's declared answers, one file per set (`SET.py`): wrong answers a student might submit with the tests
each must fail, and correct answers written another way. `jax-course prove` reads them;
autograder/grading/proving/_declared.py says how they are written.
"""

from autograder.grading.proving._declared import declared

from support import ASSIGNMENTS, ROOT

VARIANTS = {assignment: declared(ROOT, assignment) for assignment in ASSIGNMENTS}
