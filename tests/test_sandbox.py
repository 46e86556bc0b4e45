"""A grading kernel's walls (`autograder/_sandbox.py`): what it may touch, and what it may not."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autograder import _sandbox
from autograder._config import LANDLOCK, PROTECTED, REFERENCES
from autograder.grading.kernels import _manager as kernels

pytestmark = pytest.mark.unit
WALLED = pytest.mark.skipif(not _sandbox.abi(), reason="this system has no Landlock")


def _course(tmp_path: Path) -> Path:
    course = tmp_path / "course"
    (course / "autograded" / "ada" / "ps1").mkdir(parents=True)
    (course / "grading").mkdir()
    (course / "grader_seed.txt").write_text("1234\n")
    (course / "autograded" / "ada" / "ps1" / "data.csv").write_text("1,2\n")
    return course


def test_outside_is_read_and_only_the_kernels_own_places_are_written(tmp_path):
    course = _course(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "scratch").mkdir()
    submission = course / "autograded" / "ada" / "ps1"
    everything = (1 << 16) - 1
    granted = dict(_sandbox.rules([str(course)], [], [str(submission)], everything, [str(tmp_path / "scratch")]))
    assert granted[str(tmp_path / "elsewhere")] == _sandbox._READ and granted["/usr"] == _sandbox._READ
    # Its own folder: anything but a link, a pipe, a socket or a device; its throw-away folder: anything.
    assert granted[str(submission)] == everything & ~_sandbox._SPECIAL and granted[str(submission)] & (1 << 12) == 0
    assert granted[str(tmp_path / "scratch")] == everything
    assert granted["/dev/null"] == everything & ~_sandbox._SPECIAL and granted["/dev"] == _sandbox._READ
    assert not [path for path in granted if path.startswith(str(course)) and path != str(submission)]
    assert f"/proc/{os.getpid()}" in granted and "/proc/1" not in granted and "/proc" not in granted


def test_a_kernel_started_in_the_course_folder_itself_is_not_granted_it(tmp_path):
    course = _course(tmp_path)
    granted = _sandbox.rules([str(course)], [], [str(course)], everything=(1 << 16) - 1)
    assert not [path for path, _ in granted if path.startswith(str(course))]


def test_walls_come_only_from_a_protected_folder_and_grant_the_kernels_own(tmp_path):
    assert _sandbox.walls({}, str(tmp_path), ["-f", "/x/kernel.json"]) is None
    env = {PROTECTED: f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}", REFERENCES: str(tmp_path / "refs")}
    walls = _sandbox.walls(env, str(tmp_path / "cwd"), ["-f", "/run/user/kernel-1.json"])
    # And the temporary folder, where other kernels and the grader keep their throw-away folders.
    assert walls is not None and walls["protected"] == [str(tmp_path / "a"), str(tmp_path / "b"), tempfile.gettempdir()]
    assert walls["write"] == [str(tmp_path / "cwd"), "/run/user/kernel-1.json"] and walls["ports"] == []
    connection = tmp_path / "kernel-2.json"
    connection.write_text(json.dumps({"transport": "tcp", "shell_port": 5001, "iopub_port": 5002, "stdin_port": 5003,
                                      "control_port": 5004, "hb_port": 5005, "key": "k"}))  # fmt: skip
    walls = _sandbox.walls(env, str(tmp_path / "cwd"), ["-f", str(connection)])
    assert walls is not None and walls["ports"] == [0, 5001, 5002, 5003, 5004, 5005]
    assert str(tmp_path / "refs") in walls["read"] and sys.prefix in walls["read"]


def _walled(walls: dict, script: str, *args, cwd: Path) -> dict:
    """What `script` (run with `args`) prints as JSON, walled in the script form, as a kernel started cold is."""
    done = subprocess.run(
        [sys.executable, "-I", "-m", "autograder._sandbox", json.dumps(walls), sys.executable, "-c", script,
         *map(str, args)],
        cwd=cwd, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


_SNOOP = """
import os, sys
found = {}
for path in sys.argv[1:]:
    try:
        open(path, "rb").read(1)
        found[path] = "read"
    except OSError as error:
        found[path] = type(error).__name__
try:
    open("written.txt", "w").write("mine")
    found["write"] = "ok"
except OSError as error:
    found["write"] = type(error).__name__
