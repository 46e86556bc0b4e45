"""A nursery: a process that has imported a kernel's libraries and forks fresh kernels on request.

Each kernel is forked from a process that imported NumPy, JAX, ipykernel and the checks and ran
nothing else (JAX's backend not started), then becomes `python -m ipykernel_launcher ...` as a
cold start would: its own session, folder, environment and streams. It shares no state with any
kernel before it. A nursery is a child of the process that asked for it, so its kernels stay in
that process's tree (the grader's limits and kills reach them). The verifier is forked from it too
(`start_program`): it never runs a notebook's code itself.

Libraries read some variables when they are imported (`OPENBLAS_NUM_THREADS`, `JAX_*`): a nursery
serves only kernels whose environment agrees with its own on those (`import_key`). A set whose notebooks import
libraries of `AHEAD` (set 14's Flax, Optax, Orbax and scikit-learn: seconds in every notebook) gets a nursery that
imported them too (`preload_for`).
"""

from __future__ import annotations

import ast
import atexit
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
import time
from collections.abc import Iterable
from pathlib import Path

from . import _in_the_nursery

# What kernels import before their first cell; a library that is not installed is skipped. The second line is
# what a kernel imports as it starts (ipykernel's debugger: without debugpy, which a forked kernel goes without).
PRELOAD = ("numpy", "jax", "jax.numpy", "ipykernel.kernelapp", "autograder", "autograder.checks")
PRELOAD += ("ipykernel.ipkernel", "ipykernel.debugger", "IPython.core.debugger", "psutil", "sqlite3")
# Variables that libraries read once, when imported (or that change how Python itself starts). Not
# `TF_*`: JAX sets TF_CPP_MIN_LOG_LEVEL as it is imported, and XLA reads it when its backend starts.
_READ_AT_IMPORT = ("JAX_", "XLA_", "NPY_", "OMP_", "OPENBLAS_", "MKL_", "NUMEXPR_", "PYTHON", "LD_", "CUDA")
# Read again in every forked process (`_in_the_nursery._compilation_cache_from_environment`): a kernel that loads
# the grader's compiled programs is forked from the nursery that imported JAX without them.
_SET_AFTER_FORK = ("JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS")
_REPLY_BYTES = 4096
# Libraries a notebook may import that its kernel gets imported ahead, when the notebooks of its set import them:
# none starts a thread or JAX's backend as it is imported (tests/grading/test_kernels.py), so a process that
# imported them is still a safe parent to fork. Only these, whoever's notebook names them: nothing else is run
# in the nursery, which forks every kernel and is not walled in.
AHEAD = ("flax", "optax", "orbax", "sklearn")
_COURSE_VARIABLES = "JAXCOURSE_"


def import_key(env) -> tuple[tuple[str, str], ...]:
    """The part of an environment that imported libraries have already read."""
    return tuple(
        sorted(
            (name, value)
            for name, value in env.items()
            if name.startswith(_READ_AT_IMPORT) and name not in _SET_AFTER_FORK
        )
    )


# What this process's libraries read, if they were imported with this module (a forkserver's preload).
_IMPORTED_WITH = import_key(os.environ)


def preload_for(notebooks: Iterable[Path], preload: Iterable[str] = PRELOAD) -> tuple[str, ...]:
    """`preload`, and the modules of `AHEAD` that the code cells of `notebooks` import at their top level (those
    installed): what the kernels of the notebooks' set import before their first cell."""
    ahead = dict.fromkeys(preload)
    for notebook in notebooks:
        try:
            cells = json.loads(Path(notebook).read_text())["cells"]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # no notebook there: its kernels import what they need themselves
        for cell in cells if isinstance(cells, list) else []:
            if isinstance(cell, dict) and cell.get("cell_type") == "code":
                ahead.update(dict.fromkeys(name for name in _imported(cell.get("source", "")) if _is_ahead(name)))
    return tuple(ahead)


