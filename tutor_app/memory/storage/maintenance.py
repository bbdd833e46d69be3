"""Maintenance: cleanup of old unimportant memories (seed 003) and compaction."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from tutor_app.errors import TutorError
from tutor_app.memory.storage.schema import utcnow

if TYPE_CHECKING:
    from tutor_app.memory.storage.store import ProfileMemory

LOW_IMPORTANCE = 0.5  # seed 003: created_at < now - days AND importance < 0.5


def cleanup_candidates(store: "ProfileMemory", days: int, now: datetime | None = None) -> list[str]:
    if not isinstance(days, int) or isinstance(days, bool) or days < 0:
        raise TutorError("days must be a whole number >= 0")
    cutoff = (now or utcnow()) - timedelta(days=days)
    return [m.id for m in store.list() if m.created_at is not None and m.created_at < cutoff
            and m.importance < LOW_IMPORTANCE]


def cleanup(store: "ProfileMemory", days: int = 30, now: datetime | None = None) -> int:
    """Delete (for real) memories older than `days` with importance < 0.5; returns how many."""
    ids = cleanup_candidates(store, days, now)
    return store.delete_many(ids) if ids else 0
