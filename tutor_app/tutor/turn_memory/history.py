"""Selective history (seed 004): for the prompt, the most relevant older learner
messages of the session (cosine > 0.3, top 5, each with the tutor reply that followed)
before the last 10 messages. If embedding fails, only the recent window."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tutor_app.memory.storage.models import Message

if TYPE_CHECKING:
    from tutor_app.memory.ports import MemoryStore

log = logging.getLogger(__name__)

RECENT = 10
TOP_K = 5
MIN_SIMILARITY = 0.3  # seed 004; on MiniLM this keeps same-topic lines and drops chit-chat
SCAN_LIMIT = 200  # newest older learner messages considered (seed: 100)


@dataclass
class SelectiveHistory:
    relevant: list[Message] = field(default_factory=list)  # chronological, user + following reply
    recent: list[Message] = field(default_factory=list)
    fallback: bool = False  # True when embedding failed and only the recent window is used

    def messages(self) -> list[Message]:
        return self.relevant + self.recent


def selective_history(store: "MemoryStore", session_id: str, query: str, query_vector: Any = None,
                      recent: int = RECENT, top_k: int = TOP_K, min_similarity: float = MIN_SIMILARITY
                      ) -> SelectiveHistory:
    import numpy as np

    rows = store.session_messages(session_id, with_vectors=True)
    msgs = [m for m, _ in rows]
    window = msgs[-recent:] if recent > 0 else []
    older = rows[: max(0, len(rows) - len(window))]
    if not older:
        return SelectiveHistory([], window)
    try:
        qv = query_vector if query_vector is not None else store.embedder.embed_one(query)
        qv = np.asarray(qv, dtype=np.float32)
    except Exception:  # noqa: BLE001 - seed 004 fallback: recent window only
        log.warning("history: embedding failed; using the recent window only", exc_info=True)
        return SelectiveHistory([], window, fallback=True)
    scored = []
    candidates = [(i, m, v) for i, (m, v) in enumerate(older) if m.role == "user" and v is not None]
    for i, _m, v in candidates[-SCAN_LIMIT:]:
        sim = float(np.asarray(v, dtype=np.float32) @ qv)
        if sim > min_similarity:
            scored.append((sim, i))
    scored.sort(reverse=True)
    chosen = sorted(i for _, i in scored[:top_k])
    relevant: list[Message] = []
    for i in chosen:
        relevant.append(older[i][0])
        nxt = older[i + 1][0] if i + 1 < len(older) else None
        if nxt is not None and nxt.role == "assistant":
            relevant.append(nxt)
    return SelectiveHistory(relevant, window)
