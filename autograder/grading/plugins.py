"""An nbgrader preprocessor for feedback: test errors without the test's code.

IPython tracebacks quote the lines around the failing call, so a hidden test that
raises would show its own code in the feedback even after nbgrader's
`ClearHiddenTests` blanks the cell (jupyter/nbgrader#917). This keeps, for every
graded test cell, only the error's name and message: what the student acts on.
Imported by `nbgrader_config.py`; it needs nbgrader, unlike the rest of the package.
"""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor


class ShortenTestErrors(NbGraderPreprocessor):
    """Replace the traceback of each graded test cell's error with `Name: message`."""

    def preprocess_cell(self, cell, resources, index):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources
