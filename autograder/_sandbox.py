"""A grading kernel's walls: Linux's Landlock keeps it out of the folders the grader protects, and keeps
what it writes where nothing else will read or run it.

What grades a notebook lives in files the kernel's user could read or change: the course's folder (the
gradebook, every student's submission, the seed file, the solutions) and the verifier's references; and
what runs after the kernel reads files in places its user can write: start-up files in HOME (Jupyter's and
nbgrader's configuration, IPython's start-up scripts), site directories, a compilation cache. A kernel is
walled in before it runs anything, by the process that becomes the kernel, so every thread and child it
ever has is walled in too. It may read anything outside the protected folders, and inside them only Python,
this package and the references it is given, and the files of the compilation cache the grader filled (read
by name, never listed: each is named by a hash of a program the kernel would compile). It may write only its own
folder (no links, pipes, sockets or
devices there: the grader writes the graded notebook in that folder afterwards), its connection file, a
throw-away folder of its own (its HOME and temporary folder, which the grader removes with it) and a few
devices (/dev/null, not /dev/shm). In /proc it sees itself alone: Landlock stops it tracing a process outside
its walls, but not reading another process's environment there, which is where the grader's and the
verifier's seed would be. Where Landlock has them, beyond its walls it may signal no process (ABI 6: the
grader, the nursery, another kernel), connect to no abstract Unix socket (ABI 6) and to no TCP port, and
listen only on the ports of its connection file and on ports the system picks (ABI 4: nothing on the
machine, such as a Dask scheduler, hears from it).

Where there is no Landlock (not Linux, a kernel before 5.13, or turned off) `abi()` is 0 and the grader
says that its kernels run unwalled; where it is older, what its walls lack (`shortfall`). `$JAXCOURSE_LANDLOCK`
makes `abi()` an older version than the system's, for tests that stand for such a system. Run as
`python -I -m autograder._sandbox WALLS COMMAND...`, it walls itself in and then becomes the command: a kernel
started cold (`-I`: the kernel's folder, where a student's files are, is not on sys.path). It imports neither
JAX nor nbgrader.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import json
import os
import site
import sys
import tempfile
from collections.abc import Sequence
from typing import NoReturn

from ._config import PROTECTED, REFERENCES, landlock_at_most

# Landlock's system calls have these numbers on every architecture.
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_ASK_VERSION = 1
_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
# Rights on files and folders: the first 13 from ABI 1, then moving between folders (2), truncating (3)
# and device ioctls (5). Read: execute, read a file, list a folder. A rule on a file takes only file rights.
_SINCE = {2: 1 << 13, 3: 1 << 14, 5: 1 << 15}
_READ = (1 << 0) | (1 << 2) | (1 << 3)
# Reading a file whose name is known, without listing its folder: JAX's compilation cache, whose files are named
# by a hash of the program compiled, gives a kernel only the programs it compiles itself.
_BY_NAME = 1 << 2
# Making a character device, a socket, a pipe, a block device or a link: what a grader that later reads or
# writes the kernel's folder could be led through (a link to the gradebook) or stalled by (a pipe).
_MAKE_SOCKET = 1 << 9
_SPECIAL = (1 << 6) | _MAKE_SOCKET | (1 << 10) | (1 << 11) | (1 << 12)
# What the grader's throw-away folders are called, then the pid of the process that made them and "-": one a
# killed grader left behind is removed by the next (`grading/batch/_workers.py`).
SCRATCH = "jax-course-grade-"
# Devices any process writes to. Not /dev/shm (POSIX shared memory, multiprocessing's semaphores): what is written
# there is memory no limit on the kernel's processes counts, and it stays on the machine after grading.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
_FILE_RIGHTS = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 14) | (1 << 15)
# TCP (ABI 4): binding to a port, connecting to one; a rule on a port is rule type 2.
_NET_SINCE, _BIND_TCP, _CONNECT_TCP, _NET_PORT = 4, 1 << 0, 1 << 1, 2
# Scopes (ABI 6): abstract Unix sockets and signals reach only processes inside the walls.
_SCOPES_SINCE, _SCOPES = 6, (1 << 0) | (1 << 1)


class _Ruleset(ctypes.Structure):
    # An older kernel takes the longer structure as long as what it does not know is zero.
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _NetPort(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


@functools.cache
def _offered() -> int:
    """The Landlock ABI version this system offers; 0 if it has none (asked once: it cannot change)."""
    if not sys.platform.startswith("linux"):
        return 0
    version = _libc().syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_ASK_VERSION))
    return max(int(version), 0)


def abi() -> int:
    """The Landlock ABI version the walls use: this system's, or an older one `$JAXCOURSE_LANDLOCK` names."""
    most = landlock_at_most()
    return _offered() if most is None else min(_offered(), most)


