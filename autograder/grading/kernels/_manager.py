"""Warm kernels, for every path that runs a notebook (`nbgrader_config.py` names `plugins.WarmExecute`).

Each notebook still gets a fresh kernel of its own, so no verdict depends on what ran before;
the kernel is forked from a nursery (`_nursery.py`) that imported NumPy, JAX, ipykernel and the
checks once, instead of a new interpreter importing them again (`bench/selfcheck_time.py` and
`bench/grade_throughput.py` measure what that saves).

Why a kernel manager, not a provisioner or a pool: nbclient takes a manager class directly, and a
fork needs no kernels kept idle. A provisioner would be chosen by the kernelspec or a variable of
the environment, not by the course's nbgrader config, and a pool keeps kernels started before the
grader knows the folder and environment each needs.

Anything that keeps the fork from working (another kernel than this Python's ipykernel, a nursery
that cannot start or a kernel that dies before it is ready) starts the kernel cold, as nbgrader
would, and says so once.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from queue import Empty

import psutil
import zmq
from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning.local_provisioner import LocalProvisioner
from traitlets import DottedObjectName, Float, List, Type, Unicode

from ... import _sandbox
from ..._sandbox import SCRATCH
from . import _keeper
from ._keeper import FILES_MB, STOPPED
from ._nursery import PRELOAD, NurseryError, nursery_for, read_line

_said_cold = _said_unwalled = False
# The longest path a Unix socket may have on this system, as ZeroMQ was built (107 bytes on Linux, 103 on macOS).
_LONGEST_SOCKET_PATH = getattr(zmq, "IPC_PATH_MAX_LEN", 103)


class ReadyClient(AsyncKernelClient):
    """A client that knows its kernel is ready as soon as it is. jupyter_client's own wait ends by reading
    IOPub until 0.2 s pass with no message, a fifth of a second on every notebook; this one ends when the
    kernel has answered `kernel_info` and IOPub has carried that request's `idle` status, its last message."""

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        while not await self._answered(self.kernel_info()):
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout} seconds")

    async def _answered(self, request: str) -> bool:
        """Whether `request` got its reply and its `idle` status (IOPub still connecting misses the latter:
        the caller asks again)."""
        try:
            while (reply := await self.shell_channel.get_msg(timeout=1))["parent_header"].get("msg_id") != request:
                pass
            self._handle_kernel_info_reply(reply)
            while True:
                message = await self.iopub_channel.get_msg(timeout=0.2)
                if message["parent_header"].get("msg_id") == request and message["msg_type"] == "status":
                    if message["content"].get("execution_state") == "idle":
                        return True
        except Empty:
            return False


