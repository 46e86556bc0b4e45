"""What runs in a nursery (`_nursery.py`): import the kernels' libraries, then fork a kernel per request."""

from __future__ import annotations

import importlib
import json
import os
import signal
import socket
import sys
import traceback

from .. import _sandbox

# debugpy, imported with ipykernel's debugger, warns on stderr about Python's frozen modules as it loads: in a
# nursery that is the learner's or instructor's terminal. Breakpoints in a checked notebook are no concern.
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")


def main(fd: int, preload: list[str]) -> None:
    """A spawned nursery: import, then serve (`python -c` put its folder on sys.path: not a kernel's)."""
    if sys.path and sys.path[0] == "":
        del sys.path[0]
    for name in preload:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 (a library that cannot load is left to the kernel, which reports it)
            pass
    serve(socket.socket(fileno=fd))


def serve(channel: socket.socket) -> None:
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
        if request.get("walls"):  # before any of the kernel's threads: each one inherits them
            _sandbox.restrict(**request["walls"])
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
