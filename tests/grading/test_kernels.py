"""Warm kernels: forked, fresh for every notebook, and a cold start whenever the fork cannot be had."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from traitlets.config import Config

from autograder._config import GUARD_ARGUMENTS
from autograder._sandbox import SCRATCH
from autograder.grading.batch._runner import THREAD_LIMITS
from autograder.grading.kernels import _manager as kernels
from autograder.grading.kernels import _nursery
from autograder.grading.kernels._outputs import CappedOutputs

from hostile import OUTLIVE, OUTLIVED
from support import VENV_BIN, graded_as_jax_course_grades, jax_course_grade, make_course, read_scores, run, submit

pytestmark = pytest.mark.grading

# What a kernel reports about itself: forked (its command line is its nursery's, not ipykernel's
# launcher's), its process, and whatever an earlier notebook may have left behind.
REPORT = """\
import json, os, sys, psutil, numpy as np
print(json.dumps({
    "forked": "ipykernel_launcher" not in " ".join(psutil.Process().cmdline()),
    "pid": os.getpid(),
    "cwd": os.getcwd(),
    "left_global": "left_behind" in globals(),
    "left_in_module": hasattr(json, "left_behind"),
    "guarded": sys.modules["autograder.checks._guard"].guarded(),
    "draw": float(np.random.rand()),
    "mark": os.environ.get("JAXCOURSE_TEST_MARK"),
    "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
}))
"""
LEAVE = "left_behind = 1\nimport json\njson.left_behind = 1\nimport jax.numpy as jnp\nfloat(jnp.ones(3).sum())"


def _run(tmp_path, *sources: str, **env: str) -> dict:
    """What the last of `sources` prints as JSON, run in a warm kernel in `tmp_path` with `env` added."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    client = NotebookClient(
        nb,
        timeout=120,
        kernel_manager_class=kernels.WarmKernelManager,
        extra_arguments=GUARD_ARGUMENTS,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute(env={**os.environ, "JAXCOURSE_TEST_MARK": "mine", **env})
    return json.loads(nb.cells[-1].outputs[0]["text"])


def test_two_notebooks_one_after_the_other_get_fresh_forked_kernels_that_share_nothing(tmp_path):
    first = _run(tmp_path, LEAVE, REPORT)
    second = _run(tmp_path, REPORT)
    assert first["forked"] and second["forked"], "kernels started cold"
    assert first["left_global"] and first["left_in_module"]
    assert not second["left_global"], "a global of the notebook before is still there"
    assert not second["left_in_module"], "a module changed by the notebook before is still changed"
    assert first["pid"] != second["pid"]
    assert first["draw"] != second["draw"], "both kernels drew the same NumPy random numbers"
    assert second["cwd"] == str(tmp_path) and second["mark"] == "mine" and second["guarded"]


def test_a_forked_kernel_has_no_debugger_and_the_nurserys_objects_out_of_its_garbage_collections(tmp_path):
    """Neither costs a notebook anything: no front end debugs a notebook being graded or checked (the notebook
    may still import debugpy), and what the nursery imported lives as long as the kernel."""
    state = _run(
        tmp_path,
        "import gc, json, sys\n"
        "kernel = get_ipython().kernel\n"
        "before = {'debugger': hasattr(kernel, 'debugger'), 'debugpy': 'debugpy' in sys.modules,"
        " 'frozen': gc.get_freeze_count()}",
        "import debugpy\nprint(json.dumps({**before, 'imported': debugpy.__name__}))",
    )
    assert state["debugger"] is False and state["debugpy"] is False, state
    assert state["frozen"] > 50_000, "the nursery's imported objects are not frozen"
    assert state["imported"] == "debugpy"


@contextlib.asynccontextmanager
async def _started(cwd: Path) -> AsyncIterator[tuple[kernels.WarmKernelManager, Any]]:
    """A warm kernel started in `cwd`, and its client once it is ready; both ended after."""
    manager = kernels.WarmKernelManager()
    await manager.start_kernel(cwd=str(cwd))
    client = manager.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=60)
        yield manager, client
    finally:
        client.stop_channels()
        await manager.shutdown_kernel(now=True)


