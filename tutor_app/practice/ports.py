"""`PracticeBook`: the learner's practice items as a call's plan and its end use them.
The real class is practice/store.py `PracticeStore`."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from tutor_app.practice.items import PracticeItem
    from tutor_app.practice.outcome import Outcome


@runtime_checkable
class PracticeBook(Protocol):
    """The learner's practice items (tutor_app.practice.store.PracticeStore), as the call's
    plan and its end use them (practice/calls.py `start_plan`, `after_call`)."""

    def now(self) -> datetime: ...

    def items(self) -> "list[PracticeItem]": ...

    def planned(self, session_id: str) -> "list[PracticeItem]": ...

    def mark_planned(self, session_id: str, items: "Sequence[PracticeItem]") -> None: ...

    def record(self, session_id: str, outcomes: "Sequence[Outcome]") -> None: ...

    def add_from_call(self, session_id: str, corrections: Sequence[Any], new_words: Sequence[str],
                      learner_lines: Sequence[str]) -> "list[PracticeItem]": ...