class WarmKernelManager(AsyncKernelManager):
    """A kernel manager whose Python kernels are forked warm; any other kernel starts as usual."""

    client_class = DottedObjectName(f"{__name__}.ReadyClient", config=True)
    client_factory = Type(ReadyClient, klass=AsyncKernelClient, config=True)
    preload = List(Unicode(), default_value=list(PRELOAD), help="Modules kernels import before their first cell").tag(
        config=True
    )
    files_mb = Float(
        FILES_MB,
        help="What a walled kernel may write in all (MB), in its folder and its temporary folder: past it, its keeper "
        "stops it and the notebook fails, saying so",
    ).tag(config=True)
    memory_mb = Float(
        None,
        allow_none=True,
        help="The memory a kernel and all it starts may use (MB): past it, its keeper stops it and the "
        "notebook fails, saying so. None: no bound (`jax-course grade` bounds each notebook's whole process tree).",
    ).tag(config=True)

    async def _async_wait(self, pollinterval: float = 0.1) -> None:
        # jupyter_client looks every 0.1 s whether a killed kernel has ended: up to a tenth of a second lost on
        # every notebook, since one killed is seldom gone at the first look.
        await super()._async_wait(pollinterval=min(pollinterval, 0.005))

    _scratch: str | None = None
    _sockets: str | None = None
    _own_sockets: bool | None = None

    async def _async_pre_start_kernel(self, **kw):
        if self._own_sockets is None:  # at the first start: unless whoever made the manager chose them
            chosen = self.connection_file or self.trait_has_value("transport") or self.trait_has_value("ip")
            self._own_sockets = os.name == "posix" and not chosen and _peers_filtered()
        if self._own_sockets and self._sockets is None:
            # TCP ports are picked free and bound by the kernel a moment later: on a busy machine another process
            # can take one in between, and that submission fails. Sockets that are files, in a folder of the
            # kernel's own (the only place its walls let it make sockets), cannot be taken.
            sockets = tempfile.mkdtemp(prefix=f"{SCRATCH}{os.getpid()}-sockets-")
            if len(os.fsencode(os.path.join(sockets, "kernel-ipc-99"))) > _LONGEST_SOCKET_PATH:
                os.rmdir(sockets)  # a temporary folder too deep for a socket's name: TCP, as jupyter_client would
                self._own_sockets = False
            else:
                self._sockets, self.transport = sockets, "ipc"
                self.connection_file = os.path.join(sockets, "kernel.json")
                self.ip = os.path.join(sockets, "kernel-ipc")
        return await super()._async_pre_start_kernel(**kw)

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        walls = _walls(kw, kernel_cmd, self.log)
        self._remove_scratch()  # a restarted kernel's, if any: each start gets an empty one
        if walls is not None:
            self._scratch = tempfile.mkdtemp(prefix=f"{SCRATCH}{os.getpid()}-kernel-")
            kw["env"] = _walled_environment(dict(kw.get("env") or os.environ), self._scratch)
            walls["scratch"] = [self._scratch]
            walls["read"].append(kw["env"].get("MPLCONFIGDIR", ""))  # Matplotlib's fonts, wherever this user keeps them
        pid = await self._forked_kernel(kernel_cmd, kw, walls)
        if pid is None:
            if self.transport == "ipc":  # its own or chosen (`jax-course grade`'s driver)
                walls = self._tcp_instead(kw, kernel_cmd, walls)
            if type(self.provisioner) is LocalProvisioner:
                await self._cold_kernel(kernel_cmd, kw, walls)
                return
            if walls is not None:  # walled in before it becomes the kernel (`_sandbox.py`)
                kernel_cmd = [sys.executable, "-I", "-m", _sandbox.__name__, json.dumps(walls), *kernel_cmd]
            await super()._async_launch_kernel(kernel_cmd, **kw)
            return
        provisioner = self.provisioner
        assert isinstance(provisioner, LocalProvisioner)
        provisioner.process = _Forked(pid)  # pyright: ignore[reportAttributeAccessIssue] (Popen's interface)
        provisioner.pid = provisioner.pgid = pid
        provisioner.cwd = kw.get("cwd") or os.getcwd()
        self._reconcile_connection_info(provisioner.connection_info)

    async def _cold_kernel(self, kernel_cmd: list[str], kw: dict, walls: dict | None) -> None:
        """Start `kernel_cmd` cold, under a keeper (`_keeper.keep_cold`), which jupyter_client starts in place of the
        kernel; the kernel it forks leads a process group of its own, which the grader's signals go to."""
        said, tell = os.pipe()
        request = {"argv": kernel_cmd, "walls": walls, "cwd": str(kw.get("cwd") or os.getcwd()), "said": tell}
        request.update(files_mb=self.files_mb, memory_mb=self.memory_mb)
        keeper = [sys.executable, "-I", "-m", _keeper.__name__, json.dumps(request)]
        try:
            await super()._async_launch_kernel(keeper, **{**kw, "pass_fds": (tell,)})
        except BaseException:
            os.close(said)
            raise
        finally:
            os.close(tell)
        kernel = await asyncio.to_thread(_kernel_pid, said)
        self.provisioner.pgid = kernel  # pyright: ignore[reportOptionalMemberAccess, reportAttributeAccessIssue]
        os.set_blocking(said, False)
        self._close_keepers_word()
        self._keepers_word = said

    def _tcp_instead(self, kw: dict, kernel_cmd: list[str], walls: dict | None) -> dict | None:
        """A kernel started cold listens on TCP, not on files: nothing can tell its sockets to accept only this
        process (`_in_the_nursery._answer_only`), and its walls connect to no port, so no other kernel reaches it."""
        self.cleanup_connection_file()
        self.transport, self.ip = "tcp", "127.0.0.1"
        self.shell_port = self.iopub_port = self.stdin_port = self.control_port = self.hb_port = 0
        self._connection_file_written = False
        self.write_connection_file()
        self.provisioner.connection_info = self.get_connection_info()  # pyright: ignore[reportOptionalMemberAccess]
        if walls is None:
            return None
        tcp = _walls(kw, kernel_cmd, self.log)  # its connection file and ports, rather than a sockets' folder
        return tcp if tcp is None else {**tcp, "scratch": walls["scratch"], "read": walls["read"]}

    _keepers_word: int | None = None

    def stopped_because(self) -> str:
        """Why the kernel's keeper stopped it (past its files, processes or memory: `_keeper.py`), or "" if it did
        not."""
        if self._keepers_word is None:
            return ""
        try:
            said = os.read(self._keepers_word, 4096).decode(errors="replace")
        except OSError:  # nothing written
            return ""
        return next((line.removeprefix(STOPPED) for line in said.splitlines() if line.startswith(STOPPED)), "")

    def _close_keepers_word(self) -> None:
        if self._keepers_word is not None:
            os.close(self._keepers_word)
            self._keepers_word = None

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            self._close_keepers_word()
            self._remove_scratch()
            if self._sockets is not None:
                shutil.rmtree(self._sockets, ignore_errors=True)
                self._sockets = None

    def _remove_scratch(self) -> None:
        """The kernel's throw-away folder, gone with it (`rmtree` removes a link the kernel left, never follows it)."""
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    async def _forked_kernel(self, kernel_cmd: list[str], kw: dict, walls: dict | None) -> int | None:
        global _said_cold
        if not _is_this_pythons_ipykernel(kernel_cmd) or type(self.provisioner) is not LocalProvisioner:
            return None
        env = dict(kw.get("env") or os.environ)
        if not kw.get("independent"):
            env["JPY_PARENT_PID"] = str(os.getpid())  # as jupyter_client's launcher sets it
        opened: list[int] = []
        try:
            streams = [_fileno(kw.get("stdout"), 1, opened), _fileno(kw.get("stderr"), 2, opened)]
            nursery = await asyncio.to_thread(nursery_for, env, tuple(self.preload))
            cwd = str(kw.get("cwd") or os.getcwd())
            pid, said = await asyncio.to_thread(
                nursery.start_kernel, kernel_cmd[3:], cwd, env, streams, walls, 30, self.files_mb, self.memory_mb
            )
            self._close_keepers_word()
            self._keepers_word = said
            return pid
        except (NurseryError, OSError, ValueError) as error:
            if not _said_cold:
                _said_cold = True
                self.log.warning("Kernels start cold, not forked warm: %s", error)
            return None
        finally:
            for fd in opened:
                os.close(fd)


