"""A nursery: a process that has imported a kernel's libraries and forks fresh kernels on request.

Each kernel is forked from a process that imported NumPy, JAX, ipykernel and the checks and ran
nothing else (JAX's backend not started), then becomes `python -m ipykernel_launcher ...` as a
cold start would: its own session, folder, environment and streams. It shares no state with any
kernel before it. A nursery is a child of the process that asked for it, so its kernels stay in
that process's tree (the grader's limits and kills reach them).

Libraries read some variables when they are imported (`OPENBLAS_NUM_THREADS`, `JAX_*`): a nursery
serves only kernels whose environment agrees with its own on those (`import_key`).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import traceback

# What kernels import before their first cell; a library that is not installed is skipped.
PRELOAD = ("numpy", "jax", "jax.numpy", "ipykernel.kernelapp", "autograder", "autograder.checks")
# Variables that libraries read once, when imported (or that change how Python itself starts).
_READ_AT_IMPORT = ("JAX_", "XLA_", "TF_", "NPY_", "OMP_", "OPENBLAS_", "MKL_", "NUMEXPR_", "PYTHON", "LD_", "CUDA")
_REPLY_BYTES = 4096


def import_key(env) -> tuple[tuple[str, str], ...]:
    """The part of an environment that imported libraries have already read."""
    return tuple(sorted((name, value) for name, value in env.items() if name.startswith(_READ_AT_IMPORT)))


# What this process's libraries read, if they were imported with this module (a forkserver's preload).
_IMPORTED_WITH = import_key(os.environ)


class NurseryError(RuntimeError):
    """The nursery could not start, or could not start a kernel: the caller starts one cold."""


class Nursery:
    """The asking side: `start_kernel` returns the pid of a kernel that is ready for its client."""

    def __init__(self, channel: socket.socket, pid: int, key, process: subprocess.Popen | None = None):
        self.channel, self.pid, self.key, self._process = channel, pid, key, process
        self._lock = threading.Lock()

    @classmethod
    def spawn(cls, env: dict[str, str], preload=PRELOAD, timeout: float = 120) -> Nursery:
        """A new interpreter that imports `preload`, with `env` (its kernels' import-time variables)."""
        ours, theirs = socket.socketpair()
        code = f"from {__name__} import main; main({theirs.fileno()}, {list(preload)!r})"
        process = subprocess.Popen(
            [sys.executable, "-c", code], pass_fds=[theirs.fileno()], env=env, cwd="/", stdin=subprocess.DEVNULL
        )
        theirs.close()
        nursery = cls(ours, process.pid, import_key(env), process)
        nursery._expect(b"ready", timeout, "did not finish importing its libraries")
        return nursery

    @classmethod
    def fork_here(cls, preload=PRELOAD) -> Nursery | None:
        """A nursery forked from this process, if it is a safe parent: every `preload` imported, one
        thread, and JAX's backend not started (JAX warns that a fork after that may deadlock)."""
        if threading.active_count() != 1 or not all(name in sys.modules for name in preload if _installed(name)):
            return None
        bridge = sys.modules.get("jax._src.xla_bridge")
        if bridge is not None and bridge.backends_are_initialized():
            return None
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:  # pragma: no cover (the nursery's side: it never returns)
            ours.close()
            _serve(theirs)
        theirs.close()
        nursery = cls(ours, pid, _IMPORTED_WITH)
        nursery._expect(b"ready", 10, "did not start")
        return nursery

    def _expect(self, word: bytes, timeout: float, what: str) -> bytes:
        ready, _, _ = select.select([self.channel], [], [], timeout)
        answer = self.channel.recv(_REPLY_BYTES) if ready else b""
        if not answer.startswith(word):
            self.close()
            raise NurseryError(f"the kernel nursery {what}")
        return answer

    def alive(self) -> bool:
        if self._process is not None:
            return self._process.poll() is None
        try:
            return os.waitpid(self.pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:
            return False

    def start_kernel(self, argv: list[str], cwd: str, env: dict[str, str], streams, timeout: float = 30) -> int:
        """Fork a kernel running `python -m ipykernel_launcher *argv` in `cwd`, its stdout and stderr on
        `streams` (two descriptors, stdin on /dev/null); its pid, once it listens."""
        if import_key(env) != self.key:
            raise NurseryError("the kernel's environment differs in variables read at import")
        ready_read, ready_write = os.pipe()
        try:
            with self._lock:
                request = json.dumps({"argv": argv, "cwd": cwd, "env": env}).encode()
                socket.send_fds(self.channel, [request], [*streams, ready_write])
                pid = int(self._expect(b"pid ", 10, "did not fork a kernel").split()[1])
            os.close(ready_write)
            ready_write = -1
            ready, _, _ = select.select([ready_read], [], [], timeout)
            if not ready or os.read(ready_read, 16) != b"ok":
                _kill(pid)
                raise NurseryError("a forked kernel died before it was ready")
            return pid
        finally:
            os.close(ready_read)
            if ready_write >= 0:
                os.close(ready_write)

    def close(self) -> None:
        """End the nursery (its kernels belong to their managers, and live on)."""
        self.channel.close()
        if self._process is not None:
            self._process.wait()
        else:
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name.partition(".")[0]) is not None
    except (ImportError, ValueError):
        return False


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def main(fd: int, preload: list[str]) -> None:
    """A spawned nursery: import, then serve (`python -c` put its folder on sys.path: not a kernel's)."""
    if sys.path and sys.path[0] == "":
        del sys.path[0]
    for name in preload:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 (a library that cannot load is left to the kernel, which reports it)
            pass
    _serve(socket.socket(fileno=fd))


def _serve(channel: socket.socket) -> None:
    """Fork a kernel for each request until the asking process closes the channel (or ends)."""
    # Kernels are reaped as they end; the asking side watches them by pid.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    channel.sendall(b"ready")
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(channel, 1 << 20, 3)
        except OSError:
            break
        if not message:
            break
        pid = os.fork()
        if pid == 0:
            channel.close()
            _become_kernel(json.loads(message), fds)
        for fd in fds:
            os.close(fd)
        channel.sendall(f"pid {pid}".encode())
    os._exit(0)


def _become_kernel(request: dict, fds: list[int]) -> None:
    """In the forked child: what `Popen(python -m ipykernel_launcher ...)` would have set up, then the kernel."""
    code = 1
    try:
        os.setsid()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        stdin = os.open(os.devnull, os.O_RDONLY)
        for target, fd in enumerate([stdin, *fds[:2]]):
            os.dup2(fd, target)
        ready = fds[2]
        for fd in {stdin, *fds[:2]} - {0, 1, 2}:
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        _fresh_randomness()
        import ipykernel_launcher
        from ipykernel.kernelapp import IPKernelApp

        sys.argv = [ipykernel_launcher.__file__, *request["argv"]]
        # A cold kernel's poller watches its launcher; this one watches the nursery, which ends with it.
        app = IPKernelApp.instance(parent_handle=os.getppid())
        app.initialize(request["argv"])
        os.write(ready, b"ok")
        os.close(ready)
        app.start()
        code = 0
    except BaseException:  # noqa: BLE001 (printed where the kernel's errors go, as a cold start's would be)
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _fresh_randomness() -> None:
    """Seed what a new process would seed from the OS (Python's `random` reseeds itself at fork)."""
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()
