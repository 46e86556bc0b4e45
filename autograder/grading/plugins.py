"""nbgrader preprocessors this course plugs in (`nbgrader_config.py`).

- `RefuseTampering`, in the autograde sanitize step: a student-editable cell that reaches
  for the grader's tools is not run; its source becomes an error saying why.
- `ShortenTestErrors`, in feedback: IPython tracebacks quote the lines around the failing
  call, so a hidden test that raises would show its own code even after nbgrader's
  `ClearHiddenTests` blanks the cell (jupyter/nbgrader#917). Only the error's name and
  message, what the student acts on, are kept.
"""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from ._tampering import imported_names, refusal, tampering


class RefuseTampering(NbGraderPreprocessor):
    """Sanitize step: student-editable code cells that tamper with grading are not run."""

    def preprocess(self, nb, resources):
        refused, elsewhere = [], {}
        for cell in nb.cells:
            if cell.cell_type == "code":
                elsewhere.update(imported_names(cell.source))
        for cell in nb.cells:
            if cell.metadata.get("nbgrader") == {}:
                # A copy of a graded cell, stripped by DeduplicateIds: without this, nbgrader's
                # CheckCellMetadata raises SchemaTooOldError, which stops a whole stock batch.
                del cell.metadata["nbgrader"]
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type != "code" or meta.get("locked"):
                continue  # locked cells were restored from the course's source by OverwriteCells
            findings = tampering(cell.source, elsewhere)
            if findings:
                refused.append(f"{meta.get('grade_id', 'a cell you added')}: {findings[0]}")
                cell.source = refusal(findings)
        if refused:
            nb.metadata.setdefault("jax_course", {})["refused"] = refused
        return nb, resources


class ShortenTestErrors(NbGraderPreprocessor):
    """Replace the traceback of each graded test cell's error with `Name: message`."""

    def preprocess_cell(self, cell, resources, index):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources
