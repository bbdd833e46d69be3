"""Value types of the memory package (plain dataclasses, no heavy imports)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tutor_app.memory.storage.schema import iso


@dataclass
class Memory:
    id: str
    profile: str
    text: str
    memory_type: str = "semantic"
    category: str = ""
    emotion_label: str = ""
    emotion_score: float = 0.0
    importance: float = 0.5
    source: str = "manual"
    session_id: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None
    updated_at: datetime | None = None
    accessed_at: datetime | None = None
    superseded_by: str = ""

    @property
    def current(self) -> bool:
        return not self.superseded_by

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; no vector, times as ISO UTC."""
        return {
            "id": self.id, "text": self.text, "memory_type": self.memory_type,
            "category": self.category, "emotion_label": self.emotion_label or None,
            "emotion_score": round(float(self.emotion_score), 4), "importance": round(float(self.importance), 4),
            "source": self.source, "session_id": self.session_id or None, "meta": self.meta,
            "created_at": iso(self.created_at), "updated_at": iso(self.updated_at),
            "accessed_at": iso(self.accessed_at), "superseded_by": self.superseded_by or None,
        }


@dataclass
class MemoryHit:
    """A recalled memory with why it was recalled (semantic | slot:<name> | emotion:<label> |
    lexical | remember). `score` is the relevance used for ranking."""

    memory: Memory
    score: float
    reason: str
    cosine: float = 0.0

    @property
    def id(self) -> str:
        return self.memory.id

    @property
    def text(self) -> str:
        return self.memory.text

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.memory.id, "text": self.memory.text, "score": round(float(self.score), 4),
                "reason": self.reason}


@dataclass
class Message:
    id: str
    session_id: str
    role: str  # "user" | "assistant"
    text: str
    created_at: datetime
    emotion: str = ""  # the learner's strongest emotion label for this line
    emotion_score: float | None = None  # its score (None: a line stored by an older version)


@dataclass
class CallRecord:
    id: str
    session_id: str
    started_at: datetime | None
    ended_at: datetime | None
    extracted: bool = False
    report: dict[str, Any] = field(default_factory=dict)
