"""A grading kernel's walls (`autograder/_sandbox.py`): what it may touch, and what it may not."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import _sandbox
from autograder._config import PROTECTED, REFERENCES
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


def test_everything_outside_is_granted_and_inside_only_what_is_allowed(tmp_path):
    course = _course(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    submission = course / "autograded" / "ada" / "ps1"
    granted = dict(_sandbox.rules([str(course)], [], [str(submission)], everything=7))
    assert granted[str(tmp_path / "elsewhere")] == 7 and granted[str(submission)] == 7
    assert not [path for path in granted if path.startswith(str(course)) and path != str(submission)]
    assert f"/proc/{os.getpid()}" in granted and "/proc/1" not in granted and "/proc" not in granted


def test_a_kernel_started_in_the_course_folder_itself_is_not_granted_it(tmp_path):
    course = _course(tmp_path)
    granted = _sandbox.rules([str(course)], [], [str(course)], everything=7)
    assert not [path for path, _ in granted if path.startswith(str(course))]


def test_walls_come_only_from_a_protected_folder_and_grant_the_kernels_own(tmp_path):
    assert _sandbox.walls({}, str(tmp_path), ["-f", "/x/kernel.json"]) is None
    env = {PROTECTED: f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}", REFERENCES: str(tmp_path / "refs")}
    walls = _sandbox.walls(env, str(tmp_path / "cwd"), ["-f", "/run/user/kernel-1.json"])
    assert walls is not None and walls["protected"] == [str(tmp_path / "a"), str(tmp_path / "b")]
    assert walls["write"] == [str(tmp_path / "cwd"), "/run/user"]
    assert str(tmp_path / "refs") in walls["read"] and sys.prefix in walls["read"]


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
    done = subprocess.run(
        [sys.executable, "-I", "-m", "autograder._sandbox", json.dumps(walls), sys.executable, "-c",
         "import json\n" + _SNOOP, *wanted],
        cwd=submission, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found == {wanted[0]: "PermissionError", wanted[1]: "read", wanted[2]: "PermissionError", "write": "ok"}
    assert (submission / "written.txt").read_text() == "mine"


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
        "Kernels run unwalled: this system has no Landlock (Linux 5.13 or newer, enabled), so code in a "
        "submission can read and change the course's files (autograder/INTEGRITY.md, 'Not defended')"
    ]