def test_a_kernel_is_ready_once_it_answered_and_nothing_of_that_is_left_to_read(tmp_path):
    """The client's wait ends on the `idle` status of its `kernel_info` (not 0.2 s of silence after it): the next
    message on IOPub is the next request's own."""

    async def ready_then_run() -> tuple[object, str, list[str | None]]:
        async with _started(tmp_path) as (_, client):
            request = client.execute("print('after ready')")
            first = await client.iopub_channel.get_msg(timeout=30)
            return client, request, [first["parent_header"].get("msg_id"), first["content"].get("execution_state")]

    client, request, first = asyncio.run(ready_then_run())
    assert isinstance(client, kernels.ReadyClient)
    assert first == [request, "busy"], "a message of the wait for the kernel was left on IOPub"


# What a kernel says of how its client reaches it: the connection file ipykernel was given, and what it holds.
CONNECTION = """\
import json
from ipykernel.connect import get_connection_file
print(json.dumps({"file": get_connection_file(), **json.load(open(get_connection_file()))}))
"""


def test_a_kernel_listens_on_sockets_in_a_folder_of_its_own_that_goes_with_it(tmp_path):
    """TCP ports are picked free and bound by the kernel a moment later: another process of a busy machine can take
    one in between, and that submission fails. Sockets that are files cannot be taken."""
    said = _run(tmp_path, CONNECTION)
    folder = Path(said["file"]).parent
    assert said["transport"] == "ipc", said
    assert folder.name.startswith(SCRATCH) and said["ip"].startswith(str(folder)), said
    assert not folder.exists(), "the kernel's sockets outlived it"


# Another process of the grader's user that knows a kernel's connection file (in the temporary folder, which every
# walled kernel may read; the sockets' paths are in /proc/net/unix): it asks the kernel to run code, and listens.
STRANGER = """\
import json, sys, time
from jupyter_client import BlockingKernelClient
client = BlockingKernelClient(connection_file=sys.argv[1])
client.load_connection_file()
client.start_channels()
client.execute("open('reached', 'w').write('the stranger ran code here')")
heard, deadline = [], time.monotonic() + 4
while time.monotonic() < deadline:
    try:
        heard.append(client.get_iopub_msg(timeout=0.2)["content"])
    except Exception:
        pass
print(json.dumps(heard))
"""


def test_no_other_process_hears_a_kernel_or_runs_code_in_it(tmp_path):
    """A classmate's kernel, or what one left running, could otherwise read this notebook's answers and test cells
    as they run (IOPub needs no key) and, with the key in the connection file, run code in it."""

    async def graded() -> tuple[list, str]:
        async with _started(tmp_path) as (manager, client):
            stranger = await asyncio.create_subprocess_exec(
                sys.executable, "-c", STRANGER, manager.connection_file, stdout=subprocess.PIPE
            )
            heard = []
            reply = await client.execute_interactive(
                "import time\nfor _ in range(30):\n    print('the answer', flush=True)\n    time.sleep(0.1)",
                timeout=60,
                output_hook=lambda message: heard.append(message["content"].get("text", "")),
            )
            assert reply["content"]["status"] == "ok" and "the answer" in "".join(heard), heard
            said, _ = await stranger.communicate()
            return json.loads(said), manager.transport

    stranger_heard, transport = asyncio.run(graded())
    assert transport == "ipc"
    assert stranger_heard == [] and not (tmp_path / "reached").exists(), stranger_heard


@pytest.mark.parametrize("start", ["forked", "cold"])
def test_nothing_a_kernel_starts_outlives_it(tmp_path, monkeypatch, start):
    """The hostile catalogue's process that leaves its kernel, then writes beside the graded notebook once it ended;
    under a kernel forked warm, or started cold (no nursery: jupyter_client starts its keeper)."""
    if start == "cold":
        monkeypatch.setattr(kernels, "nursery_for", _no_nursery)
    (tmp_path / "graded.ipynb").write_text("{}")
    _run(tmp_path, OUTLIVE, "print('{}')")
    time.sleep(2)  # it would act a second after its kernel ended
    assert not (tmp_path / OUTLIVED).exists(), "a process the kernel started outlived it"
    assert (tmp_path / "graded.ipynb").read_text() == "{}"


