"""A graded notebook keeps at most so much of what its cells print (autograder/grading/kernels/_outputs.py)."""

from __future__ import annotations

import pytest

from autograder.grading.kernels import _outputs

pytestmark = pytest.mark.unit


class _Client:
    """As nbclient's client: each output message becomes an output of the cell."""

    def preprocess(self, nb, resources=None, km=None):
        return nb, resources

    def output(self, outs, msg, display_id, cell_index):
        outs.append(msg["content"])
        return msg["content"]


class _Capped(_outputs.CappedOutputs, _Client):
    pass


def _stream(text: str) -> dict:
    return {"msg_type": "stream", "content": {"name": "stdout", "text": text}}


def test_outputs_past_the_bound_are_dropped_with_one_line_that_says_so_and_errors_are_kept(monkeypatch):
    monkeypatch.setattr(_outputs, "MAX_OUTPUT_BYTES", 100)
    client, outs = _Capped(), []
    client.preprocess(None)
    for _ in range(5):
        client.output(outs, _stream("x" * 30), None, 0)
    error = {"msg_type": "error", "content": {"ename": "CheckFailed", "evalue": "kept", "traceback": []}}
    client.output(outs, error, None, 0)
    client.output(outs, _stream("more"), None, 0)
    assert [o.get("text") for o in outs[:3]] == ["x" * 30] * 3
    assert "kept the first 0.0001 MB" in outs[3]["text"] and outs[4] == error["content"] and len(outs) == 5
    # Each notebook starts afresh.
    client.preprocess(None)
    outs = []
    client.output(outs, _stream("y"), None, 0)
    assert outs == [{"name": "stdout", "text": "y"}]


def test_a_display_counts_its_data():
    shown = {"msg_type": "display_data", "content": {"data": {"image/png": "A" * 50, "text/plain": "<Figure>"}}}
    assert _outputs.output_size(shown) == 58


def test_a_hand_over_cell_still_hands_over_after_the_bound_within_its_own(monkeypatch):
    from types import SimpleNamespace

    from autograder._verified import CELL_KEY, MIME

    monkeypatch.setattr(_outputs, "MAX_OUTPUT_BYTES", 100)
    monkeypatch.setattr(_outputs, "MAX_HANDED_BYTES", 60)
    client, outs = _Capped(), []
    client.preprocess(None)
    client.nb = SimpleNamespace(cells=[{"metadata": {}}, {"metadata": {CELL_KEY: "test_a"}}])
    client.output(outs, _stream("x" * 200), None, 0)  # the student's cell printed past the bound
    handed = {"msg_type": "display_data", "content": {"data": {MIME: "p" * 50}}}
    client.output(outs, handed, None, 1)
    client.output(outs, handed, None, 1)  # past the hand-over's own bound
    client.output(outs, handed, None, 0)  # the programs' type, shown by a cell that hands nothing over
    assert [o.get("data", {}).get(MIME) for o in outs] == [None, "p" * 50]
