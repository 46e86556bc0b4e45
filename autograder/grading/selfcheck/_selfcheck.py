"""Self-check: a report on your own notebook, with no instructor and no gradebook.

Where the course's `solutions/` folder is at hand (a clone of the repository), the
notebook is graded exactly as an instructor would: nbgrader's autograde, in a
throw-away course, hidden tests included, run in this process. Elsewhere (Colab, a copy anywhere) the
notebook runs in a fresh kernel with its test cells replaced by the package's own
(`tests.json`, hidden tests included); a notebook the package does not know runs as it is.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from traitlets.config.loader import PyFileConfigLoader

from ... import _sandbox
from ..._config import (
    DEFAULT_SEED,
    GRADER_SEED,
    GUARD_ARGUMENTS,
    REFERENCES,
    TIMING,
    environment_with,
    self_check_programs,
    user_cache,
)
from .._cells import grade_id_if_test
from ..kernels import _nursery
from ..references._references import package_tests
from ._calibrate import decide_timing
from ._released import generated
from ._selfreport import CELL_TIMEOUT, ProblemResult, SelfCheck, read_results

# --- running ----------------------------------------------------------------------------------


def compilation_cache(env) -> dict[str, str]:
    """JAX's persistent compilation cache for this user's checks (each compiles much the same programs), which
    the user's own kernel fills as the exercise runs (`checks/_programs.py`), unless `env` names one. No verdict
    depends on it: a compilation found there still counts as one, and an answer compiling while timed fails.
    Grading never reads it: one student's code could change another's programs.
    """
    if env.get("JAX_COMPILATION_CACHE_DIR"):
        return {}
    cache = self_check_programs(env)
    return {"JAX_COMPILATION_CACHE_DIR": str(cache), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}


def find_course(notebook: Path) -> tuple[Path | None, str]:
    """The course checkout holding the notebook's source, and the assignment id."""
    assignment = notebook.stem
    for folder in (notebook.parent, *notebook.parents):
        if (folder / "nbgrader_config.py").is_file() and (
            folder / "solutions" / assignment / f"{assignment}.ipynb"
        ).is_file():
            return folder, assignment
    return None, assignment


