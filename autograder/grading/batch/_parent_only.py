"""`jax-course grade`'s forkserver hears only the grader that started it.

Python's multiprocessing forkserver listens on a Unix socket with a path in the temporary folder, and before
Python 3.14 it runs whatever a connecting process sends it (a pickled process object) without asking who it is.
A grading kernel is walled in, but Landlock does not wall Unix sockets that have a path, and their paths can be
learnt (`ss -x`): a kernel could have the forkserver, which is not walled in, run its code. The forkserver
imports this module first (`set_forkserver_preload`), and from then on hangs up on any process but its parent.
The drivers it forks lift that again (`lift`) before anything of theirs accepts a connection.
"""

from __future__ import annotations

import os
import socket
import struct

_accept = socket.socket.accept


def _from_parent_only(self: socket.socket):
    """`socket.accept`, hanging up on a Unix socket's peer that is not this process's parent."""
    while True:
        connection, address = _accept(self)
        if self.family != socket.AF_UNIX:
            return connection, address
        credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        if struct.unpack("3i", credentials)[0] == os.getppid():
            return connection, address
        connection.close()


def lift() -> None:
    """In a process forked from the forkserver: accept from anyone again."""
    socket.socket.accept = _accept


if hasattr(socket, "SO_PEERCRED"):  # Linux; elsewhere the forkserver is as Python makes it
    socket.socket.accept = _from_parent_only
