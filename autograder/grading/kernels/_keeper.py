"""A forked kernel's keeper: the process between the nursery and the kernel, which ends whatever the kernel
started when the kernel ends, and stops a kernel past its bounds (files, processes, and memory where the grader
gives one).

Every process a kernel starts is its descendant, and one that leaves it (a double fork, a session of its own)
becomes the keeper's child rather than init's (Linux's child subreaper): in stock `nbgrader autograde`, whose end
of a kernel reaches only the kernel's process group, such a process would otherwise outlive its grading, read
the next students' kernels and change its own graded notebook afterwards. The keeper is not walled in, so a walled
kernel cannot signal it (Landlock ABI 6); it holds nothing of the grader's open (a pipe of nbgrader's output would
keep whoever reads it waiting). It ends with the nursery, and its kernel with it.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import NoReturn

from ... import _sandbox

# What a kernel may write in all, in its own folder (beyond what was there when it started), its throw-away folder
# (HOME and temporary files) and its sockets' folder: a notebook of the course writes kilobytes, a profile or a
# checkpoint some megabytes. Each file is also held to 256 MB (`checks/_guard.py`).
FILES_MB = 1024
MAX_FILES = 10_000
# The processes under a keeper at once, the kernel's own among them: a notebook of the course starts none.
MAX_PROCESSES = 256
# Why the keeper stopped a kernel, as it tells the grader on the kernel's ready pipe; and as the notebook's error
# says it (`_outputs.py`), which `jax-course grade` reads in a driver's stderr.
STOPPED = "stopped: "
STOPPED_BY_GRADER = "the grader stopped it: "
_POLL_SECONDS = 0.1
# Linux's prctl options: orphans of descendants come to this process; a signal when the parent ends.
_PR_SET_CHILD_SUBREAPER, _PR_SET_PDEATHSIG = 36, 1


class _Ending(Exception):
    """The keeper's nursery ended (or the keeper was asked to end): its kernel ends now."""


def _end_now(signum, frame) -> None:
    raise _Ending


def keep(request: dict, fds: list[int], become_kernel: Callable[[dict, list[int]], NoReturn]) -> NoReturn:
    """In the nursery's forked child: fork the kernel (`become_kernel(request, fds)`), write its pid on the ready
    pipe (`fds[2]`), keep it within its bounds, and end whatever it started when it ends."""
    os.setsid()
    _supervise(request, fds[2], lambda: become_kernel(request, fds), [fds[0], fds[1]], parent=request["nursery"])


def keep_cold(request: dict) -> NoReturn:
    """`python -I -m autograder.grading.kernels._keeper REQUEST`, a kernel started cold (no nursery could fork it):
    the same keeper, in the session jupyter_client started it in, of `request["argv"]` within `request["walls"]`; it
    writes the kernel's pid, and why it stopped it, on the descriptor `request["said"]`."""
    _supervise(request, request["said"], lambda: _become_cold(request), [])


def _become_cold(request: dict) -> NoReturn:
    os.close(request["said"])  # the keeper's alone: nothing the kernel runs may say why it was stopped
    _sandbox.become(request.get("walls"), request["argv"])


def _supervise(
    request: dict, said: int, become: Callable[[], NoReturn], streams: list[int], parent: int | None = None
) -> NoReturn:
    """Fork the kernel (`become()`, in a process group of its own, as the grader signals it), then keep it."""
    code = 1
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        signal.signal(signal.SIGTERM, _end_now)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        if parent is not None and os.getppid() != parent:  # it ended before the line above: so does the kernel
            os._exit(0)
        written = _Written(_writable(request), request.get("files_mb") or FILES_MB)
        kernel = os.fork()
        if kernel == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.setpgid(0, 0)  # the keeper is not in its group
            become()
        os.write(said, f"pid {kernel}\n".encode())
        nothing = os.open(os.devnull, os.O_RDWR)
        for target in (0, 1, 2):
            os.dup2(nothing, target)
        for fd in {nothing, *streams}:
            os.close(fd)
        with contextlib.suppress(_Ending):
            _watch(kernel, [written.over, _Memory(request.get("memory_mb")).over, _too_many_processes], said)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _end_all()
        code = 0
    finally:
        os._exit(code)


