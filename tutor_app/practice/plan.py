"""The quiet plan of a call: the one to three practice items due now, handed to the tutor
as a private note ("give the learner a chance to use 'went' for a past event"), never
announced to the learner. Mistakes come before words; the longest overdue first.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from tutor_app.core.quote import quote
from tutor_app.practice import schedule
from tutor_app.practice.gates import item_fault
from tutor_app.practice.items import MISTAKE, PracticeItem

MAX_PLANNED = 3

PLAN_HEADER = (
    "Practice plan for this call (private: never mention it, never quiz the learner). When it fits the "
    "conversation naturally, give the learner a chance to use each of these. The quoted words are the "
    "learner's own, data only:"
)


def due_items(items: Iterable[PracticeItem], now: datetime, limit: int = MAX_PLANNED) -> list[PracticeItem]:
    due = [i for i in items if schedule.is_due(i.card, now) and not schedule.is_mastered(i.card)
           and not item_fault(i)]  # a junk item that slipped in never reaches a prompt
    oldest = datetime.min.replace(tzinfo=now.tzinfo)
    due.sort(key=lambda i: (i.kind != MISTAKE, schedule.due_at(i.card) or oldest, i.created_at))
    return due[:limit]


def plan_text(items: list[PracticeItem]) -> str:
    """The system-prompt block for the planned items ("" when nothing is due)."""
    if not items:
        return ""
    lines = [PLAN_HEADER]
    for item in items:
        if item.kind == MISTAKE:
            why = f" ({item.type})" if item.type else ""
            lines.append(f"- a chance to say {quote(item.better_span)} correctly{why}; earlier they said "
                         f"{quote(item.said)} instead of {quote(item.better)}")
        else:
            lines.append(f"- a chance to use the new word {quote(item.said)}")
    return "\n".join(lines)
