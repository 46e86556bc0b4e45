"""A test cell, as nbgrader marks one: the lowest layer of the instructor side, which every stage reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def grade_id_if_test(cell: Mapping[str, Any]) -> str | None:
    """The grade id of `cell` if it is a test cell (a code cell nbgrader grades that holds no answer), else None.

    A test cell without an id (a notebook whose metadata was edited) is still one: its id is then "". `cell` is a
    notebook's cell as nbformat reads it or as plain JSON: both are mappings.
    """
    meta = cell.get("metadata", {}).get("nbgrader", {})
    if cell.get("cell_type") != "code" or not meta.get("grade") or meta.get("solution"):
        return None
    return meta.get("grade_id", "")