def _imported(source: str | list[str]) -> list[str]:
    """The modules a cell imports at its top level (`from a import b`: `a`, and `a.b`, which may be a module)."""
    lines = "".join(source).splitlines()  # a notebook file's source may be a list of lines
    try:  # IPython's magics and shell escapes are not Python
        tree = ast.parse("\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines))
    except (SyntaxError, ValueError):
        return []
    names = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")]
    return names


def _is_ahead(name: str) -> bool:
    return name.partition(".")[0] in AHEAD and _installed(name)


class NurseryError(RuntimeError):
    """The nursery could not start, or could not start a kernel: the caller starts one cold."""


class Nursery:
    """The asking side: `start_kernel` returns the pid of a kernel that is ready for its client."""

    def __init__(
        self, channel: socket.socket, pid: int, key, imported: frozenset[str], process: subprocess.Popen | None = None
    ):
        self.channel, self.pid, self.key, self.imported, self._process = channel, pid, key, imported, process
        self._lock = threading.Lock()

    @classmethod
    def spawn(cls, env: dict[str, str], preload=PRELOAD, timeout: float = 120) -> Nursery:
        """A new interpreter that imports `preload`, with `env` (its kernels' import-time variables). Not the
        course's own variables, which no library reads on import: what the nursery starts with is what /proc shows
        as the environment of every process it forks, whatever each is then given (the verifier's seed)."""
        ours, theirs = socket.socketpair()
        code = f"from {_in_the_nursery.__name__} import main; main({theirs.fileno()}, {list(preload)!r})"
        started = {name: value for name, value in env.items() if not name.startswith(_COURSE_VARIABLES)}
        process = subprocess.Popen(
            [sys.executable, "-c", code], pass_fds=[theirs.fileno()], env=started, cwd="/", stdin=subprocess.DEVNULL
        )
        theirs.close()
        nursery = cls(ours, process.pid, import_key(env), frozenset(filter(_installed, preload)), process)
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
            _in_the_nursery.serve(theirs)
        theirs.close()
        nursery = cls(ours, pid, _IMPORTED_WITH, frozenset(sys.modules))
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

    def _fork(self, request: dict, fds: list[int], what: str) -> bytes:
        """Ask the nursery to fork a `what` for `request`, handing it `fds`; its reply ("pid N")."""
        if import_key(request["env"]) != self.key:
            raise NurseryError(f"the {what}'s environment differs in variables read at import")
        with self._lock:
            socket.send_fds(self.channel, [json.dumps(request).encode()], fds)
            return self._expect(b"pid ", 10, f"did not fork a {what}")

    def start_kernel(
        self,
        argv: list[str],
        cwd: str,
        env: dict[str, str],
        streams,
        walls: dict | None = None,
        timeout: float = 30,
        files_mb: float | None = None,
        memory_mb: float | None = None,
    ) -> tuple[int, int]:
        """Fork a kernel running `python -m ipykernel_launcher *argv` in `cwd`, its stdout and stderr on
        `streams` (two descriptors, stdin on /dev/null), inside `walls` (`_sandbox.py`), under a keeper
        (`_keeper.py`); once it listens, its pid and a descriptor on which its keeper says why it stopped it, if it
        does (its files past `files_mb`, `_keeper.FILES_MB` unless given; its memory past `memory_mb`, if given). Its
        sockets that are files accept only this process (`_in_the_nursery._answer_only`)."""
        ready_read, ready_write = os.pipe()
        pid = 0
        try:
            request = {
                "argv": argv,
                "cwd": cwd,
                "env": env,
                "walls": walls,
                "grader": os.getpid(),
                "files_mb": files_mb,
                "memory_mb": memory_mb,
            }
            self._fork(request, [*streams, ready_write], "kernel")
            os.close(ready_write)
            ready_write = -1
            # Its keeper writes "pid N", the kernel "ok", each a line, in either order.
            deadline = time.monotonic() + timeout
            lines = [read_line(ready_read, deadline), read_line(ready_read, deadline)]
            pid = next((int(line.split()[1]) for line in lines if line.startswith("pid ")), 0)
            if not pid or "ok" not in lines:
                raise NurseryError("a forked kernel died before it was ready")
            os.set_blocking(ready_read, False)
            return pid, ready_read
        except BaseException:
            if pid:
                _kill(pid)  # its keeper then ends whatever it started
            os.close(ready_read)
            raise
        finally:
            if ready_write >= 0:
                os.close(ready_write)

    def start_program(self, module: str, argv: list[str], cwd: str, env: dict[str, str], streams) -> tuple[int, int]:
        """Fork `python -m MODULE *argv` in `cwd`, its stdin, stdout and stderr on `streams` (three descriptors): its
        pid, and a descriptor that then gives `exit STATUS` (`_in_the_nursery._wait_for_program`)."""
        status_read, status_write = os.pipe()
        try:
            self._fork({"module": module, "argv": argv, "cwd": cwd, "env": env}, [*streams, status_write], "program")
            os.close(status_write)
            status_write = -1
            said = read_line(status_read, time.monotonic() + 10)  # what follows it is the status's to read
            if not said.startswith("pid "):
                raise NurseryError("a forked program did not start")
            return int(said.split()[1]), status_read
        except BaseException:
            os.close(status_read)
            raise
        finally:
            if status_write >= 0:
                os.close(status_write)

    def close(self) -> None:
        """End the nursery, and with it the kernels it forked (each keeper ends its own: `_keeper.py`)."""
        self.channel.close()
        if self._process is not None:
            self._process.wait()
        else:
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass


_nurseries: dict[tuple, list[Nursery]] = {}
_lock = threading.Lock()


def nursery_for(env: dict[str, str], preload=PRELOAD) -> Nursery:
    """This process's nursery for kernels with `env` that imported `preload` (what of it is installed), or more:
    spawned if there is none yet (or those there were ended)."""
    key, wanted = import_key(env), set(filter(_installed, preload))
    with _lock:
        alive = _nurseries[key] = [nursery for nursery in _nurseries.get(key, []) if nursery.alive()]
        nursery = next((nursery for nursery in alive if wanted <= nursery.imported), None)
        if nursery is None:
            nursery = Nursery.spawn(env, preload)
            alive.append(nursery)
        return nursery


def warm_up(env: dict[str, str], preload=PRELOAD) -> None:
    """Start spawning the nursery for `env` and `preload` now, in the background, while this process does other
    work."""

    def spawn() -> None:
        try:
            nursery_for(env, preload)
        except NurseryError:
            pass  # the kernel's manager tries again, then starts it cold and says so

    threading.Thread(target=spawn, daemon=True).start()


def prepare() -> None:
    """Fork a nursery from this process now, if it has imported what kernels need and is a safe parent
    (a grading driver, forked from a server that imported them); otherwise one is spawned on demand."""
    try:
        nursery = Nursery.fork_here()
    except NurseryError:
        return
    if nursery is not None:
        with _lock:
            _nurseries.setdefault(nursery.key, []).append(nursery)


def _forget() -> None:
    """In a forked child: the nurseries are the parent's; close this copy of their channels."""
    for nursery in _every_nursery():
        nursery.channel.close()
    _nurseries.clear()


def _close_all() -> None:
    for nursery in _every_nursery():
        nursery.close()


def _every_nursery() -> list[Nursery]:
    return [nursery for nurseries in _nurseries.values() for nursery in nurseries]


os.register_at_fork(after_in_child=_forget)
atexit.register(_close_all)


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name.partition(".")[0]) is not None
    except (ImportError, ValueError):
        return False


def read_line(fd: int, deadline: float) -> str:
    """One line from `fd`, without its newline, read a byte at a time (what follows is left to read) until
    `deadline` (`time.monotonic()`); "" if none came whole by then, or `fd` was closed first."""
    said = b""
    while not said.endswith(b"\n") and select.select([fd], [], [], max(deadline - time.monotonic(), 0))[0]:
        if not (byte := os.read(fd, 1)):
            break
        said += byte
    return said[:-1].decode(errors="replace") if said.endswith(b"\n") else ""


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
