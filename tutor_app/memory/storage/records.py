"""Transcript lines (the messages table) and call records (the calls table) of one
profile: the part of `ProfileMemory` (store.py) that is not memories; it hands these
calls on to a `Records` of its profile."""
from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from tutor_app.errors import TutorError
from tutor_app.memory.storage import schema as S
from tutor_app.memory.storage.damage import DamagedTableError
from tutor_app.memory.storage.models import CallRecord, Message

if TYPE_CHECKING:
    from tutor_app.core.protocols import Embedder
    from tutor_app.memory.storage.db import MemoryDB

log = logging.getLogger("tutor_app.memory.storage.store")


def new_id() -> str:
    return uuid.uuid4().hex[:16]


def emotion_column(label: str, score: float | None) -> str:
    """The messages table's one emotion column holds "label:score" (older rows: "label"),
    so a report rebuilt in a new process keeps the scores without a schema change."""
    return f"{label}:{score:.3f}" if label and score is not None else (label or "")


def parse_emotion_column(value: str) -> tuple[str, float | None]:
    label, sep, score = value.rpartition(":")
    if not sep:
        return value, None
    try:
        return label, float(score)
    except ValueError:
        return value, None


class Records:
    """The messages and calls of one profile: every read and write carries it. A damaged
    table (storage/damage.py) is handed to `degraded`, which names it once (or raises, for
    a strict store): reads give nothing and writes are skipped, so a call goes on
    without its transcript or record rather than stop."""

    def __init__(self, db: MemoryDB, profile: str, embedder: Embedder,
                 degraded: Callable[[DamagedTableError], None]) -> None:
        self._db = db
        self.profile = profile
        self.embedder = embedder
        self._where = f"profile = {S.sql_str(profile)}"
        self._degraded = degraded

    def _rows(self, table: str, where: str | None = None,
              columns: list[str] | None = None) -> list[dict[str, Any]]:
        try:
            return self._db.rows(table, f"{self._where} AND ({where})" if where else self._where, columns)
        except DamagedTableError as exc:
            self._degraded(exc)
            return []

    def _writable(self, table: str) -> bool:
        """False (named once) when `table` is damaged: the write is skipped, never attempted."""
        try:
            self._db.require(table)
        except DamagedTableError as exc:
            self._degraded(exc)
            return False
        return True

    # -- messages (transcript, selective history) --------------------------------------
    def add_message(self, session_id: str, role: str, text: str, emotion: str = "",
                    created_at: datetime | None = None, embed: bool = True,
                    emotion_score: float | None = None) -> Message:
        """Store a transcript line; learner lines are embedded (if embedding fails the
        line is still stored, without a vector)."""
        import pyarrow as pa

        if role not in ("user", "assistant"):
            raise TutorError("role must be 'user' or 'assistant'")
        S.check_text(text, "message text", limit=S.MAX_MESSAGE_BYTES)
        msg = Message(new_id(), str(session_id), role, text, created_at or S.utcnow(), emotion or "",
                      None if emotion_score is None else round(float(emotion_score), 3))
        if not self._writable(S.MESSAGES):
            return msg  # not kept: the transcript table is damaged
        vec = None
        if role == "user" and embed:
            try:
                vec = self.embedder.embed_one(text).tolist()
            except Exception:  # noqa: BLE001 - history then falls back to the recent window
                log.warning("could not embed a message; stored without a vector", exc_info=True)
        schema = self._db.tables[S.MESSAGES].schema
        row = {"id": msg.id, "profile": self.profile, "session_id": msg.session_id, "role": role, "text": text,
               "emotion": emotion_column(msg.emotion, msg.emotion_score), "created_at": msg.created_at, "vector": vec}
        try:
            self._db.add(S.MESSAGES, pa.Table.from_pylist([row], schema=schema))
        except DamagedTableError as exc:  # found damaged by this very write
            self._degraded(exc)
        return msg

    def session_messages(self, session_id: str | None, with_vectors: bool = False) -> list[tuple[Message, Any]]:
        """(message, vector or None) of one session (None: every session), oldest first."""
        cols = ["id", "session_id", "role", "text", "emotion", "created_at"] + (["vector"] if with_vectors else [])
        where = None if session_id is None else f"session_id = {S.sql_str(str(session_id))}"
        rows = self._rows(S.MESSAGES, where, cols)
        out = [(Message(r["id"], r["session_id"], r["role"], r["text"], r["created_at"],
                        *parse_emotion_column(r.get("emotion") or "")), r.get("vector")) for r in rows]
        out.sort(key=lambda mv: (mv[0].created_at, mv[0].id))
        return out

    # -- calls --------------------------------------------------------------------
    def record_call(self, session_id: str, started_at: datetime, ended_at: datetime | None = None,
                    extracted: bool = False, report: dict[str, Any] | None = None) -> CallRecord:
        import json

        import pyarrow as pa

        rec = CallRecord(new_id(), str(session_id), started_at, ended_at, extracted, dict(report or {}))
        if not self._writable(S.CALLS):
            return rec  # not kept: the calls table is damaged
        row = {"id": rec.id, "profile": self.profile, "session_id": rec.session_id, "started_at": started_at,
               "ended_at": ended_at, "extracted": extracted, "report": json.dumps(rec.report, ensure_ascii=False)}
        try:
            self._db.add(S.CALLS, pa.Table.from_pylist([row], schema=self._db.tables[S.CALLS].schema))
        except DamagedTableError as exc:
            self._degraded(exc)
        return rec

    def update_call(self, call_id: str, *, ended_at: datetime | None = None, report: dict[str, Any] | None = None,
                    extracted: bool | None = None) -> None:
        import json

        values: dict[str, Any] = {}
        if ended_at is not None:
            values["ended_at"] = ended_at
        if report is not None:
            values["report"] = json.dumps(report, ensure_ascii=False)
        if extracted is not None:
            # What a call taught cannot be kept in a damaged memories table: the call stays
            # "not extracted", so the start after the repair extracts it again.
            values["extracted"] = bool(extracted) and S.MEMORIES not in self._db.damaged
        if values and self._writable(S.CALLS):
            try:
                self._db.update(S.CALLS, f"{self._where} AND (id = {S.sql_str(call_id)})", values)
            except DamagedTableError as exc:
                self._degraded(exc)

    def calls(self) -> list[CallRecord]:
        import json

        rows = self._rows(S.CALLS)
        out = []
        for r in rows:
            try:
                report = json.loads(r.get("report") or "{}")
            except ValueError:
                report = {}
            out.append(CallRecord(r["id"], r["session_id"], r["started_at"], r["ended_at"],
                                  bool(r["extracted"]), report if isinstance(report, dict) else {}))
        return sorted(out, key=lambda c: (c.started_at or S.utcnow(), c.id))
