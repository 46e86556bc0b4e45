"""The kernel's side: an answer handed over as exported programs, or as the reason it could not be."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from autograder._verified import MIME
from autograder.verifying import _hand_over, verify

pytestmark = pytest.mark.unit


@pytest.fixture
def shown(monkeypatch):
    displayed = []
    monkeypatch.setattr(_hand_over, "display", lambda data, raw: displayed.append(data[MIME]))
    return displayed


def test_an_answer_leaves_as_one_program_per_call(shown):
    def standardize(x):
        x = jnp.asarray(x, jnp.float32)
        return (x - x.mean(0)) / x.std(0)

    _hand_over.hand_over("01_arrays", "test_standardize", {"standardize": standardize})
    (payload,) = shown
    assert payload["grade_id"] == "test_standardize" and [list(c) for c in payload["calls"]] == [["program"]] * 2
    assert verify("01_arrays", {"test_standardize": payload["calls"]})["test_standardize"]["passed"]


def test_an_untouched_or_missing_answer_is_handed_over_as_its_reason(shown):
    def softmax(x):
        raise NotImplementedError

    _hand_over.hand_over("01_arrays", "test_softmax", {"softmax": softmax})
    _hand_over.hand_over("01_arrays", "test_softmax", {})
    assert shown[0]["calls"] == [{"error": "NotImplementedError: "}]
    assert shown[1]["calls"] == [{"error": "no function named softmax is defined"}]
    message = verify("01_arrays", {"test_softmax": shown[0]["calls"]})["test_softmax"]["message"]
    assert "could not be exported" in message and "NotImplementedError" in message


def test_python_on_the_values_cannot_be_exported(shown):
    def softmax(x):
        return x / x.sum() if float(x.max()) < 100 else x

    _hand_over.hand_over("01_arrays", "test_softmax", {"softmax": softmax})
    assert "ConcretizationTypeError" in shown[0]["calls"][0]["error"]


def test_a_debug_print_left_in_a_correct_answer_costs_nothing(shown):
    def softmax(x):
        jax.debug.print("x = {}", x)
        e = jnp.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    _hand_over.hand_over("01_arrays", "test_softmax", {"softmax": softmax})
    assert verify("01_arrays", {"test_softmax": shown[0]["calls"]})["test_softmax"]["passed"]
    assert jax.debug.print is not None and jax.debug.print.__name__ == "debug_print"


def test_a_global_the_answer_rebinds_while_traced_is_put_back(shown):
    namespace: dict = {"total_calls": 0}
    exec(
        "def scale_by_calls_pure(calls, x):\n"
        "    global total_calls\n"
        "    total_calls += 1\n"
        "    return calls + 1, x * (calls + 1)\n",
        namespace,
    )
    _hand_over.hand_over("03_tracing", "test_pure", namespace)
    assert namespace["total_calls"] == 0 and "program" in shown[0]["calls"][0]
    assert verify("03_tracing", {"test_pure": shown[0]["calls"]})["test_pure"]["passed"]


def test_nothing_is_handed_over_after_a_test_that_failed(shown, monkeypatch):
    """Its error already scores it zero, and the grader does not verify it: exporting it would be wasted work."""

    class Shell:
        last_execution_succeeded = False

    monkeypatch.setattr(_hand_over, "get_ipython", Shell)
    _hand_over.hand_over("01_arrays", "test_softmax", {"softmax": lambda x: x})
    assert shown == []
    Shell.last_execution_succeeded = True
    _hand_over.hand_over("01_arrays", "test_softmax", {"softmax": lambda x: x})
    assert [payload["grade_id"] for payload in shown] == ["test_softmax"]
