"""Long-term memory of ONE learner profile on LanceDB.

`open_store(db_dir, embedder, profile)` returns a `ProfileMemory`: every read and write
goes through it and carries its profile in the filter, so there is no call that can
read another profile's rows by accident. Writes go through the database's single
writer (db.MemoryDB.writing) and are committed when the call returns.
"""
from __future__ import annotations

import builtins
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from tutor_app.errors import TutorError
from tutor_app.memory.profile.view import profile_view
from tutor_app.memory.retrieval import recall
from tutor_app.memory.storage import purge
from tutor_app.memory.storage import schema as S
from tutor_app.memory.storage.damage import DamagedTableError
from tutor_app.memory.storage.db import VERSION_MAX_AGE_S, MemoryDB
from tutor_app.memory.storage.index import IndexRow, ProfileIndex
from tutor_app.memory.storage.models import CallRecord, Memory, MemoryHit, Message
from tutor_app.memory.storage.records import Records, new_id

if TYPE_CHECKING:
    import numpy as np

    from tutor_app.core.protocols import Embedder
    from tutor_app.core.types import EmotionScore

log = logging.getLogger(__name__)

_INDEX_COLUMNS = ["id", "text", "category", "emotion_label", "created_at", "importance", "superseded_by",
                  "memory_type", "source", "session_id", "meta", "emotion_score", "vector"]
TOUCH_DELAY_S = 2.0  # accessed_at updates are batched off the turn's critical path
# The embedder's vectors have length 1 (a test's random normals ~20); random bytes inside a
# data file make ~1e30 or NaN, which would rank first in every search.
MAX_SANE_NORM = 100.0


def _to_memory(row: dict[str, Any]) -> Memory:
    return Memory(
        id=row["id"], profile=row["profile"], text=row["text"], memory_type=row.get("memory_type") or "semantic",
        category=row.get("category") or "", emotion_label=row.get("emotion_label") or "",
        emotion_score=float(row.get("emotion_score") or 0.0), importance=float(row.get("importance") or 0.0),
        source=row.get("source") or "", session_id=row.get("session_id") or "",
        meta=S.load_meta(row.get("meta")), created_at=row.get("created_at"), updated_at=row.get("updated_at"),
        accessed_at=row.get("accessed_at"), superseded_by=row.get("superseded_by") or "",
    )


