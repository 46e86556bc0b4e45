"""What runs in a nursery (`_nursery.py`): import the kernels' libraries, then fork a kernel (or the verifier) per
request."""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import runpy
import signal
import socket
import sys
import tempfile
import traceback
from collections.abc import Iterator
from typing import NoReturn

from ... import _sandbox
from ._keeper import keep

# debugpy, imported with ipykernel's debugger where nothing keeps it out (a grading driver's forkserver imports
# the kernels' libraries as they are), warns on stderr about Python's frozen modules as it loads: the
# instructor's terminal. Breakpoints in a graded notebook are no concern.
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")


def main(fd: int, preload: list[str]) -> None:
    """A spawned nursery: import, then serve (`python -c` put its folder on sys.path: not a kernel's)."""
    if sys.path and sys.path[0] == "":
        del sys.path[0]
    # What is imported here lives as long as the nursery: collecting garbage meanwhile only walks it again
    # and again (a tenth of the import's time).
    gc.disable()
    with _without_debugpy():
        for name in preload:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 (a library that cannot load is left to the kernel, which reports it)
                pass
    gc.enable()
    serve(socket.socket(fileno=fd))


@contextlib.contextmanager
def _without_debugpy() -> Iterator[None]:
    """ipykernel's debugger loaded meanwhile finds no debugpy (a tenth of a second to import): no front end debugs
    a notebook being graded or checked. The notebook itself may still import debugpy."""
    sys.modules.setdefault("debugpy", None)  # pyright: ignore[reportArgumentType] (None: "not installed")
    try:
        yield
    finally:
        if sys.modules.get("debugpy", 0) is None:
            del sys.modules["debugpy"]


def serve(channel: socket.socket) -> None:
    """Fork a kernel for each request until the asking process closes the channel (or ends)."""
    # Kernels are reaped as they end; the asking side watches them by pid.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The imported libraries' objects, out of every kernel's garbage collections: a full collection would walk
    # them all (a twentieth of a second each time), and write to every page that holds one, which the fork
    # otherwise shares with the nursery.
    gc.freeze()
    channel.sendall(b"ready")
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(channel, 1 << 20, 4)
        except OSError:
            break
        if not message:
            break
        request = json.loads(message)
        pid = os.fork()
        if pid == 0:
            channel.close()
            if request.get("module"):
                _wait_for_program(request, fds)
            keep({**request, "nursery": os.getppid()}, fds, _become_kernel)
        for fd in fds:
            os.close(fd)
        channel.sendall(f"pid {pid}".encode())
    os._exit(0)


def _answer_only(pid: int) -> None:
    """A kernel's sockets that are files (IPC) accept only process `pid`, the grader that started it: a socket's
    path can be learnt (/proc/net/unix) and Landlock does not wall connecting to one, so another kernel, or
    whatever a kernel leaves running, could otherwise subscribe to this one's output (a classmate's answers and
    the test cells' source) or send it code. ZeroMQ reads the connecting process from the socket itself
    (`SO_PEERCRED`), which no process can forge. TCP sockets need none: a walled kernel connects to no port."""
    import zmq

    bind = zmq.Socket.bind

    def bind_for(socket, address):
        if str(address).startswith("ipc://"):
            socket.setsockopt(zmq.IPC_FILTER_PID, pid)
        return bind(socket, address)

    zmq.Socket.bind = bind_for  # pyright: ignore[reportAttributeAccessIssue] (the same signature)