print(json.dumps(found))
"""


@WALLED
def test_a_walled_process_reads_its_own_and_not_the_courses_nor_another_processs_environment(tmp_path):
    """The script form, as a kernel started cold runs it: walled in, then the command."""
    course = _course(tmp_path)
    submission = course / "autograded" / "ada" / "ps1"
    walls = {"protected": [str(course)], "read": [sys.prefix], "write": [str(submission)]}
    wanted = [str(course / "grader_seed.txt"), str(submission / "data.csv"), f"/proc/{os.getpid()}/environ"]
    found = _walled(walls, "import json\n" + _SNOOP, *wanted, cwd=submission)
    assert found == {wanted[0]: "PermissionError", wanted[1]: "read", wanted[2]: "PermissionError", "write": "ok"}
    assert (submission / "written.txt").read_text() == "mine"


_REACH = """
import json, os, socket, sys
parent, listening, allowed, other = map(int, sys.argv[1:5])
found = {}
def attempt(name, reach):
    try:
        reach()
        found[name] = "ok"
    except OSError as error:
        found[name] = type(error).__name__
attempt("signals the process that started it", lambda: os.kill(parent, 0))
attempt("signals itself", lambda: os.kill(os.getpid(), 0))
attempt("connects to a TCP port", lambda: socket.create_connection(("127.0.0.1", listening), timeout=5))
attempt("listens on its own port", lambda: socket.socket().bind(("127.0.0.1", allowed)))
attempt("listens on a port the system picks", lambda: socket.socket().bind(("127.0.0.1", 0)))
attempt("listens on another port", lambda: socket.socket().bind(("127.0.0.1", other)))
attempt("connects to an abstract Unix socket", lambda: socket.socket(socket.AF_UNIX).connect("\\0" + sys.argv[5]))
print(json.dumps(found))
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.skipif(_sandbox.abi() < 6, reason="Landlock before ABI 6 scopes no signals or sockets")
def test_a_walled_process_signals_and_connects_to_nothing_beyond_its_walls(tmp_path):
    with socket.socket() as listening, socket.socket(socket.AF_UNIX) as abstract:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        allowed, other = _free_port(), _free_port()
        name = f"jax-course-test-{os.getpid()}"
        abstract.bind("\0" + name)
        abstract.listen()
        walls = {"protected": [str(tmp_path / "course")], "read": [sys.prefix], "write": [str(tmp_path)],
                 "ports": [0, allowed]}  # fmt: skip
        port = listening.getsockname()[1]
        found = _walled(walls, _REACH, os.getpid(), port, allowed, other, name, cwd=tmp_path)
    assert found == {
        "signals the process that started it": "PermissionError",
        "signals itself": "ok",
        "connects to a TCP port": "PermissionError",
        "listens on its own port": "ok",
        "listens on a port the system picks": "ok",
        "listens on another port": "PermissionError",
        "connects to an abstract Unix socket": "PermissionError",
    }


_WRITES = """
import errno, json, os, sys
own, scratch, elsewhere = sys.argv[1:4]
found = {}
def attempt(name, write):
    try:
        write()
        found[name] = "ok"
    except OSError as error:
        found[name] = errno.errorcode[error.errno]
attempt("writes a file in its folder", lambda: open(os.path.join(own, "mine.txt"), "w").write("x"))
attempt("writes a file in its throw-away folder", lambda: open(os.path.join(scratch, "tmp.txt"), "w").write("x"))
attempt("links there", lambda: os.symlink("/etc/passwd", os.path.join(scratch, "link")))
attempt("writes a start-up file elsewhere", lambda: open(os.path.join(elsewhere, "startup.py"), "w").write("x"))
attempt("changes a file elsewhere", lambda: open(os.path.join(elsewhere, "config.py"), "a").write("x"))
attempt("links in its folder", lambda: os.symlink(os.path.join(elsewhere, "config.py"), os.path.join(own, "out.ipynb")))
attempt("hard-links a file from elsewhere into its folder",
        lambda: os.link(os.path.join(elsewhere, "config.py"), os.path.join(own, "hard")))
attempt("makes a pipe in its folder", lambda: os.mkfifo(os.path.join(own, "pipe")))
attempt("writes /dev/null", lambda: open("/dev/null", "w").write("x"))
attempt("writes shared memory", lambda: open(f"/dev/shm/jax-course-test-{os.getpid()}", "w").write("x"))
attempt("makes a file in memory (memfd)", lambda: os.memfd_create("hoard"))
def sysv():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.shmget(0, 1 << 20, 0o1600) < 0:  # IPC_PRIVATE, IPC_CREAT | 0600
        raise OSError(ctypes.get_errno(), "shmget")
attempt("makes SysV shared memory", sysv)
print(json.dumps(found))
"""