class ProfileMemory:
    """The memory of one profile (MemoryStore protocol); its transcripts and calls are
    kept by records.py, which the methods at the end hand on to.

    A damaged table (storage/damage.py) is named once and read as empty, so a call goes
    on without it; a command that shows memories sets `degrade_reads` False and ends in
    the damage's one line instead of an empty list. A write into it is always refused."""

    def __init__(self, db: MemoryDB, profile: str) -> None:
        self._db = db
        self.profile = S.check_profile(profile)
        self.embedder = db.embedder
        self._where = f"profile = {S.sql_str(self.profile)}"
        self.degrade_reads = True
        self._records = Records(db, self.profile, self.embedder, self._degraded)
        self._pending_touch: dict[str, datetime] = {}
        self._touch_timer: threading.Timer | None = None
        self._closed = False

    # -- helpers ------------------------------------------------------------------
    def _and(self, clause: str) -> str:
        return f"{self._where} AND ({clause})"

    def _rows(self, table: str, where: str | None = None,
              columns: list[str] | None = None) -> list[dict[str, Any]]:
        try:
            return self._db.rows(table, self._and(where) if where else self._where, columns)
        except DamagedTableError as exc:
            self._degraded(exc)
            return []

    def _degraded(self, exc: DamagedTableError) -> None:
        """A read of a damaged table: named once and read as empty, or raised (strict)."""
        if not self.degrade_reads:
            raise exc
        self._db.warn_damaged(exc.table)

    def _write(self, op: Callable[[], object], patch: Callable[[ProfileIndex], object] | None = None) -> None:
        """Run a write on the memories table and keep in-process indices in step."""
        db = self._db
        with db.writing():
            before = db.version(S.MEMORIES)
            op()
            after = db.version(S.MEMORIES)
            for prof in list(db.indices):
                idx = db.indices[prof]
                if idx.version != before:
                    del db.indices[prof]  # someone else wrote in between: rebuild on next read
                    continue
                if prof == self.profile and patch is not None:
                    with idx.lock:
                        patch(idx)
                idx.version = after

    def index(self) -> ProfileIndex:
        """This profile's search index, rebuilt only when the table moved under us."""
        db = self._db
        try:
            version = db.version(S.MEMORIES, max_age=VERSION_MAX_AGE_S)
            idx = db.indices.get(self.profile)
            if idx is not None and idx.version == version:
                return idx
            with db.writing():  # a consistent snapshot; the index is built outside the lock
                version = db.version(S.MEMORIES)
                data = db.read(S.MEMORIES, lambda t: t.search().where(self._where).select(_INDEX_COLUMNS)
                               .limit(None).to_arrow())
        except DamagedTableError as exc:
            self._degraded(exc)
            return ProfileIndex(db.dim)  # the call goes on without its memories
        import numpy as np

        idx = ProfileIndex(db.dim)
        n = data.num_rows
        if n:
            vec_col = data.column("vector").combine_chunks()
            valid = np.asarray(vec_col.is_valid())
            vecs = np.zeros((n, db.dim), dtype=np.float32)
            if valid.any():
                flat = vec_col.filter(vec_col.is_valid()).flatten()
                vecs[valid] = np.asarray(flat, dtype=np.float32).reshape(-1, db.dim)
                with np.errstate(all="ignore"):
                    sane = np.isfinite(vecs).all(axis=1) & (np.linalg.norm(vecs, axis=1) <= MAX_SANE_NORM)
                if not sane.all():  # a damaged vector (doctor finds it): searched by its words only
                    log.warning("%d memories have a damaged vector (searched by their words only): "
                                "run `tutor-app doctor --repair`", int((~sane).sum()))
                    vecs[~sane] = 0.0
                    valid = valid & sane
            created = data.column("created_at").cast("int64").to_numpy(zero_copy_only=False) / 1e6
            col = {name: data.column(name).to_pylist() for name in _INDEX_COLUMNS
                   if name not in ("vector", "created_at")}
            rows = [
                IndexRow(i, t or "", c or "", e or "", float(cr), float(imp or 0.0), bool(sb), mt or "semantic",
                         src or "", sid or "", meta or "", float(es or 0.0))
                for i, t, c, e, cr, imp, sb, mt, src, sid, meta, es in zip(
                    col["id"], col["text"], col["category"], col["emotion_label"], created, col["importance"],
                    col["superseded_by"], col["memory_type"], col["source"], col["session_id"], col["meta"],
                    col["emotion_score"])
            ]
            idx.add(rows, vecs)
            for i, ok in enumerate(valid.tolist()):
                idx.has_vec[i] = ok
        idx.version = version
        with db.writing():
            if db.version(S.MEMORIES) == version:  # nobody wrote while we built
                db.indices[self.profile] = idx
        return idx

    def warm_up(self) -> None:
        """Build the search index (and the lexical one) and load the embedder now, e.g.
        in the background when a call starts, so the first turn does not pay for it."""
        self.index().lexical  # noqa: B018 - building it is the point
        warm = getattr(self.embedder, "warm_up", None)
        if callable(warm):
            warm()

    # -- memories: write ------------------------------------------------------------
    def add(self, text: str, *, category: str = "", memory_type: str = "semantic", importance: float = 0.5,
            source: str = "manual", session_id: str = "", meta: dict[str, Any] | None = None,
            emotion: "EmotionScore | None" = None, created_at: Any = None,
            vector: "np.ndarray | None" = None) -> Memory:
        item = {"text": text, "category": category, "memory_type": memory_type, "importance": importance,
                "source": source, "session_id": session_id, "meta": meta, "created_at": created_at}
        if emotion is not None:
            item["emotion_label"], item["emotion_score"] = emotion.label, float(emotion.score)
        return self.add_many([item], vectors=None if vector is None else vector[None, :])[0]

    def add_many(self, items: Sequence[dict[str, Any]], vectors: "np.ndarray | None" = None,
                 validate_only: bool = False) -> list[Memory]:
        """Validate everything first, then one batched embed and one commit: all or nothing."""
        import numpy as np
        import pyarrow as pa

        now = S.utcnow()
        mems: list[Memory] = []
        for n, it in enumerate(items, 1):
            where = f"item {n}: " if len(items) > 1 else ""
            try:
                source = it.get("source") or "manual"
                if source not in S.SOURCES:
                    raise TutorError(f"source must be one of {', '.join(S.SOURCES)}")
                created = S.parse_time(it["created_at"]) if it.get("created_at") not in (None, "") else now
                mems.append(Memory(
                    id=it.get("id") or new_id(), profile=self.profile, text=S.check_text(it.get("text")),
                    memory_type=S.check_memory_type(it.get("memory_type") or "semantic"),
                    category=S.check_category(it.get("category")),
                    emotion_label=str(it.get("emotion_label") or ""),
                    emotion_score=float(it.get("emotion_score") or 0.0),
                    importance=S.check_importance(0.5 if it.get("importance") is None else it["importance"]),
                    source=source, session_id=str(it.get("session_id") or ""),
                    meta=S.load_meta(S.dump_meta(it.get("meta"))), created_at=created, updated_at=now,
                    accessed_at=None, superseded_by=str(it.get("superseded_by") or ""),
                ))
            except TutorError as exc:
                raise TutorError(f"{where}{exc}") from None
        if validate_only or not mems:
            return mems
        self._db.require(S.MEMORIES)  # refused before the embedding work
        if vectors is None:
            vectors = self.embedder.embed([m.text for m in mems])
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(mems), self._db.dim)
        schema = self._db.tables[S.MEMORIES].schema
        cols: dict[str, Any] = {f.name: [] for f in schema}  # lists, then the vector array
        for m in mems:
            for key, value in (("id", m.id), ("profile", m.profile), ("text", m.text),
                               ("memory_type", m.memory_type), ("category", m.category),
                               ("emotion_label", m.emotion_label), ("emotion_score", m.emotion_score),
                               ("importance", m.importance), ("source", m.source), ("session_id", m.session_id),
                               ("meta", S.dump_meta(m.meta)), ("created_at", m.created_at),
                               ("updated_at", m.updated_at), ("accessed_at", None),
                               ("superseded_by", m.superseded_by)):
                cols[key].append(value)
        cols["vector"] = pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel(), pa.float32()), self._db.dim)
        data = pa.table({k: (v if k == "vector" else pa.array(v, schema.field(k).type)) for k, v in cols.items()},
                        schema=schema)

        def patch(idx: ProfileIndex) -> None:
            idx.add([IndexRow(m.id, m.text, m.category, m.emotion_label, cast(datetime, m.created_at).timestamp(),
                              m.importance, bool(m.superseded_by), m.memory_type, m.source, m.session_id,
                              S.dump_meta(m.meta), m.emotion_score) for m in mems], vectors)

        self._write(lambda: self._db.add(S.MEMORIES, data), patch)
        return mems

    def supersede(self, old_id: str, new_id_: str) -> None:
        """Keep `old_id` as history of `new_id_` (merge rule: never silently lost)."""
        now = S.utcnow()
        self._write(lambda: self._db.update(S.MEMORIES, self._and(f"id = {S.sql_str(old_id)}"),
                                            {"superseded_by": new_id_, "updated_at": now}),
                    lambda idx: idx.mark_superseded(old_id))

    def touch(self, ids: Iterable[str]) -> None:
        """Record recall time; written in a batch a moment later (or on flush/close)."""
        now = S.utcnow()
        for i in ids:
            self._pending_touch[i] = now
        if self._pending_touch and self._touch_timer is None and not self._closed:
            self._touch_timer = threading.Timer(TOUCH_DELAY_S, self.flush)
            self._touch_timer.daemon = True
            self._touch_timer.start()

    def flush(self) -> None:
        pending, self._pending_touch = self._pending_touch, {}
        self._touch_timer = None
        if not pending:
            return
        latest = max(pending.values())
        ids = ", ".join(S.sql_str(i) for i in pending)
        try:
            self._write(lambda: self._db.update(S.MEMORIES, self._and(f"id IN ({ids})"), {"accessed_at": latest}))
        except Exception:  # noqa: BLE001 - a lost accessed_at must never break a turn
            log.warning("could not record memory access times", exc_info=True)

    def delete(self, mem_id: str) -> Memory | None:
        """Delete one memory for real, with the exchange it came from (the learner's line
        and the tutor's reply), quotes of it in call reports and log lines, and every old
        table version (storage/purge.py). An id that is hidden but not yet erased (an
        interrupted deletion) is erased now; then None is returned."""
        found = self.get(mem_id)
        if found is None:
            if mem_id in self._db.completed or purge.in_old_versions(self, mem_id):
                self.erase_hidden()
                return None
            raise TutorError(f"no memory with id '{mem_id}' in profile '{self.profile}'")
        self._pending_touch.pop(mem_id, None)
        purge.run(self, purge.PurgeJob(self.profile, "memory", [mem_id], purge.exchanges_of(self, [found])))
        return found

    def edit(self, mem_id: str, text: str) -> Memory:
        """The learner corrects a memory: the corrected text is stored as their own words
        (same category, type, importance) and the wrong text is deleted for real."""
        old = self.get(mem_id)
        if old is None:
            raise TutorError(f"no memory with id '{mem_id}' in profile '{self.profile}'")
        new = self.add(text, category=old.category, memory_type=old.memory_type, importance=old.importance,
                       source="manual", session_id=old.session_id, meta=old.meta)
        self.delete(mem_id)
        return new

    def for_profile(self, profile: str) -> "ProfileMemory":
        """Another profile on the same open database (one writer per process)."""
        return ProfileMemory(self._db, profile)

    def delete_many(self, ids: Sequence[str]) -> int:
        """Housekeeping (cleanup): the memories only, erased for real."""
        ids = list(dict.fromkeys(i for i in ids if i))
        if ids:
            for i in ids:
                self._pending_touch.pop(i, None)
            purge.run(self, purge.PurgeJob(self.profile, "memory", ids, []))
        return len(ids)

    def clear(self) -> int:
        """Forget everything of this profile for real: memories, transcripts, call reports
        and the log lines that name them."""
        n = self.count()
        self._pending_touch.clear()
        purge.run(self, purge.PurgeJob(self.profile, "clear"))
        return n

    def erase_hidden(self) -> None:
        """Finish interrupted deletions and erase whatever is deleted but still on disk."""
        purge.replay(self)
        purge.complete(self, purge.PurgeJob("", "tables"))

    def on_forget(self, listener: Callable[[Any], None]) -> None:
        """`listener(PurgeResult)` after each deletion: a running session drops the deleted
        lines from the history it keeps in memory."""
        import weakref

        ref = weakref.WeakMethod(listener) if hasattr(listener, "__self__") else (lambda: listener)
        self._db.forget_listeners.append((self.profile, ref))

    # -- memories: read -------------------------------------------------------------
    def get(self, mem_id: str) -> Memory | None:
        rows = self._rows(S.MEMORIES, f"id = {S.sql_str(mem_id)}")
        return _to_memory(rows[0]) if rows else None

    def get_many(self, ids: Sequence[str]) -> dict[str, Memory]:
        if not ids:
            return {}
        lit = ", ".join(S.sql_str(i) for i in ids)
        cols = [c for c in self._db.columns(S.MEMORIES) if c != "vector"]
        return {r["id"]: _to_memory(r) for r in self._rows(S.MEMORIES, f"id IN ({lit})", cols)}

    def list(self, include_superseded: bool = True) -> list[Memory]:
        """Oldest first."""
        cols = [c for c in self._db.columns(S.MEMORIES) if c != "vector"]
        mems = [_to_memory(r) for r in self._rows(S.MEMORIES, None, cols)]
        if not include_superseded:
            mems = [m for m in mems if m.current]
        return sorted(mems, key=lambda m: m.created_at or S.utcnow())  # stable: insertion order on ties

    def count(self) -> int:
        try:
            return int(self._db.read(S.MEMORIES, lambda t: t.count_rows(self._where)))
        except DamagedTableError as exc:
            self._degraded(exc)
            return 0

    def search(self, query: str, k: int = 5) -> builtins.list[MemoryHit]:  # `list` is a method here
        """Hybrid (dense + BM25) search over the calibrated threshold, best first."""
        return recall.search(self.index(), self.embedder, self.profile, query, k=k)

    def recall(self, query: str, emotions: "Sequence[EmotionScore] | None" = None, *, k: int = 3,
               now: datetime | None = None, context: str = "", touch: bool = True,
               query_vector: "np.ndarray | None" = None, gate: bool = True) -> recall.RecallResult:
        """Memories for a turn (memory/retrieval/recall.py); `touch`: record that they were recalled."""
        result = recall.recall(self.index(), self.embedder, self.profile, query, emotions=emotions, k=k, now=now,
                               context=context, query_vector=query_vector, gate=gate)
        if touch and result.hits:
            self.touch([h.id for h in result.hits])
        return result

    def profile_view(self) -> dict[str, Any]:
        return profile_view(self.list())

    def profiles(self) -> builtins.list[str]:
        """Names of the profiles in this database (names only, never their data): for the
        profile picker."""
        names: set[str] = set()
        for name in S.TABLES:
            try:
                rows = self._db.read(name, lambda t: t.search().select(["profile"]).limit(None).to_arrow())
            except DamagedTableError as exc:
                self._degraded(exc)
                continue
            names.update(p for p in rows.column("profile").to_pylist() if p)
        return sorted(names | {self.profile}, key=str.lower)

    # -- transcripts and calls (records.py) ---------------------------------------------
    def add_message(self, session_id: str, role: str, text: str, emotion: str = "",
                    created_at: datetime | None = None, embed: bool = True,
                    emotion_score: float | None = None) -> Message:
        return self._records.add_message(session_id, role, text, emotion, created_at, embed, emotion_score)

    def session_messages(self, session_id: str | None,
                         with_vectors: bool = False) -> builtins.list[tuple[Message, Any]]:
        return self._records.session_messages(session_id, with_vectors)

    def record_call(self, session_id: str, started_at: datetime, ended_at: datetime | None = None,
                    extracted: bool = False, report: dict[str, Any] | None = None) -> CallRecord:
        return self._records.record_call(session_id, started_at, ended_at, extracted, report)

    def update_call(self, call_id: str, *, ended_at: datetime | None = None, report: dict[str, Any] | None = None,
                    extracted: bool | None = None) -> None:
        self._records.update_call(call_id, ended_at=ended_at, report=report, extracted=extracted)

    def calls(self) -> builtins.list[CallRecord]:
        return self._records.calls()

    # -- lifecycle -------------------------------------------------------------------
    def close(self) -> None:
        if self._closed:
            return
        timer = self._touch_timer
        if timer is not None:
            timer.cancel()
        self.flush()
        self._closed = True


def open_store(db_dir: Path, embedder: Embedder, profile: str, footprints: Sequence[Any] = ()) -> ProfileMemory:
    """Open (or create) the memory database in `db_dir` and bind it to `profile`; a
    deletion an earlier run did not finish is finished first. `footprints`: the learner's
    text kept elsewhere (purge.Footprint), which every deletion reaches too."""
    db = MemoryDB(Path(db_dir), embedder)
    db.footprints = list(footprints)
    store = ProfileMemory(db, profile)
    for done in purge.replay(store):
        store._db.completed |= done.memory_ids
    return store