@contextmanager
def _quiet_streams():
    """The kernel's own log (a warning about unencrypted local TCP) and nbgrader's are not the learner's
    business: what a cell raises is in its outputs. Both write to this process's descriptors 1 and 2."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, null):
            os.close(fd)


def _succeeded(result: dict, what: str) -> None:
    if not result["success"]:
        tail = "\n".join(f"{result.get('log', '')}\n{result.get('error') or ''}".strip().splitlines()[-15:])
        raise RuntimeError(f"{what} failed:\n{tail}")


def _alembic_head() -> str:
    """The gradebook schema's version, as nbgrader's `get_alembic_version` finds it, without starting the
    `alembic` command (a new interpreter, for every new gradebook)."""
    import nbgrader
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(Path(nbgrader.__file__).parent / "alembic"))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None, "nbgrader ships no gradebook migrations"
    return head


# nbgrader's log in a check, where each result keeps its own (`_succeeded`): not the learner's business. Without
# a logger of its own, nbgrader logs to the running application's, which in a learner's kernel is the kernel's:
# its "exchange directory unwritable" (a check uses no exchange) reached the terminal JupyterLab runs in.
_NBGRADER_LOG = logging.getLogger("jax-course.check.nbgrader")
_NBGRADER_LOG.addHandler(logging.NullHandler())
_NBGRADER_LOG.propagate = False


def _with_hidden_tests(notebook: Path, root: Path, assignment: str, env: dict) -> list[ProblemResult]:
    """Grade the notebook as `nbgrader autograde` would, in a throw-away course, with nbgrader's own
    converters run in this process (no `nbgrader` command to start, and the kernel forked warm)."""
    import nbgrader.api
    from nbgrader.api import Gradebook
    from nbgrader.apps.api import NbGraderAPI

    from ..plugins._gradebook import without_sqlalchemy_warnings

    nbgrader.api.get_alembic_version = _alembic_head

    # What SQLAlchemy says of nbgrader's own use of its gradebook: in a learner's kernel, a warning would show in
    # red under their check_my_work() call.
    with tempfile.TemporaryDirectory(prefix="jax-course-check-") as scratch, without_sqlalchemy_warnings():
        course = Path(scratch)
        shutil.copy(root / "nbgrader_config.py", course / "nbgrader_config.py")
        shutil.copytree(root / "solutions" / assignment, course / "solutions" / assignment)
        submitted = course / "submitted" / "you" / assignment
        submitted.mkdir(parents=True)
        shutil.copy(notebook, submitted / f"{assignment}.ipynb")
        config = PyFileConfigLoader("nbgrader_config.py", str(course)).load_config()
        config.CourseDirectory.root = str(course)
        config.WarmExecute.verify_while_running = True  # a learner waits for this one notebook
        with environment_with(env), _quiet_streams():
            api = NbGraderAPI(config=config, log=_NBGRADER_LOG)
            release = course / config.CourseDirectory.get("release_directory", "release") / assignment

            def generate() -> None:  # unless an earlier check generated these solutions
                _succeeded(api.generate_assignment(assignment, force=True, create=True), "Preparing the assignment")

            generated(course, root, assignment, release, user_cache(env), generate)
            _succeeded(api.autograde(assignment, "you", force=True, create=True), "Grading")
        graded = json.loads((course / "autograded" / "you" / assignment / f"{assignment}.ipynb").read_text())
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
            notebook_grades = gb.find_submission_notebook(assignment, assignment, "you")
            scores = {grade.name: float(grade.score) for grade in notebook_grades.grades}
    return read_results(graded, scores, float(config.Execute.get("timeout", CELL_TIMEOUT)))


def _in_a_kernel(notebook: Path, env: dict, timeout: float, found: tuple[str, dict] | None) -> list[ProblemResult]:
    """Run the notebook as it is, its test cells replaced by the package's (hidden tests included), and its
    verified answers judged by the verifier, as grading judges them (`verification/`)."""
    import nbclient
    import nbformat

    from ..verification._verification import (
        add_hand_overs,
        apply_verdicts,
        failed_in_the_kernel,
        take_hand_overs,
        verify_as_handed,
    )
    from ..verification._verifier import verifier_for

    nb = nbformat.read(notebook, as_version=4)
    assignment, tests = found or ("", {})
    for cell in nb.cells:
        if (test := grade_id_if_test(cell)) in tests:
            cell.source = tests[test]
    from ..kernels._manager import WarmKernelManager

    client = nbclient.NotebookClient(
        nb,
        kernel_manager_class=WarmKernelManager,
        timeout=min(timeout, CELL_TIMEOUT),
        interrupt_on_timeout=True,
        kernel_name="python3",
        allow_errors=True,
        shutdown_kernel="immediate",  # as `WarmExecute` ends a grading kernel
        extra_arguments=GUARD_ARGUMENTS,  # as nbgrader_config.py starts one: the guard runs before any cell
        resources={"metadata": {"path": str(notebook.parent)}},
    )
    add_hand_overs(nb, assignment)
    with verifier_for(assignment, env) as verifier:  # started now, in the background
        client.set_trait("on_cell_executed", verify_as_handed(verifier) if verifier is not None else None)
        # The kernel's own log (a warning about unencrypted local TCP) is not the learner's business:
        # what a cell raises is in its outputs.
        client.execute(env=env, stderr=subprocess.DEVNULL)
        handed = take_hand_overs(nb)
        if verifier is not None:
            apply_verdicts(nb, verifier.verdicts(handed, failed_in_the_kernel(nb)))
    return read_results(json.loads(nbformat.writes(nb)), None, min(timeout, CELL_TIMEOUT))


def check_notebook(path: str | os.PathLike, *, timeout: float = 600) -> SelfCheck:
    """Run the notebook at `path` in a fresh kernel and grade it; see `SelfCheck.report()`."""
    notebook = Path(path).resolve()
    if not notebook.is_file():
        raise FileNotFoundError(f"No notebook at {notebook}.")
    try:
        cells = json.loads(notebook.read_text())["cells"]
        assert isinstance(cells, list)
    except Exception:
        raise ValueError(
            f"{notebook.name} is not a readable Jupyter notebook (it may be damaged). "
            "Download a fresh copy of the exercise and paste your answers into it."
        ) from None
    mode, reason = decide_timing()
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    # Hidden inputs from the public seed, compared with the package's references recorded with it, whatever
    # the shell sets: grading draws them from the course's own seed (`references/_seed.py`), which students never see.
    env = {
        **os.environ,
        TIMING: mode,
        "PATH": path,
        GRADER_SEED: str(DEFAULT_SEED),
        **compilation_cache(env=os.environ),
    }
    env.pop(REFERENCES, None)
    root, assignment = find_course(notebook)
    # While this process imports nbgrader; with the libraries of `_nursery.AHEAD` that the set imports (its source,
    # which grading in a clone reads too; elsewhere, the notebook).
    source = root / "solutions" / assignment / f"{assignment}.ipynb" if root is not None else notebook
    _nursery.warm_up(env, _nursery.preload_for([source]))
    if root is not None:
        results = _with_hidden_tests(notebook, root, assignment, env)
        return SelfCheck(notebook, results, True, mode, reason, _unwalled_once())
    found = package_tests(cells)
    return SelfCheck(notebook, _in_a_kernel(notebook, env, timeout, found), found is not None, mode, reason)


_told_unwalled = False


def _unwalled_once() -> str:
    """What this computer could not wall, the first time a check in this process walled its kernel (graded as an
    instructor would, in a clone: a kernel elsewhere has nothing to be walled from); "" after that, or if nothing.
    The grader's own log line, meant for an instructor, is among the streams the check keeps quiet."""
    global _told_unwalled
    missing = _sandbox.shortfall(_sandbox.abi())
    if not missing or _told_unwalled:
        return ""
    _told_unwalled = True
    return missing


