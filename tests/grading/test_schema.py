"""nbgrader's metadata check gives jsonschema's verdicts, with nbgrader's schema checked once."""

from __future__ import annotations

import copy

import jsonschema
import nbformat
import pytest
from jsonschema.validators import validator_for
from nbgrader.nbgraderformat import MetadataValidator
from nbgrader.nbgraderformat import ValidationError as NbgraderValidationError
from nbgrader.preprocessors import CheckCellMetadata

from autograder.grading import plugins  # noqa: F401  (plugins: what nbgrader_config.py imports)
from autograder.grading.plugins import _schema

from support import ROOT

pytestmark = pytest.mark.unit

SCHEMA = MetadataValidator().schema
GOOD = {"grade": True, "grade_id": "test_x", "locked": True, "points": 2, "schema_version": 3, "solution": False}
BAD = [{**GOOD, "points": "two"}, {k: v for k, v in GOOD.items() if k != "locked"}, {**GOOD, "grade": "yes"}]


@pytest.fixture
def schema_checks(monkeypatch) -> list[dict]:
    """Every check of a schema, from now on, with no validator kept from before."""
    monkeypatch.setattr(_schema, "_VALIDATORS", {})
    kind, checked = validator_for(SCHEMA), []
    original = kind.check_schema.__func__
    monkeypatch.setattr(
        kind, "check_schema", classmethod(lambda cls, s, **kw: (checked.append(s), original(cls, s, **kw)))
    )
    return checked


def test_the_verdicts_are_jsonschemas(schema_checks):
    _schema.validate(GOOD, SCHEMA)
    for metadata in BAD:
        with pytest.raises(jsonschema.ValidationError) as theirs:
            jsonschema.validate(metadata, SCHEMA)
        with pytest.raises(jsonschema.ValidationError) as ours:
            _schema.validate(metadata, SCHEMA)
        assert ours.value.message == theirs.value.message
        assert list(ours.value.path) == list(theirs.value.path)


def test_a_broken_schema_is_still_refused(schema_checks):
    with pytest.raises(jsonschema.SchemaError):
        _schema.validate({}, {"type": "no such type"})


def test_nbgraders_check_reads_the_schema_once_for_a_whole_notebook_and_still_refuses_bad_metadata(schema_checks):
    nb = nbformat.read(ROOT / "solutions" / "04_jit" / "04_jit.ipynb", as_version=4)
    graded = [cell for cell in nb.cells if "nbgrader" in cell.metadata]
    assert len(graded) > 10
    for _ in range(3):  # three notebooks' checks
        CheckCellMetadata().preprocess(copy.deepcopy(nb), {})
    assert len(schema_checks) == 1
    graded[0].metadata["nbgrader"]["points"] = "two"
    with pytest.raises(NbgraderValidationError):
        CheckCellMetadata().preprocess(nb, {})
