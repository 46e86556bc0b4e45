"""A set's declared answers: the wrong answers it must catch and the correct ones written another way.

They live in the course at `tests/variants/SET.py` (`jax-course new` starts the file), as a dict `VARIANTS`:

    VARIANTS = {
        "scores_python_loop": {                      # a name that says what the answer does
            "answers": {"scores": "def batch_scores(W, b, X):\\n    ..."},   # answer cell grade_id -> source
            "loses": {"test_scores_structure"},      # every test cell it must score 0 on; the others keep theirs
            "says": ["grows with the problem size"], # words its failure must show (or a dict of them per test)
            "bypass": "vectorised by vmap, not a loop over the batch",  # the skill, when it is the shortcut
        },
        "scores_vmap_twice": {"answers": {...}, "loses": set(), "alternative": True},  # correct: full marks
    }

Also: `lost_in_the_verifier` (those of `loses` only the verifier fails: a program that cannot leave the kernel)
and `setting` (the answer changes a global setting every later cell sees, so it is graded alone).
A set without the file is still proven on everything that needs no declared answer.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from ._sets import ExerciseSet

FOLDER = Path("tests") / "variants"
_KEYS = {"answers", "loses", "says", "bypass", "alternative", "lost_in_the_verifier", "setting"}


def declared_path(root: Path, assignment: str) -> Path:
    return root / FOLDER / f"{assignment}.py"


def declared(root: Path, assignment: str) -> dict[str, dict]:
    """The set's declared answers (none when it has no file)."""
    path = declared_path(root, assignment)
    if not path.is_file():
        return {}
    spec = importlib.util.spec_from_file_location(f"_declared_{assignment}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    variants = getattr(module, "VARIANTS", None)
    if not isinstance(variants, dict):
        raise ValueError(f"{path} defines no VARIANTS dict")
    return variants


def problems_with(exercise: ExerciseSet, variants: dict[str, dict], verified: set[str]) -> list[str]:
    """What is wrong with the declarations themselves, one sentence each (nothing: they can be graded)."""
    answer_cells, tests = set(exercise.reference), set(exercise.points)
    wrong = []
    for name, variant in variants.items():
        if not isinstance(variant, dict) or not isinstance(variant.get("answers"), dict):
            wrong.append(f"{name}: no `answers` dict (answer cell grade_id -> source)")
            continue
        if unknown := set(variant) - _KEYS:
            wrong.append(f"{name}: unknown keys {sorted(unknown)} (known: {', '.join(sorted(_KEYS))})")
        if stray := set(variant["answers"]) - answer_cells:
            wrong.append(f"{name}: answers {sorted(stray)}, which are not answer cells of {exercise.name}")
        loses = variant.get("loses")
        if not isinstance(loses, set):
            wrong.append(f"{name}: `loses` is not a set of test grade_ids (set() for a correct answer)")
            continue
        if stray := loses - tests:
            wrong.append(f"{name}: loses {sorted(stray)}, which are not test cells of {exercise.name}")
        if variant.get("alternative") and (loses or "bypass" in variant):
            wrong.append(f"{name}: an alternative is correct: it loses nothing and is no bypass")
        wrong += _says_problems(name, variant, loses)
        if stray := set(variant.get("lost_in_the_verifier", set())) - (loses & verified):
            wrong.append(f"{name}: lost_in_the_verifier names {sorted(stray)}, which it keeps or the kernel decides")
    return wrong


def _says_problems(name: str, variant: dict, loses: set[str]) -> list[str]:
    says = variant.get("says")
    if says is None:
        return [f"{name}: says nothing of what its failure must name (`says`)"] if loses else []
    by_test = says if isinstance(says, dict) else dict.fromkeys(loses, says)
    wrong = []
    if not by_test or set(by_test) - loses:
        wrong.append(f"{name}: says words for {sorted(by_test)}, but loses {sorted(loses)}")
    for test, words in by_test.items():
        if isinstance(words, str) or not words or not all(isinstance(w, str) and w.strip() for w in words):
            wrong.append(f"{name}/{test}: says {words!r}, not a list of words")
    return wrong
