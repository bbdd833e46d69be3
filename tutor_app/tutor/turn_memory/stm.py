"""Short-term memory (seed 001's Redis STM, in process): per call/session, the recent
turns, the memories recalled for them, the last question and "temporary memos".
Nothing here is written to disk: a temp memo never reaches long-term memory.

A session expires after `ttl` seconds without activity (seed 001: 24 h); expiry is
lazy and observable (`expired`, `ShortTermStore.expire()`), with an injectable clock.
`ShortTermMemory` is one session (what a call holds); `ShortTermStore` keeps the
sessions of one profile by id.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

MAX_TURNS = 40
DAY_S = 24 * 3600.0


class ShortTermMemory:
    def __init__(self, ttl_seconds: float = DAY_S, clock: Callable[[], float] = time.time,
                 session_id: str = "") -> None:
        self.session_id = session_id
        self.ttl_seconds = float(ttl_seconds)
        self.clock = clock
        self._lock = threading.Lock()
        self._reset()
        self.last_active = clock()

    def _reset(self) -> None:
        self._turns: deque[tuple[str, str]] = deque(maxlen=MAX_TURNS)  # (learner text, tutor reply)
        self._notes: list[str] = []
        self._recalled: list[Any] = []
        self.last_question = ""
        self.last_vector: Any = None

    # -- expiry ---------------------------------------------------------------------
    @property
    def expired(self) -> bool:
        return self.clock() - self.last_active >= self.ttl_seconds

    def _live(self) -> None:
        """Drop everything once the TTL has passed (called before every read/write)."""
        if self.expired:
            self._reset()

    def touch(self) -> None:
        with self._lock:
            self._live()
            self.last_active = self.clock()

    # -- contents ---------------------------------------------------------------------
    def add_turn(self, user_text: str, reply: str = "") -> None:
        with self._lock:
            self._live()
            self._turns.append((user_text, reply))
            self.last_active = self.clock()

    def set_reply(self, reply: str) -> None:
        """Attach the tutor's reply to the last learner turn (or add a reply-only turn)."""
        with self._lock:
            self._live()
            if self._turns and not self._turns[-1][1]:
                user, _ = self._turns.pop()
                self._turns.append((user, reply))
            else:
                self._turns.append(("", reply))
            self.last_active = self.clock()

    def turns(self, n: int | None = None) -> list[tuple[str, str]]:
        with self._lock:
            self._live()
            items = list(self._turns)
        return items[-n:] if n else items

    def add_note(self, text: str) -> None:
        """A temporary memo ("temp memo: ...", "just for this call ...")."""
        with self._lock:
            self._live()
            self._notes.append(text)
            self.last_active = self.clock()

    def notes(self) -> list[str]:
        with self._lock:
            self._live()
            return list(self._notes)

    def set_recalled(self, hits: list[Any]) -> None:
        with self._lock:
            self._live()
            self._recalled = list(hits)
            self.last_active = self.clock()

    def recalled(self) -> list[Any]:
        with self._lock:
            self._live()
            return list(self._recalled)

    def set_question(self, question: str, vector: Any = None) -> None:
        with self._lock:
            self._live()
            self.last_question, self.last_vector = question, vector
            self.last_active = self.clock()

    def clear(self) -> None:
        with self._lock:
            self._reset()

    def forget(self, texts: set[str], memory_ids: set[str]) -> None:
        """A deletion during the session: its lines and memories must not reach the next prompt."""
        with self._lock:
            self._turns = deque(((u, r) for u, r in self._turns if u not in texts and r not in texts),
                                maxlen=MAX_TURNS)
            self._recalled = [h for h in self._recalled if getattr(h, "id", None) not in memory_ids
                              and getattr(h, "text", None) not in texts]
            if self.last_question in texts:
                self.last_question, self.last_vector = "", None


class ShortTermStore:
    """The live sessions of one profile, by id."""

    def __init__(self, profile: str, ttl_hours: float = 24.0, clock: Callable[[], float] = time.time) -> None:
        self.profile = profile
        self.ttl_seconds = float(ttl_hours) * 3600.0
        self.clock = clock
        self._sessions: dict[str, ShortTermMemory] = {}
        self._lock = threading.Lock()

    def session(self, session_id: str) -> ShortTermMemory:
        """The session (a fresh one after expiry), marked active."""
        with self._lock:
            st = self._sessions.get(session_id)
            if st is None or st.expired:
                st = self._sessions[session_id] = ShortTermMemory(self.ttl_seconds, self.clock, session_id)
        st.touch()
        return st

    def peek(self, session_id: str) -> ShortTermMemory | None:
        """The live session or None; does not count as activity."""
        with self._lock:
            st = self._sessions.get(session_id)
            if st is not None and st.expired:
                del self._sessions[session_id]
                return None
            return st

    def expire(self) -> list[str]:
        """Drop sessions idle for the TTL; returns their ids."""
        with self._lock:
            gone = [sid for sid, st in self._sessions.items() if st.expired]
            for sid in gone:
                del self._sessions[sid]
        return gone

    def forget(self, session_id: str | None = None) -> None:
        with self._lock:
            if session_id is None:
                self._sessions.clear()
            else:
                self._sessions.pop(session_id, None)

    def forget_deleted(self, result: Any) -> None:
        """Apply a deletion (memory/purge.PurgeResult) to every live session."""
        if result.everything:
            self.forget()
            return
        with self._lock:
            sessions = list(self._sessions.values())
        for st in sessions:
            st.forget(result.texts, result.memory_ids)

    def __contains__(self, session_id: str) -> bool:
        return self.peek(session_id) is not None
