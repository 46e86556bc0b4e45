"""conftest.py's order of the tests: the longest first, spread over the workers' shares."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conftest import _SECONDS, _spread

pytestmark = pytest.mark.unit


def test_each_worker_starts_on_its_share_of_the_longest_tests():
    longest = sorted(_SECONDS, key=_SECONDS.get, reverse=True)
    items = [SimpleNamespace(name=f"quick_{n}") for n in range(41)] + [SimpleNamespace(name=n) for n in longest]
    order = _spread(items, workers=2)
    assert sorted(i.name for i in order) == sorted(i.name for i in items)
    # worksteal's first share: len // 2 tests; the second: the rest.
    first, second = order[: len(order) // 2], order[len(order) // 2 :]
    assert {first[0].name, second[0].name} == set(longest[:2])
    work = [sum(_SECONDS.get(i.name, 3) for i in share) for share in (first, second)]
    assert abs(work[0] - work[1]) <= max(_SECONDS.values()) / 2
    for share in (first, second):
        seconds = [_SECONDS.get(i.name, 3) for i in share]
        assert seconds == sorted(seconds, reverse=True)


def test_one_process_runs_the_longest_first():
    items = [SimpleNamespace(name="quick"), SimpleNamespace(name=max(_SECONDS, key=_SECONDS.get))]
    assert [i.name for i in _spread(items, workers=1)] == [items[1].name, "quick"]