# Each file is held to 256 MB by the guard, but not what they add up to: a notebook that filled the course's disk
# would stop nbgrader's gradebook for every student after it. And stock nbgrader has no memory limit of its own.
FILL = "for n in range(100):\n    with open(f'fill-{n}', 'wb') as f:\n        f.write(b'x' * 2_000_000)\n"
HOARD = "import numpy as np\nheap = [np.ones(2**27) for _ in range(20)]\n"
# Processes that each start two more, until something stops them.
FORK_BOMB = "import os, time\nfor _ in range(9):\n    os.fork()\ntime.sleep(30)\n"
# The same, in a process that left the kernel: the keeper counts everything under it.
LEFT_TO_HOARD = (
    "import os\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
    + "".join(f"        {line}\n" for line in HOARD.splitlines())
    + "        import time\n        time.sleep(60)\n    os._exit(0)\nos.wait()\n"
)


@pytest.mark.parametrize(
    "code, bound, said, start",
    [
        (FILL, {"files_mb": 5}, "its files passed 5 MB", "forked"),
        (FILL, {"files_mb": 5}, "its files passed 5 MB", "cold"),
        (HOARD, {"memory_mb": 900}, "it used more than 900 MB of memory", "forked"),
        (LEFT_TO_HOARD, {"memory_mb": 900}, "it used more than 900 MB of memory", "forked"),
        (FORK_BOMB, {}, "it started more than 256 processes", "forked"),
    ],
    ids=["files", "files-of-a-cold-kernel", "memory", "memory-of-what-left-it", "processes"],
)
def test_a_kernel_past_its_bound_is_stopped_saying_why(tmp_path, monkeypatch, code, bound, said, start):
    if start == "cold":
        monkeypatch.setattr(kernels, "nursery_for", _no_nursery)
    if "files_mb" in bound and not kernels._sandbox.abi():
        pytest.skip("a kernel's files are bounded where it is walled in, and this system has no Landlock")
    (tmp_path / "data.bin").write_bytes(b"x" * 8_000_000)  # the course's, there before: not the notebook's
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code + "import time\ntime.sleep(30)")])

    class Client(CappedOutputs, NotebookClient):
        pass

    client = Client(
        nb,
        timeout=60,
        kernel_manager_class=kernels.WarmKernelManager,
        resources={"metadata": {"path": str(tmp_path)}},
        config=Config({"WarmKernelManager": bound}),
    )
    started = time.monotonic()
    with pytest.raises(DeadKernelError, match=f"the grader stopped it: {said}"):
        client.execute(env={**os.environ, "JAXCOURSE_PROTECTED": f"{tmp_path}-course"})  # walled, as grading is
    assert time.monotonic() - started < 20, "stopped only when the cell ended"


def _connection(cwd: Path, **traits) -> dict:
    """How the client of a warm kernel started with `traits` reached it."""

    async def started() -> dict:
        manager = kernels.WarmKernelManager(**traits)
        await manager.start_kernel(cwd=str(cwd))
        try:
            return manager.get_connection_info()
        finally:
            await manager.shutdown_kernel(now=True)

    return asyncio.run(started())


def test_a_kernel_asked_for_tcp_gets_tcp(tmp_path):
    said = _connection(tmp_path, transport="tcp")
    assert said["transport"] == "tcp" and said["shell_port"] > 0, said


def test_a_temporary_folder_too_deep_for_a_sockets_name_means_tcp(tmp_path, monkeypatch):
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    said = _connection(tmp_path)
    assert said["transport"] == "tcp" and said["shell_port"] > 0, said
    assert not any(deep.iterdir()), "a sockets folder was left behind"


def _no_nursery(env, preload):
    raise _nursery.NurseryError("the kernel nursery did not finish importing its libraries")


