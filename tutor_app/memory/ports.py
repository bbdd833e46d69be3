"""`MemoryStore`: one learner's long-term memory as the rest of the app uses it (the
tutor engine, turn memory, call end, the practice store and the speech bias list). The
real class is memory/storage/store.py `ProfileMemory`; the smaller seams inside memory
(merge, deletion) are memory/storage/ports.py."""
from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from tutor_app.core.protocols import Embedder
from tutor_app.core.types import EmotionScore

if TYPE_CHECKING:
    from tutor_app.memory.retrieval.recall import RecallResult
    from tutor_app.memory.storage.index import ProfileIndex
    from tutor_app.memory.storage.models import CallRecord, Memory, Message
    from tutor_app.memory.storage.purge import PurgeResult


@runtime_checkable
class MemoryStore(Protocol):
    """Long-term memory of ONE learner profile (tutor_app.memory.storage.store.ProfileMemory), as
    the engine, tutor/turn_memory/session.py (with history and follow-up), call end (lifecycle,
    recovery, merge) and the speech bias list use it. Every method is scoped to `profile`."""

    profile: str
    embedder: Embedder

    def add(self, text: str, *, category: str = "", memory_type: str = "semantic", importance: float = 0.5,
            source: str = "manual", session_id: str = "", meta: dict[str, Any] | None = None,
            emotion: EmotionScore | None = None) -> "Memory":
        """Store one memory verbatim (embedded, committed when this returns)."""
        ...

    def supersede(self, old_id: str, new_id_: str) -> None: ...

    def list(self, include_superseded: bool = True) -> "list[Memory]": ...

    def recall(self, query: str, emotions: Sequence[EmotionScore] | None = None, *, k: int = 3,
               context: str = "") -> "RecallResult":
        """Memories for a turn: .hits, .query_vector, .timings_ms (memory/retrieval/recall.py)."""
        ...

    def index(self) -> "ProfileIndex": ...

    def profile_view(self) -> dict[str, Any]: ...

    def on_forget(self, listener: "Callable[[PurgeResult], None]") -> None:
        """`listener(result)` after each deletion: a live call drops the deleted lines."""
        ...

    # transcript lines and call records (memory/storage/records.py)
    def add_message(self, session_id: str, role: str, text: str, emotion: str = "", *,
                    emotion_score: float | None = None) -> "Message": ...

    def session_messages(self, session_id: str | None,
                         with_vectors: bool = False) -> "builtins.list[tuple[Message, Any]]":
        """(message, vector or None) of one session (None: every session), oldest first."""
        ...

    def record_call(self, session_id: str, started_at: datetime) -> "CallRecord": ...

    def calls(self) -> "builtins.list[CallRecord]": ...

    def update_call(self, call_id: str, *, ended_at: datetime | None = None,
                    report: dict[str, Any] | None = None, extracted: bool | None = None) -> None: ...

    def close(self) -> None: ...
