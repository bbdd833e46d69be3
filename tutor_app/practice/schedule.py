"""When each practice item comes back: FSRS (the `fsrs` package), one review per call in
which the item was practised. A learner's calls are days apart, not minutes, so there
are no intra-day learning steps: a new item is due at the next call, a use of the better
form is a "Good" review (2 days, then 11, then 46: mastered after three in a row), a repeat
of the mistake is "Again" (back the next day). Fuzzing is off: the schedule is reproducible.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

MASTERED_DAYS = 21.0  # stable for three weeks: shown as mastered, no longer planned


@dataclass
class Due:
    due: datetime | None  # None: never reviewed, due now
    stability_days: float
    reviews: int


def _scheduler() -> Any:
    from fsrs import Scheduler

    return Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)


def new_card(now: datetime) -> dict[str, Any]:
    """A card for a new item, due at once (the next call is its first chance)."""
    from fsrs import Card

    card = Card(due=now)
    return dict(card.to_dict())


def review(card: dict[str, Any], success: bool, when: datetime) -> dict[str, Any]:
    """The card after one review: Good when the learner got it right, Again when not."""
    from fsrs import Card, Rating

    current = Card.from_dict(card) if card else Card(due=when)  # type: ignore[arg-type]
    updated, _log = _scheduler().review_card(current, Rating.Good if success else Rating.Again, when)
    return dict(updated.to_dict())


def due_at(card: dict[str, Any]) -> datetime | None:
    raw = card.get("due") if card else None
    if not raw:
        return None
    value = datetime.fromisoformat(str(raw))
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def stability(card: dict[str, Any]) -> float:
    value = card.get("stability") if card else None
    return float(value) if value is not None else 0.0


def is_due(card: dict[str, Any], now: datetime) -> bool:
    due = due_at(card)
    return due is None or due <= now


def is_mastered(card: dict[str, Any]) -> bool:
    return stability(card) >= MASTERED_DAYS