def test_a_nursery_that_cannot_start_means_a_cold_kernel_said_once(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(kernels, "nursery_for", _no_nursery)
    monkeypatch.setattr(kernels, "_said_cold", False)
    with caplog.at_level(logging.WARNING):
        first = _run(tmp_path, LEAVE, REPORT)
        second = _run(tmp_path, REPORT)
    assert not first["forked"] and not second["forked"]
    assert first["left_global"] and not second["left_global"]
    said = [r.getMessage() for r in caplog.records if "start cold" in r.getMessage()]
    assert said == ["Kernels start cold, not forked warm: the kernel nursery did not finish importing its libraries"]


def test_a_kernel_started_cold_listens_on_tcp_which_no_walled_kernel_can_connect_to(tmp_path, monkeypatch):
    """Nothing tells a cold kernel's sockets to accept only its grader (`_in_the_nursery._answer_only`)."""

    monkeypatch.setattr(kernels, "nursery_for", _no_nursery)
    (tmp_path / "kernel").mkdir()
    for chosen in ({}, {"transport": "ipc", "connection_file": str(tmp_path / "kernel" / "kernel.json")}):
        said = _connection(tmp_path, **chosen)  # its own sockets, or those `jax-course grade`'s driver chooses
        assert said["transport"] == "tcp" and said["shell_port"] > 0, (chosen, said)


def test_a_kernel_that_dies_while_starting_is_reported_and_leaves_nothing(tmp_path):
    nursery = _nursery.Nursery.spawn(dict(os.environ))
    try:
        with pytest.raises(_nursery.NurseryError, match="died before it was ready"):
            # A connection file that cannot be written: the kernel's start fails.
            nursery.start_kernel(["-f", "/proc/no-such-folder/kernel.json"], str(tmp_path), dict(os.environ), [1, 2])
        assert nursery.alive(), "one failed kernel ended its nursery"
    finally:
        nursery.close()
    assert not nursery.alive()


def test_a_program_forked_from_a_nursery_runs_as_python_m_would_and_its_exit_status_is_read(tmp_path):
    """What the verifier is forked with (`verification/_verifier_process.py`): its streams, folder and exit status."""
    nursery = _nursery.Nursery.spawn(dict(os.environ))
    stdin, stdout, stderr = (tmp_path / name for name in ("in", "out", "err"))
    stdin.write_text("{not json")
    try:
        with open(stdin) as given, open(stdout, "w") as out, open(stderr, "w") as err:
            streams = [given.fileno(), out.fileno(), err.fileno()]
            pid, status = nursery.start_program("json.tool", [], str(tmp_path), dict(os.environ), streams)
        with os.fdopen(status) as said:
            assert said.read() == "exit 1\n"
        assert pid != nursery.pid and nursery.alive()
    finally:
        nursery.close()
    assert stdout.read_text() == "" and "Expecting property name" in stderr.read_text()


def test_a_kernel_whose_environment_libraries_read_on_import_differs_gets_its_own_nursery():
    assert _nursery.import_key({"OPENBLAS_NUM_THREADS": "1", "HOME": "/a"}) == _nursery.import_key(
        {"OPENBLAS_NUM_THREADS": "1", "HOME": "/b"}
    )
    assert _nursery.import_key({"XLA_FLAGS": "--xla_force_host_platform_device_count=8"}) != _nursery.import_key({})


def test_a_kernel_that_loads_the_graders_compiled_programs_shares_the_nursery_that_imported_jax_without_them():
    """Each forked process reads the compilation cache's settings anew (`_in_the_nursery`): were they part of the
    key, every grading driver would start a nursery of its own, importing JAX again for each notebook."""
    from autograder.grading.references._compiled import read_only

    plain = {"XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false"}
    assert _nursery.import_key({**plain, **read_only(Path("/course/grading/compiled"))}) == _nursery.import_key(plain)


def test_a_graded_notebook_runs_in_a_kernel_forked_in_its_own_folder(tmp_path):
    folder = tmp_path / "autograded"
    folder.mkdir()
    # The nursery is forked from the driver (what the forkserver imported), not a new interpreter.
    lineage = (
        "import psutil\nnursery = psutil.Process().parent().parent()  # its keeper's parent\n"
        "print(nursery.cmdline() == nursery.parent().cmdline())"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(lineage), nbformat.v4.new_code_cell(REPORT)])
    (tmp_path / "submission.ipynb").write_text(nbformat.writes(nb))
    cells = graded_as_jax_course_grades(tmp_path / "submission.ipynb", folder)
    assert cells[0].outputs[0]["text"].strip() == "True", "the driver spawned a nursery instead of forking one"
    report = json.loads(cells[1].outputs[0]["text"])
    assert report["forked"] and report["cwd"] == str(folder) and report["guarded"]
    assert report["blas_threads"] == THREAD_LIMITS["OPENBLAS_NUM_THREADS"]