def _watch(kernel: int, bounds: list[Callable[[], str]], said: int) -> None:
    """Until `kernel` ends: reap what ends meanwhile, and stop it, saying why on `said`, past one of its `bounds`."""
    stopped = False
    while True:
        with contextlib.suppress(ChildProcessError):
            while (ended := os.waitpid(-1, os.WNOHANG)[0]) != 0:
                if ended == kernel:
                    return
        if not stopped and (why := next(filter(None, (over() for over in bounds)), "")):
            stopped = True
            with contextlib.suppress(OSError):
                os.write(said, f"{STOPPED}{why}\n".encode())
            with contextlib.suppress(OSError):
                os.killpg(kernel, signal.SIGKILL)
        time.sleep(_POLL_SECONDS)


def _writable(request: dict) -> list[str]:
    """The folders a walled kernel may write: its own, its throw-away and its sockets' folders. None for a kernel
    not walled in, which may write anywhere (and whose folder others may be writing in too)."""
    if not (walls := request.get("walls")):
        return []
    return [request["cwd"], *walls.get("scratch", []), *walls.get("sockets", [])]


class _Written:
    """What a kernel has written in its folders since it started: bytes on disk, and files."""

    def __init__(self, folders: list[str], files_mb: float):
        self.folders = sorted({os.path.realpath(f) for f in folders if os.path.isdir(f)})
        self.files_mb = files_mb
        self.before_bytes, self.before_files = self._measure(MAX_FILES)

    def _measure(self, most: int) -> tuple[int, int]:
        """Bytes on disk and files in the folders, counted until the files pass `most` (a kernel that made far more
        is past its bound however many more there are)."""
        size = files = 0
        waiting = list(self.folders)
        while waiting and files <= most:
            with contextlib.suppress(OSError), os.scandir(waiting.pop()) as entries:
                for entry in entries:
                    files += 1
                    with contextlib.suppress(OSError):
                        if entry.is_dir(follow_symlinks=False):
                            waiting.append(entry.path)
                        else:
                            size += entry.stat(follow_symlinks=False).st_blocks * 512
        return size, files

    def over(self) -> str:
        """Why the kernel's files are past their bound ("" if they are not)."""
        size, files = self._measure(self.before_files + MAX_FILES)
        if size - self.before_bytes > self.files_mb * 2**20:
            return (
                f"its files passed {self.files_mb:g} MB (what a notebook may write in its folder and its temporary "
                "folder, in all)"
            )
        if files - self.before_files > MAX_FILES:
            return f"it made more than {MAX_FILES} files (in its folder and its temporary folder)"
        return ""


class _Memory:
    """The memory of everything under the keeper: the kernel, all it started and what left it (resident; past the
    bound, shared pages counted once), where the grader gives a bound (stock nbgrader's
    `WarmKernelManager.memory_mb`; `jax-course grade` bounds its drivers)."""

    def __init__(self, memory_mb: float | None):
        import psutil

        self.memory_mb = memory_mb
        self.keeper = psutil.Process()

    def over(self) -> str:
        import psutil

        from ._memory import memory_mb

        if self.memory_mb is None:
            return ""
        try:
            tree = self.keeper.children(recursive=True)
        except psutil.Error:
            return ""
        return (
            f"it used more than {self.memory_mb:g} MB of memory"
            if memory_mb(tree, self.memory_mb) > self.memory_mb
            else ""
        )


def _too_many_processes() -> str:
    """Why the processes under this keeper are past their bound ("" if they are not): a fork bomb."""
    import psutil

    with contextlib.suppress(psutil.Error):
        if len(psutil.Process().children(recursive=True)) > MAX_PROCESSES:
            return f"it started more than {MAX_PROCESSES} processes"
    return ""


def _end_all() -> None:
    """Kill every descendant of this process, those that reach it as orphans while it does too, and reap them."""
    import psutil

    keeper = psutil.Process()
    for _ in range(1000):  # each round kills all it sees; what they forked meanwhile is seen in the next
        left = keeper.children(recursive=True)
        for process in left:
            with contextlib.suppress(psutil.Error):
                process.kill()
        psutil.wait_procs([p for p in left if p.ppid() == keeper.pid], timeout=1)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        if not left:
            return


if __name__ == "__main__":
    keep_cold(json.loads(sys.argv[1]))
