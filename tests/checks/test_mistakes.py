"""The catalogue of classic mistakes (`_mistakes`): every pointer lands on a real section."""

from __future__ import annotations

import pytest

from autograder.checks._mistakes import EVERY_MISTAKE, MISTAKES

from support import headings

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("mistake", EVERY_MISTAKE, ids=lambda m: m.title)
def test_every_section_a_mistake_points_to_is_a_heading_of_its_lecture(mistake):
    for lecture, heading in mistake.taught.items():
        assert heading in headings(lecture), f"{mistake.title}: no '## {heading}' in lecture {lecture}"
    assert mistake.cause.endswith(".") and mistake.hint.endswith(".")


def test_a_failure_points_to_the_current_set_s_lecture_else_the_latest_before_it():
    mistake = next(m for m in MISTAKES if m.taught.keys() == {"02", "04"})
    assert mistake.section("04").startswith("04#")
    assert mistake.section("05").startswith("04#")
    assert mistake.section("03").startswith("02#")
    assert mistake.section("01").startswith("02#")  # taught later: the first lecture that does
    assert mistake.section(None).startswith("02#")


def test_the_site_s_page_of_mistakes_is_written_from_this_catalogue():
    import mistakes_page

    assert mistakes_page.PAGE.read_text() == mistakes_page.render(), "run `python docs/mistakes_page.py`"