@functools.cache
def _peers_filtered() -> bool:
    """Whether this ZeroMQ can make a socket that is a file accept one process alone (`IPC_FILTER_PID`, which a
    libzmq built without peer credentials lacks): a kernel listens on files only then, on TCP otherwise."""
    with zmq.Context() as context, context.socket(zmq.PUB) as probe:
        try:
            probe.setsockopt(zmq.IPC_FILTER_PID, os.getpid())
        except (zmq.ZMQError, AttributeError):
            return False
        return True


def _kernel_pid(said: int, timeout: float = 30) -> int:
    """The pid a cold kernel's keeper writes on `said` as it forks the kernel."""
    line = read_line(said, time.monotonic() + timeout)
    if not line.startswith("pid "):
        os.close(said)
        raise RuntimeError("the kernel's keeper did not start it")
    return int(line.split()[1])


def _walls(kw: dict, kernel_cmd: list[str], log) -> dict | None:
    """The walls a grading kernel starts in (`$JAXCOURSE_PROTECTED` in its environment), if this system can
    build them; where it cannot, the kernel runs unwalled, and what walls it lacks is said once."""
    global _said_unwalled
    walls = _sandbox.walls(dict(kw.get("env") or os.environ), str(kw.get("cwd") or os.getcwd()), kernel_cmd)
    if walls is None:
        return None
    version = _sandbox.abi()
    if (missing := _sandbox.shortfall(version)) and not _said_unwalled:
        _said_unwalled = True
        how = "unwalled" if not version else "partly walled"
        log.warning("Kernels run %s: %s (autograder/INTEGRITY.md, 'Not defended')", how, missing)
    return walls if version else None


