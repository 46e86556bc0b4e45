"""The verifier's process, with what `Verifier` needs of a `Popen`: started in the background, so that a notebook's
kernel, which the learner waits for first, is not kept waiting behind it.

It is forked from the kernels' nursery (`Nursery.start_program`), which has imported JAX and the checks and runs
no notebook's code itself, so the verifier starts with its imports done and no second import competes with the
kernel's for the cores; where no nursery can fork it, a new interpreter starts it (`python -m
autograder.verifying`). Its pipes exist from the start: a request written early waits in them.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading

from ..kernels._nursery import NurseryError, nursery_for

MODULE = "autograder.verifying"


class VerifierProcess:
    """`python -m autograder.verifying ASSIGNMENT` with `env`, its stderr on the descriptor `errors`."""

    def __init__(self, assignment: str, env: dict[str, str], errors: int):
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        self.stdin, self.stdout = open(stdin_write, "w"), open(stdout_read)  # as Popen's text pipes
        self.returncode: int | None = None
        self._pid, self._status, self._popen = -1, -1, None
        ends = [stdin_read, stdout_write, errors]
        self._starting = threading.Thread(target=self._start, args=(assignment, env, ends), daemon=True)
        self._starting.start()

    def _start(self, assignment: str, env: dict[str, str], ends: list[int]) -> None:
        try:
            nursery = nursery_for(env)
            self._pid, self._status = nursery.start_program(MODULE, [assignment], os.getcwd(), env, ends)
        except (NurseryError, OSError, ValueError):
            try:
                command = [sys.executable, "-m", MODULE, assignment]
                self._popen = subprocess.Popen(command, stdin=ends[0], stdout=ends[1], stderr=ends[2], env=env)
            except OSError as error:
                os.write(ends[2], f"The verifier could not start: {error}\n".encode())
                self.returncode = 1
        finally:
            os.close(ends[0])
            os.close(ends[1])

    @property
    def pid(self) -> int:
        self._starting.join()
        return self._popen.pid if self._popen is not None else self._pid

    def poll(self) -> int | None:
        self._starting.join()
        if self.returncode is None and self._popen is not None:
            self.returncode = self._popen.poll()
        elif self.returncode is None and select.select([self._status], [], [], 0)[0]:
            said = os.read(self._status, 64).split()
            os.close(self._status)
            # Nothing said: what waited for it was killed with it (a whole process tree), as by SIGKILL.
            self.returncode = int(said[1]) if said[:1] == [b"exit"] else -signal.SIGKILL
        return self.returncode

    def wait(self) -> int:
        while (code := self.poll()) is None:
            if self._popen is not None:
                self.returncode = self._popen.wait()
            else:
                select.select([self._status], [], [])
        return code

    def kill(self) -> None:
        if self.poll() is None and self.pid > 0:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
