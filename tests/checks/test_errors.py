"""Messages link to lecture sections."""

from __future__ import annotations

import pytest

import autograder as ag

pytestmark = pytest.mark.unit


def test_lecture_links():
    assert ag.lecture_link("01#Out-of-bounds indexing") == "course/01_arrays.ipynb#Out-of-bounds-indexing"
    assert ag.lecture_link("02") == "course/02_immutability.ipynb"