# Where a walled kernel's libraries would otherwise write, beside its HOME: they follow HOME when unset.
_ELSEWHERE = ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "IPYTHONDIR", "MPLCONFIGDIR")


def _walled_environment(env: dict[str, str], scratch: str) -> dict[str, str]:
    """A walled kernel's environment: its throw-away folder as HOME and temporary folder, so that what it writes
    there (IPython's profile, a checkpoint) works and dies with it. Matplotlib's font cache, which takes a second
    to build, is read where this user keeps it, when it is there; JAX's compilation cache, when one is set, is
    made first, for the kernel to read (it writes none: `_in_the_nursery.py`)."""
    fonts = Path(env.get("MPLCONFIGDIR") or Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "matplotlib")
    walled = {name: value for name, value in env.items() if name not in _ELSEWHERE}
    walled.update(HOME=scratch, TMPDIR=scratch, TMP=scratch, TEMP=scratch)
    if any(fonts.glob("fontlist-*.json")):
        walled["MPLCONFIGDIR"] = str(fonts)
    if cache := env.get("JAX_COMPILATION_CACHE_DIR"):
        os.makedirs(cache, exist_ok=True)
    return walled


def _is_this_pythons_ipykernel(cmd: list[str]) -> bool:
    if len(cmd) < 3 or cmd[1:3] != ["-m", "ipykernel_launcher"]:
        return False
    try:
        return os.path.samefile(cmd[0], sys.executable)
    except OSError:
        return False


def _fileno(stream, default: int, opened: list[int]) -> int:
    """The descriptor a kernel's stream goes to (a pipe, which a cold start would make, is not offered)."""
    if stream is None:
        return default
    if stream == subprocess.DEVNULL:
        opened.append(os.open(os.devnull, os.O_WRONLY))
        return opened[-1]
    if isinstance(stream, int):
        if stream >= 0:
            return stream
    elif hasattr(stream, "fileno"):
        return stream.fileno()
    raise ValueError(f"a kernel stream of {stream!r} cannot be handed to a forked kernel")


class _Forked:
    """What `LocalProvisioner` needs of a `Popen`, for a kernel this process did not start itself."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid, self.returncode = pid, None
        try:
            self._process: psutil.Process | None = psutil.Process(pid)
        except psutil.NoSuchProcess:
            self._process, self.returncode = None, 0

    def poll(self) -> int | None:
        if self.returncode is None and self._process is not None:
            try:
                ended = not self._process.is_running() or self._process.status() == psutil.STATUS_ZOMBIE
            except psutil.NoSuchProcess:
                ended = True
            if ended:
                self.returncode = 0  # reaped by the nursery, which alone could know the status
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"kernel {self.pid} still running")
            time.sleep(0.02)
        return 0

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)