WALLED_REPORT = """\
import json, os, tempfile
home = os.path.expanduser("~")
wrote = {}
for where, folder in (("home", home), ("temporary", tempfile.gettempdir()), ("own", os.getcwd())):
    with open(os.path.join(folder, "mine.txt"), "w") as file:
        wrote[where] = file.write("x")
try:
    os.memfd_create("hoard")
    hoards = True
except PermissionError:
    hoards = False
try:
    peeked = open(os.environ["ANOTHERS_NOTEBOOK"]).read()
except PermissionError:
    peeked = None
said = {"home": home, "temporary": tempfile.gettempdir(), "wrote": wrote, "hoards": hoards, "peeked": peeked}
print(json.dumps(said))
"""


@pytest.mark.skipif(not kernels._sandbox.abi(), reason="this system has no Landlock")
def test_a_walled_kernel_has_a_home_and_temporary_folder_of_its_own_that_go_with_it(tmp_path):
    (tmp_path / "course").mkdir()
    own = tmp_path / "submission"
    own.mkdir()
    # Another kernel's driver keeps the notebook it runs, hidden tests and all, in the temporary folder.
    driver = Path(tempfile.mkdtemp(prefix=f"{SCRATCH}{os.getpid()}-driver-"))
    try:
        (driver / "source.ipynb").write_text("a classmate's answers")
        found = _run(
            own,
            WALLED_REPORT,
            JAXCOURSE_PROTECTED=str(tmp_path / "course"),
            ANOTHERS_NOTEBOOK=str(driver / "source.ipynb"),
        )
    finally:
        shutil.rmtree(driver)
    assert found["peeked"] is None, "a walled kernel read what another kept in the temporary folder"
    # Its HOME and temporary folder are one throw-away folder, not the grader's; it wrote there and in its own.
    assert found["home"] == found["temporary"] != os.path.expanduser("~")
    assert found["wrote"] == {"home": 1, "temporary": 1, "own": 1} and (own / "mine.txt").exists()
    assert found["hoards"] is not kernels._sandbox.filters_calls(), "a forked kernel made a file in memory"
    assert os.path.basename(found["home"]).startswith(f"jax-course-grade-{os.getpid()}-kernel-")
    assert not os.path.exists(found["home"]), "the kernel's throw-away folder outlived it"


# What a kernel has imported before its first cell, of the libraries a set's notebooks may import ahead.
IMPORTED_AHEAD = "import json, sys\nprint(json.dumps([name for name in ('optax', 'flax.nnx') if name in sys.modules]))"
SET_14_LIKE = ["import optax\nfrom flax import nnx", "def later():\n    import sklearn", "%time x = 1\nimport os"]


def _notebook(path: Path, *sources: str) -> Path:
    path.write_text(nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])))
    return path


def test_a_set_whose_notebooks_import_flax_or_optax_gets_them_imported_ahead_and_nothing_else(tmp_path):
    """Only `AHEAD`'s libraries, imported at a cell's top level, installed; whatever else the notebook imports
    (a module of its own, which the unwalled nursery must never run) is left to the kernel."""
    source = _notebook(tmp_path / "set.ipynb", *SET_14_LIKE, "import helper_of_mine\nfrom optax import adam")
    (tmp_path / "broken.ipynb").write_text("{ not a notebook")
    ahead = _nursery.preload_for([source, tmp_path / "broken.ipynb", tmp_path / "missing.ipynb"])
    assert ahead == (*_nursery.PRELOAD, "optax", "flax", "flax.nnx", "optax.adam")
    assert _nursery.preload_for([_notebook(tmp_path / "plain.ipynb", "import numpy as np")]) == _nursery.PRELOAD


