"""A JupyterHub for the course, with nbgrader's exchange between instructors and students.

Run it from a clone of the course that every user can read (docs/guide/instructors.md, "On a
JupyterHub"), after setting the names below; nbgrader_config.py beside it is what every user's
server reads. The rest is JupyterHub's default: users log in with their system password (PAM) and
each server runs as that system user, in their home folder. Put HTTPS in front of it
(`c.JupyterHub.ssl_key`/`ssl_cert`, or a reverse proxy) before students log in.

tests/environment/test_hub.py runs the whole loop through this file on loopback, with JupyterHub's
test authenticator and spawner instead (every user is the test's system user there).
"""

import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821  (JupyterHub provides it)

HERE = Path(__file__).resolve().parent

# Hub user names (set yours): instructors release, collect, grade and return feedback; students submit.
INSTRUCTORS = {"instructor"}
STUDENTS = {"alice", "bob"}

c.Authenticator.allowed_users = INSTRUCTORS | STUDENTS


def student_id(spawner) -> str:
    """The name a student submits under: their hub user name; instructors have none.

    nbgrader's exchange would otherwise take the server's system user (`nbgrader.utils.get_username`),
    which is not the hub's name on The Littlest JupyterHub (`jupyter-alice` for `alice`) and is one
    shared user on a hub whose spawner runs every server as itself. An instructor's must stay unset:
    `nbgrader collect` and `list --inbound` read it as the student to look for.
    """
    return "" if spawner.user.name in INSTRUCTORS else spawner.user.name


def config_path(spawner) -> str:
    """Where a user's server reads its settings: nbgrader_config.py here, and for students first
    students/, which turns off what only instructors use (formgrader, course list, create assignment)."""
    folders = [HERE] if spawner.user.name in INSTRUCTORS else [HERE / "students", HERE]
    return os.pathsep.join(map(str, folders))


# Every user's server, kernels and terminal commands (nbgrader, jax-course) come from the hub's own
# environment, the course's .venv (`make hub`): first on PATH, as nbgrader needs (it runs `alembic`).
BIN = Path(sys.executable).parent
c.Spawner.cmd = [str(BIN / "jupyterhub-singleuser")]
c.Spawner.environment = {
    "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
    "JUPYTER_CONFIG_PATH": config_path,
    "COURSE_STUDENT_ID": student_id,
}
c.Spawner.default_url = "/lab"

# The proxy from `npm ci` in this folder (package-lock.json pins it); else one on PATH.
_proxy = HERE / "node_modules" / ".bin" / "configurable-http-proxy"
if _proxy.exists():
    c.ConfigurableHTTPProxy.command = [str(_proxy)]
