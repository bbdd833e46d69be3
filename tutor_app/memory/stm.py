"""Short-term memory of one profile: per session, the recent turns, the memories
recalled for them, the last question and "temporary memos". Nothing here is written
to disk (a temp memo must never reach long-term memory). A session expires after
`ttl_s` without activity (seed 001: 24 h); the clock is injectable for tests.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_TURNS = 40


@dataclass
class SessionState:
    session_id: str
    last_active: float
    turns: deque = field(default_factory=lambda: deque(maxlen=MAX_TURNS))  # (role, text)
    recalled: list[Any] = field(default_factory=list)  # MemoryHit of the last recall kept in context
    memos: list[str] = field(default_factory=list)
    last_question: str = ""
    last_vector: Any = None


class ShortTermMemory:
    def __init__(self, profile: str, ttl_hours: float = 24.0, clock: Callable[[], float] = time.time) -> None:
        self.profile = profile
        self.ttl_s = float(ttl_hours) * 3600.0
        self.clock = clock
        self._sessions: dict[str, SessionState] = {}
        self._lock = threading.Lock()

    def _expired(self, st: SessionState, now: float) -> bool:
        return now - st.last_active >= self.ttl_s

    def expire(self) -> list[str]:
        """Drop sessions idle for the TTL; returns their ids."""
        now = self.clock()
        with self._lock:
            gone = [sid for sid, st in self._sessions.items() if self._expired(st, now)]
            for sid in gone:
                del self._sessions[sid]
        return gone

    def peek(self, session_id: str) -> SessionState | None:
        """The live session or None (expired sessions are dropped, activity not refreshed)."""
        now = self.clock()
        with self._lock:
            st = self._sessions.get(session_id)
            if st is not None and self._expired(st, now):
                del self._sessions[session_id]
                return None
            return st

    def session(self, session_id: str) -> SessionState:
        """The session, created (or re-created after expiry) and marked active."""
        now = self.clock()
        with self._lock:
            st = self._sessions.get(session_id)
            if st is None or self._expired(st, now):
                st = self._sessions[session_id] = SessionState(session_id, now)
            st.last_active = now
            return st

    def add_turn(self, session_id: str, role: str, text: str) -> None:
        self.session(session_id).turns.append((role, text))

    def recent(self, session_id: str, n: int = 10) -> list[tuple[str, str]]:
        st = self.peek(session_id)
        return list(st.turns)[-n:] if st else []

    def add_memo(self, session_id: str, memo: str) -> None:
        self.session(session_id).memos.append(memo)

    def memos(self, session_id: str) -> list[str]:
        st = self.peek(session_id)
        return list(st.memos) if st else []

    def set_recalled(self, session_id: str, hits: list[Any]) -> None:
        self.session(session_id).recalled = list(hits)

    def recalled(self, session_id: str) -> list[Any]:
        st = self.peek(session_id)
        return list(st.recalled) if st else []

    def clear_recalled(self, session_id: str) -> None:
        st = self.peek(session_id)
        if st:
            st.recalled = []

    def set_question(self, session_id: str, question: str, vector: Any = None) -> None:
        st = self.session(session_id)
        st.last_question, st.last_vector = question, vector

    def forget(self, session_id: str | None = None) -> None:
        """Drop one session, or all (used by "delete all")."""
        with self._lock:
            if session_id is None:
                self._sessions.clear()
            else:
                self._sessions.pop(session_id, None)

    def __contains__(self, session_id: str) -> bool:
        return self.peek(session_id) is not None
