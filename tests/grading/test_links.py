"""Links in a submitted folder are found without being followed, and stock nbgrader's autograde refuses them too."""

from __future__ import annotations

import os

import pytest

from autograder.grading.batch._ledger import fingerprint
from autograder.grading.plugins._links import RefuseLinks, links_in, refusal

pytestmark = pytest.mark.unit


def _submitted(tmp_path):
    folder = tmp_path / "submitted" / "eve" / "03_tracing"
    folder.mkdir(parents=True)
    (folder / "03_tracing.ipynb").write_text("{}")
    return tmp_path / "submitted", folder


def test_a_plain_submission_has_no_links(tmp_path):
    submitted, folder = _submitted(tmp_path)
    (folder / "data").mkdir()
    (folder / "data" / "x.csv").write_text("1,2")
    assert links_in(folder, submitted) == []


def test_links_in_the_folder_are_named_with_their_targets_and_none_is_walked_through(tmp_path):
    submitted, folder = _submitted(tmp_path)
    (tmp_path / "solutions" / "many").mkdir(parents=True)
    for number in range(3):
        (tmp_path / "solutions" / "many" / f"{number}.ipynb").write_text("{}")
    (folder / "data.csv").symlink_to("../../../gradebook.db")  # dangling: found all the same
    (folder / "nested").mkdir()
    (folder / "nested" / "solutions").symlink_to(tmp_path / "solutions")
    assert links_in(folder, submitted) == [
        "eve/03_tracing/data.csv -> ../../../gradebook.db",
        f"eve/03_tracing/nested/solutions -> {tmp_path / 'solutions'}",
    ]


@pytest.mark.parametrize("linked", ["eve", "eve/03_tracing"])
def test_a_link_on_the_way_to_the_folder_is_found(tmp_path, linked):
    """`submitted/eve` or `submitted/eve/03_tracing` a link to another student's work or the solutions."""
    submitted, folder = _submitted(tmp_path)
    real = tmp_path / "elsewhere"
    (submitted / linked).rename(real)
    (submitted / linked).symlink_to(real)
    assert links_in(folder, submitted) == [f"{linked} -> {real}"]
    assert refusal(links_in(folder, submitted)).startswith(f"refused: the submission holds links, which the grader "
                                                           f"never follows ({linked} -> {real})")  # fmt: skip


def test_the_fingerprint_of_a_link_is_where_it_points_never_what_is_there(tmp_path):
    _, folder = _submitted(tmp_path)
    os.mkfifo(tmp_path / "pipe")  # reading it would wait for ever
    (folder / "data.csv").symlink_to(tmp_path / "pipe")
    first = fingerprint(folder)
    (folder / "data.csv").unlink()
    (folder / "data.csv").symlink_to("/dev/zero")  # reading it would never end
    assert fingerprint(folder) != first


def test_stock_nbgrader_autograde_refuses_links_once_the_course_s_plugins_are_imported():
    from nbgrader.apps import autogradeapp

    import autograder.grading.plugins  # noqa: F401  (what nbgrader_config.py imports)

    assert autogradeapp.Autograde is RefuseLinks
