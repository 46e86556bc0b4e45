"""What a graded notebook keeps of what its cells print and display: at most `MAX_OUTPUT_BYTES` in all.

Without a bound, one answer printing 120 MB made a 120 MB graded notebook, held whole in the grader's own
process (outside the kernel's memory limit) and written to the gradebook's folder and the feedback. Past the
bound, what the kernel sends is read and dropped as it comes, and the notebook says so once; an error is always
kept, since nbgrader scores a test cell by it.
"""

from __future__ import annotations

from typing import Any

from nbclient.exceptions import DeadKernelError
from nbclient.util import run_sync
from nbformat.v4 import new_output

from ..._verified import CELL_KEY, MAX_HANDED_BYTES, MIME
from ._keeper import STOPPED_BY_GRADER

# A course's answers print kilobytes; a plot is some tens of kilobytes.
MAX_OUTPUT_BYTES = 8_000_000
DROPPED = (
    "[The grader kept the first {mb:g} MB this notebook printed or displayed, and dropped the rest: print less, "
    "or only what the problem asks for.]\n"
)
_COUNTED = ("stream", "display_data", "execute_result")


def output_size(msg: dict) -> int:
    """About how many bytes an output message adds to the notebook: its text, or its data's."""
    content = msg.get("content") or {}
    data = content.get("data") or {}
    return len(str(content.get("text", ""))) + sum(len(str(value)) for value in data.values())


class CappedOutputs:
    """A mixin for nbclient's `NotebookClient` (nbgrader's `Execute`): outputs past `MAX_OUTPUT_BYTES` in one
    notebook are dropped, with one line that says so."""

    _output_bytes = 0
    _handed_bytes = 0
    _outputs_dropped = False

    def preprocess(self, nb: Any, resources: Any = None, km: Any = None) -> Any:
        self._output_bytes, self._handed_bytes, self._outputs_dropped = 0, 0, False
        return super().preprocess(nb, resources, km)  # pyright: ignore[reportAttributeAccessIssue]

    def _hands_over(self, msg: dict, cell_index: int) -> bool:
        """Whether `msg` is what a hand-over cell shows (the programs the verifier judges), within their own bound:
        a notebook that printed its fill must still hand its answers over. (Which cell is the grader's own is told
        where the programs are taken out; a key copied onto a student's cell gains it only this bound.)"""
        cells = getattr(getattr(self, "nb", None), "cells", [])
        cell = cells[cell_index] if 0 <= cell_index < len(cells) else {}
        if CELL_KEY not in cell.get("metadata", {}) or MIME not in (msg.get("content") or {}).get("data", {}):
            return False
        self._handed_bytes += output_size(msg)
        return self._handed_bytes <= MAX_HANDED_BYTES

    async def async_execute_cell(self, *args: Any, **kwargs: Any) -> Any:
        """A kernel its keeper stopped (`_keeper.py`) died saying why, where the grader reports it."""
        try:
            return await super().async_execute_cell(*args, **kwargs)  # pyright: ignore[reportAttributeAccessIssue]
        except DeadKernelError as died:
            stopped_because = getattr(getattr(self, "km", None), "stopped_because", None)
            if why := (stopped_because() if callable(stopped_because) else ""):
                raise DeadKernelError(f"Kernel died: {STOPPED_BY_GRADER}{why}") from died
            raise

    # nbclient binds its own coroutine when it defines the blocking form (which nbconvert's preprocessors call).
    execute_cell = run_sync(async_execute_cell)

    def output(self, outs: list, msg: dict, display_id: str | None, cell_index: int) -> Any:
        if msg.get("msg_type") in _COUNTED and not self._hands_over(msg, cell_index):
            self._output_bytes += output_size(msg)
            if self._output_bytes > MAX_OUTPUT_BYTES:
                if not self._outputs_dropped:
                    self._outputs_dropped = True
                    outs.append(new_output("stream", name="stdout", text=DROPPED.format(mb=MAX_OUTPUT_BYTES / 1e6)))
                return None
        return super().output(outs, msg, display_id, cell_index)  # pyright: ignore[reportAttributeAccessIssue]