@WALLED
def test_a_walled_process_writes_only_its_folder_and_throw_away_folder_and_links_nothing_into_its_folder(tmp_path):
    course, scratch, elsewhere = _course(tmp_path), tmp_path / "scratch", tmp_path / "home"
    submission = course / "autograded" / "ada" / "ps1"
    scratch.mkdir()
    elsewhere.mkdir()
    (elsewhere / "config.py").write_text("# the instructor's\n")
    walls = {"protected": [str(course)], "read": [sys.prefix], "write": [str(submission)], "scratch": [str(scratch)]}
    assert _walled(walls, _WRITES, submission, scratch, elsewhere, cwd=submission) == {
        "writes a file in its folder": "ok",
        "writes a file in its throw-away folder": "ok",
        "links there": "ok",
        "writes a start-up file elsewhere": "EACCES",
        "changes a file elsewhere": "EACCES",
        "links in its folder": "EACCES",
        "hard-links a file from elsewhere into its folder": "EXDEV",  # what Landlock answers for a link across folders
        "makes a pipe in its folder": "EACCES",
        "writes /dev/null": "ok",
        "writes shared memory": "EACCES",  # memory no limit counts, left on the machine
        # The same, by system calls (`_sandbox.FORBIDDEN_CALLS`), where libseccomp refuses them.
        "makes a file in memory (memfd)": "EPERM" if _sandbox.filters_calls() else "ok",
        "makes SysV shared memory": "EPERM" if _sandbox.filters_calls() else "ok",
    }
    assert (elsewhere / "config.py").read_text() == "# the instructor's\n" and not (elsewhere / "startup.py").exists()


def test_a_kernel_that_cannot_be_walled_in_does_not_start(monkeypatch, tmp_path):
    """A kernel asked to start walled never starts unwalled: `restrict` raises, and the kernel ends."""
    monkeypatch.setattr(_sandbox, "abi", lambda: 0)
    with pytest.raises(OSError, match="no Landlock"):
        _sandbox.restrict([str(tmp_path)], [], [])


def test_without_landlock_kernels_run_unwalled_and_the_grader_says_so_once(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(_sandbox, "abi", lambda: 0)
    monkeypatch.setattr(kernels, "_said_unwalled", False)
    launch = {"env": {PROTECTED: str(tmp_path)}, "cwd": str(tmp_path)}
    log = logging.getLogger("test_sandbox")
    with caplog.at_level(logging.WARNING):
        assert kernels._walls(launch, ["python", "-m", "ipykernel_launcher"], log) is None
        assert kernels._walls(launch, ["python", "-m", "ipykernel_launcher"], log) is None
    assert [r.message for r in caplog.records if "unwalled" in r.message] == [
        "Kernels run unwalled: this computer has no Landlock (Linux 5.13 or newer, enabled), so nothing keeps the "
        "notebook's code from reading or changing files outside its folder, or from signalling other programs "
        "(autograder/INTEGRITY.md, 'Not defended')"
    ]


def test_the_walls_use_no_newer_landlock_than_the_environment_allows_and_say_what_an_older_one_lacks(
    tmp_path, monkeypatch, caplog
):
    monkeypatch.setattr(_sandbox, "_offered", lambda: 7)
    monkeypatch.delenv(LANDLOCK, raising=False)
    assert _sandbox.abi() == 7 and _sandbox.shortfall(7) == ""
    monkeypatch.setenv(LANDLOCK, "9")
    assert _sandbox.abi() == 7
    monkeypatch.setenv(LANDLOCK, "x")
    with pytest.raises(ValueError, match="whole number"):
        _sandbox.abi()
    monkeypatch.setenv(LANDLOCK, "5")
    assert _sandbox.abi() == 5
    assert _sandbox.shortfall(5) == (
        "this computer's Landlock (version 5) cannot keep the notebook's code from signalling other programs of the "
        "same user (Landlock 6, Linux 6.12)"
    )
    assert "network ports" in _sandbox.shortfall(3) and "signalling" in _sandbox.shortfall(3)
    monkeypatch.setattr(kernels, "_said_unwalled", False)
    launch = {"env": {PROTECTED: str(tmp_path)}, "cwd": str(tmp_path)}
    with caplog.at_level(logging.WARNING):
        for _ in range(2):  # walled as far as Landlock 5 goes, and said once
            walls = kernels._walls(launch, ["python", "-m", "ipykernel_launcher"], logging.getLogger("test_sandbox"))
            assert walls is not None and walls["version"] == 5
    assert [r.message for r in caplog.records if "walled" in r.message] == [
        f"Kernels run partly walled: {_sandbox.shortfall(5)} (autograder/INTEGRITY.md, 'Not defended')"
    ]
    monkeypatch.setenv(LANDLOCK, "0")
    assert _sandbox.abi() == 0
    assert kernels._walls(launch, ["python", "-m", "ipykernel_launcher"], logging.getLogger("test_sandbox")) is None
