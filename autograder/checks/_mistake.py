"""What one classic mistake is: its cause, what to try, and where the lectures teach it (`_mistakes`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ._errors import lecture_link


@dataclass(frozen=True)
class Mistake:
    """One classic mistake: the `cause` as a student would recognise it, `hint` (the "Try:" line), and the
    sections of the lectures that teach it (`taught`, lecture number -> heading)."""

    title: str
    cause: str
    hint: str
    taught: dict[str, str]
    shows: str  # what the student sees: JAX's error, or the symptom a check finds
    errors: tuple[str, ...] = ()  # names of JAX's exception classes (any class in the error's MRO)
    says: str = ""  # a regular expression on the error's text, where the class alone does not tell
    symptom: str = field(default="", compare=False)  # the name `_symptoms` raises it by, for a value that shows it

    def section(self, current: str | None = None) -> str:
        """The section to reread from set `current`: its own lecture's, else the latest earlier one's."""
        if not self.taught:  # one of Python's errors: the set's lecture
            return current or ""
        earlier = [lecture for lecture in sorted(self.taught) if current and lecture <= current]
        lecture = earlier[-1] if earlier else min(self.taught)
        return f"{lecture}#{self.taught[lecture]}"

    def explain(self, current: str | None = None, section: str | None = None) -> str:
        """The course's words: the cause, "Try:" and "Reread:" (`section`, where the problem being worked on
        says where to reread, else its own section for set `current`)."""
        where = section or self.section(current)
        return f"{self.cause}\nTry: {self.hint}\nReread: {lecture_link(where) if where else 'this set’s lecture'}"