def _current_notebook() -> Path:
    """The notebook this kernel belongs to: JupyterLab names it; Colab hands over its contents."""
    session = os.environ.get("JPY_SESSION_NAME")
    if session and Path(session).is_file():
        return Path(session)
    try:
        from google.colab import _message  # type: ignore[import-not-found]
    except ImportError:
        raise RuntimeError(
            "Could not tell which notebook this is. Pass its path: check_my_work('exercises/04_jit/04_jit.ipynb')."
        ) from None
    contents = _message.blocking_request("get_ipynb", timeout_sec=60)["ipynb"]
    target = Path(tempfile.mkdtemp(prefix="jax-course-colab-")) / "notebook.ipynb"
    target.write_text(json.dumps(contents))
    return target


def _in_a_grading_kernel() -> bool:
    # Read, not imported: this side does not import JAX. The guard runs only in grading kernels.
    guard = sys.modules.get("autograder.checks._guard")
    return bool(guard and guard.guarded())


def check_my_work(path: str | os.PathLike | None = None) -> None:
    """Check the notebook you are working in (its last saved version) and show the report, once: a table in
    JupyterLab and Colab, text elsewhere (`check_notebook` returns it instead).

    Works in JupyterLab and in Colab; elsewhere, pass the notebook's path. While the notebook is
    being graded or checked it does nothing, so a saved call cannot start a check inside a check.
    """
    if _in_a_grading_kernel():
        print("check_my_work() does nothing while this notebook is being graded or checked.")
        return None
    notebook = Path(path) if path is not None else _current_notebook()
    print(f"Checking the saved version of {notebook.name} in a fresh kernel (save first!) ...", flush=True)
    result = check_notebook(notebook)
    shell = sys.modules.get("IPython") and sys.modules["IPython"].get_ipython()
    if shell is not None and getattr(shell, "kernel", None) is not None:  # a notebook's kernel: it shows HTML
        from IPython.display import display

        display(result)
    else:
        print(result.report())
    return None