def shortfall(version: int) -> str:
    """What walls built with Landlock ABI `version` leave open, in words for whoever runs the kernel ("" if
    nothing `restrict` asks for); the defences that need no Landlock hold anyway (autograder/INTEGRITY.md)."""
    if not version:
        return (
            "this computer has no Landlock (Linux 5.13 or newer, enabled), so nothing keeps the notebook's code "
            "from reading or changing files outside its folder, or from signalling other programs"
        )
    missing, said = [], []
    if version < _SCOPES_SINCE:
        missing.append("signalling other programs of the same user (Landlock 6, Linux 6.12)")
    if version < _NET_SINCE:
        missing.append("connecting to network ports on this computer (Landlock 4, Linux 6.7)")
    if missing:
        said.append(
            f"this computer's Landlock (version {version}) cannot keep the notebook's code from {' or '.join(missing)}"
        )
    if not filters_calls():
        said.append(
            "without libseccomp nothing keeps it from making shared memory that no memory limit counts and that "
            "outlives it"
        )
    return "; ".join(said)


def _everything(version: int) -> int:
    rights = (1 << 13) - 1
    for since, right in _SINCE.items():
        if version >= since:
            rights |= right
    return rights


def _beneath(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _walk(folder: str, rights: int, protected: list[str], rules: list[tuple[str, int]]) -> None:
    """Rules granting `rights` beneath `folder`, except beneath the `protected` folders."""
    if any(_beneath(folder, p) for p in protected):
        return
    if not any(_beneath(p, folder) for p in protected):
        rules.append((folder, rights))
        return
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if not entry.is_symlink():  # reached through its target, which has rules of its own
            _walk(entry.path, rights, protected, rules)


def rules(
    protected: list[str],
    read: list[str],
    write: list[str],
    everything: int,
    scratch: Sequence[str] = (),
    sockets: Sequence[str] = (),
    by_name: Sequence[str] = (),
) -> list[tuple[str, int]]:
    """What the kernel is granted: reading outside `protected`, and inside it only `read` (and the files of
    `by_name`, without listing them); writing in `write`
    (but no links, pipes, sockets or devices), in `sockets` (the same, and sockets), in `scratch` (anything) and
    to `DEVICES` and its own /proc entry; and nothing of `protected` that these hold (a kernel started in the
    course's folder cannot read the seed)."""
    protected = [os.path.realpath(p) for p in protected if p] + _other_processes()
    granted: list[tuple[str, int]] = []
    _walk(os.sep, _READ, protected, granted)
    own, kept = [*write, *DEVICES, f"/proc/{os.getpid()}"], everything & ~_SPECIAL
    granting = ((_READ, read), (_BY_NAME, by_name), (kept, own), (kept | _MAKE_SOCKET, sockets), (everything, scratch))
    for rights, paths in granting:
        for path in sorted({os.path.realpath(f) for f in paths if f and os.path.exists(f)}):
            # `by_name` is protected itself (nothing else lists it): what it holds is not, unless named too.
            inside = [p for p in protected if _beneath(p, path) and not (rights == _BY_NAME and p == path)]
            _walk(path, rights, inside, granted)
    return granted


def _other_processes() -> list[str]:
    """Every process's folder in /proc but this one's (a process started later has no rule at all)."""
    try:
        return [entry.path for entry in os.scandir("/proc") if entry.name.isdigit() and entry.name != str(os.getpid())]
    except OSError:
        return []


def _fail(what: str) -> OSError:
    number = ctypes.get_errno()
    return OSError(number, f"Landlock could not {what}: {os.strerror(number)}")


def restrict(
    protected: list[str],
    read: list[str],
    write: list[str],
    ports: Sequence[int] = (),
    scratch: Sequence[str] = (),
    sockets: Sequence[str] = (),
    by_name: Sequence[str] = (),
    version: int | None = None,
) -> None:
    """Wall this process (and all it starts from now on) in, writing `scratch` as it likes and listening only on
    `ports`, with Landlock ABI `version` at most (what the process that asked found: `walls`): see the module's
    docstring and `rules`."""
    version = abi() if version is None else min(version, abi())
    if not version:
        raise OSError("this system has no Landlock")
    libc, everything = _libc(), _everything(version)
    # Listening is handled only with ports to allow: a kernel whose ports are unknown still starts.
    net = (_CONNECT_TCP | (_BIND_TCP if ports else 0)) if version >= _NET_SINCE else 0
    handled = _Ruleset(everything, net, _SCOPES if version >= _SCOPES_SINCE else 0)
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(handled), ctypes.c_size_t(ctypes.sizeof(handled)), 0)
    if ruleset < 0:
        raise _fail("make a rule set")
    try:
        for path, rights in rules(protected, read, write, everything, scratch, sockets, by_name):
            try:
                descriptor = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # gone since it was listed
            try:
                if not os.path.isdir(path):
                    rights &= _FILE_RIGHTS
                rule = _PathBeneath(rights & everything, descriptor)
                if libc.syscall(_ADD_RULE, ruleset, _PATH_BENEATH, ctypes.byref(rule), 0) != 0:
                    raise _fail(f"grant {path}")
            finally:
                os.close(descriptor)
        for port in sorted(set(ports)) if net & _BIND_TCP else ():
            rule = _NetPort(_BIND_TCP, port)
            if libc.syscall(_ADD_RULE, ruleset, _NET_PORT, ctypes.byref(rule), 0) != 0:
                raise _fail(f"let it listen on port {port}")
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise _fail("forbid new privileges")
        if libc.syscall(_RESTRICT_SELF, ruleset, 0) != 0:
            raise _fail("wall this process in")
    finally:
        os.close(ruleset)