def test_a_nursery_that_imported_more_serves_kernels_that_need_less_and_not_the_other_way(monkeypatch):
    spawned = []

    class Spawned:
        def __init__(self, imported):
            self.imported = frozenset(imported)

        def alive(self):
            return True

    def spawn(env, preload):
        spawned.append(Spawned(preload))
        return spawned[-1]

    monkeypatch.setattr(_nursery.Nursery, "spawn", staticmethod(spawn))
    monkeypatch.setattr(_nursery, "_nurseries", {})
    env = {"XLA_FLAGS": "--a-key-of-its-own"}
    wide = _nursery.nursery_for(env, (*_nursery.PRELOAD, "optax"))
    assert _nursery.nursery_for(env, _nursery.PRELOAD) is wide
    wider = _nursery.nursery_for(env, (*_nursery.PRELOAD, "optax", "flax.nnx"))
    assert wider is not wide and len(spawned) == 2
    assert _nursery.nursery_for(env, (*_nursery.PRELOAD, "flax.nnx")) is wider


def test_the_libraries_imported_ahead_start_no_thread_and_not_jaxs_backend():
    """What makes a process that imported them a safe parent to fork kernels from (`Nursery.fork_here`)."""
    names = ["optax", "flax.nnx", "orbax.checkpoint", "sklearn.datasets", "sklearn.model_selection"]
    assert {name.partition(".")[0] for name in names} == set(_nursery.AHEAD), "a library of AHEAD is not tried here"
    code = (
        f"import importlib, threading\nfor name in {[*_nursery.PRELOAD, *names]!r}:\n"
        "    importlib.import_module(name)\n"
        "from jax._src import xla_bridge\nprint(threading.active_count(), xla_bridge.backends_are_initialized())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["1", "False"], done.stderr[-2000:]


def test_a_kernel_of_a_set_that_imports_flax_finds_it_imported_before_its_first_cell(tmp_path):
    """A warm kernel asked for them (as `WarmExecute` asks for its set's), and one forked from `jax-course grade`'s
    driver whose forkserver imported them; not one whose forkserver did not."""
    ahead = _nursery.preload_for([_notebook(tmp_path / "set.ipynb", *SET_14_LIKE)])
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(IMPORTED_AHEAD)])
    client = NotebookClient(nb, timeout=120, kernel_manager_class=kernels.WarmKernelManager)
    client.km = client.create_kernel_manager()
    client.km.preload = list(ahead)
    client.execute()
    assert json.loads(nb.cells[0].outputs[0]["text"]) == ["optax", "flax.nnx"]
    (tmp_path / "submission.ipynb").write_text(nbformat.writes(nb))
    for preload, imported in ((ahead, ["optax", "flax.nnx"]), ((), [])):
        folder = tmp_path / f"graded-{len(preload)}"
        folder.mkdir()
        cells = graded_as_jax_course_grades(tmp_path / "submission.ipynb", folder, preload=preload)
        assert json.loads(cells[0].outputs[0]["text"]) == imported


def test_both_graders_give_a_sets_kernels_what_its_source_notebook_imports_ahead(tmp_path):
    """`nbgrader autograde` with the course's config and `jax-course grade`, on a set whose source notebook imports
    Optax and Flax after a cell that looks whether they are imported already."""
    from courses import answer, solution, source, tests

    course = make_course(tmp_path)
    looks = "import sys\nseen = [name for name in ('optax', 'flax.nnx') if name in sys.modules]"
    (course / "solutions" / "ahead").mkdir(parents=True)
    (course / "solutions" / "ahead" / "ahead.ipynb").write_text(
        source(
            answer(solution(looks), "looks"),
            tests("assert seen == ['optax', 'flax.nnx'], seen", "test_ahead", 1),
            nbformat.v4.new_code_cell("import optax\nfrom flax import nnx"),
        )
    )
    run(VENV_BIN / "nbgrader", "generate_assignment", "ahead", "--force", cwd=course)
    submit(course, "ahead", "student", {"looks": looks})
    other = shutil.copytree(course, tmp_path / "by-jax-course")
    run(VENV_BIN / "nbgrader", "autograde", "ahead", cwd=course)
    jax_course_grade(other, "ahead")
    assert read_scores(course, "ahead") == read_scores(other, "ahead") == {"student": {"test_ahead": 1.0}}
