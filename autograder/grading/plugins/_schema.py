"""nbgrader's check of each cell's metadata, with its schema checked once rather than for every cell.

nbgrader validates a cell's metadata with `jsonschema.validate`, which first checks the schema itself
against JSON Schema's meta-schema: most of the time of each cell's check, for every cell of every notebook,
twice a notebook in autograde, in the grader's one main process. `validate` gives the same verdict (the
same validator class, the same error jsonschema would raise) and checks each schema once. It replaces a global
of nbgrader's (`nbgrader.nbgraderformat.common.jsonschema`), as of the release pinned in pyproject.toml.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match
from jsonschema.validators import validator_for
from nbgrader.nbgraderformat import common

_VALIDATORS: dict[str, Any] = {}


def validate(instance: Any, schema: dict) -> None:
    """`jsonschema.validate(instance, schema)`, as nbgrader calls it, each schema checked the first time only."""
    key = json.dumps(schema, sort_keys=True)
    validator = _VALIDATORS.get(key)
    if validator is None:
        kind = validator_for(schema)
        kind.check_schema(schema)
        validator = _VALIDATORS[key] = kind(schema)
    error = best_match(validator.iter_errors(instance))
    if error is not None:
        raise error


class _JsonSchema:
    """What nbgrader's metadata check reads as `jsonschema`: this module's `validate`, the rest jsonschema's."""

    validate = staticmethod(validate)

    def __getattr__(self, name: str) -> Any:
        return getattr(jsonschema, name)


def check_each_schema_once() -> None:
    """Make nbgrader's metadata check (`nbgrader.nbgraderformat.common`) use `validate`."""
    common.jsonschema = _JsonSchema()  # type: ignore[assignment]
