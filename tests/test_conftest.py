"""conftest.py's order of the tests: the longest first, spread over the workers' shares."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conftest import _FRESH, _SECONDS, _spread, _together

pytestmark = pytest.mark.unit


def test_each_worker_starts_on_its_share_of_the_longest_tests():
    longest = sorted(_SECONDS, key=_SECONDS.get, reverse=True)
    items = [SimpleNamespace(name=f"quick_{n}") for n in range(41)] + [SimpleNamespace(name=n) for n in longest]
    order = _spread(items, workers=2)
    assert sorted(i.name for i in order) == sorted(i.name for i in items)
    units = sorted(_together(items), key=lambda unit: -sum(_SECONDS.get(i.name, 3) for i in unit))
    unit_seconds = {i.name: sum(_SECONDS.get(j.name, 3) for j in unit) for unit in units for i in unit}
    # worksteal's first share: len // 2 tests; the second: the rest.
    first, second = order[: len(order) // 2], order[len(order) // 2 :]
    assert {first[0].name, second[0].name} == {units[0][0].name, units[1][0].name}
    work = [sum(_SECONDS.get(i.name, 3) for i in share) for share in (first, second)]
    assert abs(work[0] - work[1]) <= max(_SECONDS.values()) / 2
    for share in (first, second):
        seconds = [unit_seconds[i.name] for i in share]
        assert seconds == sorted(seconds, reverse=True)


def test_one_process_runs_the_longest_first():
    items = [SimpleNamespace(name="quick"), SimpleNamespace(name=max(_SECONDS, key=_SECONDS.get))]
    assert [i.name for i in _spread(items, workers=1)] == [items[1].name, "quick"]


def test_a_sets_fresh_process_test_runs_just_before_its_autograde_test_on_the_same_worker():
    sets = ["09_capstone", "07_prng", "01_arrays"]
    items = [SimpleNamespace(name=f"quick_{n}") for n in range(20)]
    items += [SimpleNamespace(name=f"test_autograde[{s}]") for s in sets]
    items += [SimpleNamespace(name=f"{_FRESH}[{s}]") for s in sets]
    order = [i.name for i in _spread(items, workers=2)]
    half = len(order) // 2
    for s in sets:
        fresh, graded = order.index(f"{_FRESH}[{s}]"), order.index(f"test_autograde[{s}]")
        assert graded == fresh + 1 and (fresh < half) == (graded < half), order