def _become_kernel(request: dict, fds: list[int]) -> NoReturn:
    """In the keeper's child: what `Popen(python -m ipykernel_launcher ...)` would have set up, then the kernel."""
    code = 1
    try:
        ready = fds[2]
        _take_over(request, [os.open(os.devnull, os.O_RDONLY), *fds[:2]])
        _answer_only(request["grader"])
        if request.get("walls"):  # before any of the kernel's threads: each one inherits them
            _sandbox.restrict(**request["walls"])
            _sandbox.forbid_calls()
            _write_nothing_outside()
        import ipykernel_launcher
        from ipykernel.kernelapp import IPKernelApp

        sys.argv = [ipykernel_launcher.__file__, *request["argv"]]
        # A cold kernel's poller watches its launcher; this one watches its keeper, which ends with the nursery.
        app = IPKernelApp.instance(parent_handle=os.getppid())
        with _without_debugpy():  # where the nursery's imports did not already load the debugger without it
            app.initialize(request["argv"])
        os.write(ready, b"ok\n")
        os.close(ready)
        app.start()
        code = 0
    except BaseException:  # noqa: BLE001 (printed where the kernel's errors go, as a cold start's would be)
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _write_nothing_outside() -> None:
    """In a walled kernel: temporary files in its own throw-away folder (`tempfile` remembers the folder it first
    found, which in the nursery was the system's), and no compilation cache entries written (the walls refuse
    them: JAX would warn in the notebook at every compilation)."""
    tempfile.tempdir = None
    if (jax := sys.modules.get("jax")) is not None:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", float("inf"))


def _wait_for_program(request: dict, fds: list[int]) -> None:
    """In the forked child: fork `python -m MODULE *argv` (the verifier), its stdin, stdout and stderr on the first
    three `fds`; write its pid, then its exit status, on the fourth (the nursery reaps what it forks unread)."""
    status = fds[3]
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    pid = os.fork()
    if pid == 0:
        os.close(status)
        _become_program(request, fds[:3])
    try:
        for fd in fds[:3]:
            os.close(fd)
        os.write(status, f"pid {pid}\n".encode())
        _, waited = os.waitpid(pid, 0)
        os.write(status, f"exit {os.waitstatus_to_exitcode(waited)}\n".encode())
    finally:
        os._exit(0)


def _become_program(request: dict, fds: list[int]) -> None:
    """In the forked grandchild: what `Popen([python, -m, MODULE, *argv])` would have set up, then the module
    (no folder on sys.path: the nursery took `python -c`'s away)."""
    code: int | str | None = 1
    try:
        _take_over(request, fds)
        sys.argv = [request["module"], *request["argv"]]
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as done:
        code = done.code
        if code is not None and not isinstance(code, int):  # as the interpreter says it: on stderr, status 1
            print(code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 (printed on its stderr, as a new interpreter's would be)
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code if isinstance(code, int) else 0 if code is None else 1)


def _take_over(request: dict, streams: list[int]) -> None:
    """In a forked child, what a new process started by `Popen` would have: `streams` as its stdin, stdout and
    stderr, Ctrl-C raising KeyboardInterrupt (the nursery ignores it), `request`'s folder and environment, and
    randomness of its own."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for target, fd in enumerate(streams):
        os.dup2(fd, target)
    for fd in set(streams) - {0, 1, 2}:
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    _fresh_randomness()
    _compilation_cache_from_environment()


def _compilation_cache_from_environment() -> None:
    """JAX, imported in the nursery, read its compilation cache's settings from the nursery's environment; a new
    process would read them from its own (the grader names the programs it compiled for every kernel there)."""
    if (jax := sys.modules.get("jax")) is None:
        return
    # JAX's own module, where the nursery imported JAX (this side of the course is not to need it otherwise).
    compilation_cache = importlib.import_module("jax.experimental.compilation_cache.compilation_cache")
    jax.config.update("jax_compilation_cache_dir", os.environ.get("JAX_COMPILATION_CACHE_DIR"))
    min_time = os.environ.get("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "1")  # JAX's own default
    jax.config.update("jax_persistent_cache_min_compile_time_secs", float(min_time))
    compilation_cache.reset_cache()  # opened at the next compilation, where the settings now say


def _fresh_randomness() -> None:
    """Seed what a new process would seed from the OS (Python's `random` reseeds itself at fork)."""
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()
