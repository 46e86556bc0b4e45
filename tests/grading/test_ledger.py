"""The ledger: entries round-trip, a broken one counts as not done, and fingerprints follow the files."""

from __future__ import annotations

import pytest

from autograder.grading.batch._ledger import Ledger, Outcome, fingerprint, write_atomically

pytestmark = pytest.mark.unit


def test_an_entry_round_trips_and_a_broken_one_is_not_done(tmp_path):
    ledger = Ledger(tmp_path)
    outcome = Outcome("ada", "graded", "", 3.0, 4.0, {"test_a": [3.0, 4.0]}, 1.5, "abc")
    ledger.record(outcome)
    assert ledger.entry("ada") == outcome
    (tmp_path / "done" / "bob.json").write_text("{ half written")
    assert ledger.entry("bob") is None and ledger.entry("carol") is None
    assert ledger.outcomes() == [outcome]


def test_writes_leave_the_old_file_or_the_new_one(tmp_path):
    path = tmp_path / "a" / "entry.json"
    write_atomically(path, "one")
    write_atomically(path, "two")
    assert path.read_text() == "two" and sorted(p.name for p in path.parent.iterdir()) == ["entry.json"]


def test_a_fingerprint_changes_with_any_submitted_file(tmp_path):
    (tmp_path / "nb.ipynb").write_text("{}")
    first = fingerprint(tmp_path)
    assert fingerprint(tmp_path) == first
    (tmp_path / "data.csv").write_text("1,2")
    second = fingerprint(tmp_path)
    (tmp_path / "data.csv").write_text("1,3")
    assert len({first, second, fingerprint(tmp_path)}) == 3


def test_a_lost_grading_is_remembered_for_the_same_files_until_the_submission_is_recorded(tmp_path):
    ledger = Ledger(tmp_path)
    assert ledger.lost_before("ada", "abc") is None
    lost = "lost: the process grading it was killed by SIGKILL, in cell a1"
    ledger.note_lost("ada", "abc", lost)
    # A resumed run meets it again: the first loss still counts, unless the student handed in other files.
    assert Ledger(tmp_path).lost_before("ada", "abc") == lost
    assert ledger.lost_before("ada", "changed") is None and ledger.lost_before("bob", "abc") is None
    ledger.record(Outcome("ada", "graded", "", 3.0, 4.0, {}, 1.5, "abc"))
    assert ledger.lost_before("ada", "abc") is None