# System calls that make memory no limit on a kernel's processes counts (their resident memory does not hold it)
# and that outlives them: SysV shared memory, message queues and semaphores, POSIX message queues, and anonymous
# files in memory. Refused with EPERM, as where the system offers none; /dev/shm, POSIX shared memory, is walled.
FORBIDDEN_CALLS = ("shmget", "msgget", "semget", "mq_open", "memfd_create", "memfd_secret")


@functools.cache
def filters_calls() -> bool:
    """Whether this system has libseccomp, which refuses `FORBIDDEN_CALLS` (Linux only)."""
    try:
        import pyseccomp  # noqa: F401 (loads libseccomp, or fails)
    except (ImportError, OSError, RuntimeError):
        return False
    return sys.platform.startswith("linux")


def forbid_calls() -> None:
    """Refuse `FORBIDDEN_CALLS` to this process and all it starts from now on (after `restrict`, which forbade it
    new privileges); nothing where the system has no libseccomp (`filters_calls`)."""
    if not filters_calls():
        return
    import pyseccomp

    refusing = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    for call in FORBIDDEN_CALLS:
        try:
            refusing.add_rule(pyseccomp.ERRNO(errno.EPERM), call)
        except (OSError, ValueError, RuntimeError):
            continue  # a call this system's architecture does not have
    refusing.load()


def walls(env: dict[str, str], cwd: str, argv: list[str]) -> dict | None:
    """The walls of a kernel started in `cwd` with `env` and the arguments `argv` (`-f CONNECTION_FILE`):
    None when `env` protects nothing (`$JAXCOURSE_PROTECTED`, set by the grader). Its throw-away folder
    (`scratch`) is added by whoever makes it (`grading/kernels/_manager.py`)."""
    protected = [p for p in env.get(PROTECTED, "").split(os.pathsep) if p]
    if not protected:
        return None
    # And the temporary folder, where the grader and every other kernel keep their throw-away folders (a driver's
    # copy of the notebook it runs, hidden tests and all; another kernel's HOME): a kernel reads its own alone.
    protected.append(tempfile.gettempdir())
    package = os.path.dirname(os.path.abspath(__file__))
    # Python's own folders and the user's site-packages (`pip install --user`), wherever the course is.
    read = [sys.prefix, sys.base_prefix, sys.exec_prefix, site.getusersitepackages(), package, env.get(REFERENCES, "")]
    walls = {"protected": protected, "read": read, "write": [cwd], "ports": [], "sockets": [], "by_name": []}
    walls["version"] = abi()
    # The programs the grader compiled for every kernel (`grading/references/_compiled.py`): read, never listed.
    if cache := env.get("JAX_COMPILATION_CACHE_DIR"):
        walls["protected"] = [*protected, cache]
        walls["by_name"].append(cache)
    if "-f" in argv[:-1]:
        connection = os.path.abspath(argv[argv.index("-f") + 1])
        info = _connection(connection)
        if info.get("transport") == "ipc":  # its sockets are files beside it, in a folder of their own
            walls["sockets"].append(os.path.dirname(connection))
        else:  # the file alone (ipykernel writes its ports there): its folder holds other kernels' files
            walls["write"].append(connection)
            walls["ports"] = _ports(info)
    return walls


def _connection(path: str) -> dict:
    try:
        with open(path) as file:
            info = json.load(file)
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


def _ports(info: dict) -> list[int]:
    """The TCP ports a kernel listens on, from its connection file's contents (none if it has none yet)."""
    names = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")
    ports = {int(info[name]) for name in names if isinstance(info.get(name), int) and info[name] > 0}
    # And any free port the system picks (port 0): ipykernel listens on one for its subprocesses' output.
    return sorted(ports | {0}) if ports else []


def become(walls: dict | None, argv: list[str]) -> NoReturn:
    """Wall this process in (if `walls`), then become the kernel `argv`: a kernel started cold."""
    if walls:
        restrict(**walls)
        forbid_calls()
        # JAX writes no compilation cache entry it cannot (its own later programs and the verifier would run them).
        os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "inf"
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    become(json.loads(sys.argv[1]), sys.argv[2:])
