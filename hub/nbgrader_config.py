"""nbgrader on the course's hub: every user's server reads this (jupyterhub_config.py puts this
folder on JUPYTER_CONFIG_PATH), and so does nbgrader in their terminals. A course folder's own
nbgrader_config.py (the repository's, for an instructor) adds to it."""

import os

c = get_config()  # noqa: F821  (nbgrader provides it)

# One exchange for the whole hub: instructors release into it and collect from it, students
# fetch from it and submit to it. It must exist and be writable by everyone (chmod 777).
c.Exchange.root = "/srv/nbgrader/exchange"

# A student submits and fetches feedback under their hub user name (set by jupyterhub_config.py);
# an instructor has none ("*": every student), as collect needs.
c.CourseDirectory.student_id = os.environ.get("COURSE_STUDENT_ID") or "*"
