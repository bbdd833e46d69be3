"""The LanceDB database behind every profile: tables, schema checks, the single writer,
re-embedding and physical purge. Only store.py uses this; nothing here is profile-aware
except the per-profile index cache, so there is no reading API to misuse.
"""
from __future__ import annotations

import logging
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

from tutor_app.errors import TutorError
from tutor_app.memory.storage import schema as S
from tutor_app.memory.storage.damage import DamagedTableError, damage_line, files_cut_off, is_damage, reason
from tutor_app.storage_errors import full_disk

if TYPE_CHECKING:
    from lancedb.db import DBConnection
    from lancedb.table import Table

    from tutor_app.core.protocols import Embedder
    from tutor_app.memory.storage.index import ProfileIndex

log = logging.getLogger(__name__)

# Asking LanceDB for a table's version lists the table's files (~1-2 ms, every turn). Our
# own writes always re-check; another process's writes are seen within this long.
VERSION_MAX_AGE_S = 0.25
READ_ATTEMPTS = 3
COMPACT_EVERY = 64  # small appends make many fragments; fold them now and then

R = TypeVar("R")


class _FileLock:
    """Inter-process exclusive lock (the GUI and a CLI command may share a data dir)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh: IO[bytes] | None = None
        self._depth = 0

    def acquire(self) -> None:
        self._depth += 1
        if self._depth > 1:
            return
        self._fh = open(self.path, "a+b")
        if sys.platform == "win32":  # pragma: no cover - Windows only; the check mypy understands
            import msvcrt

            self._fh.seek(0)
            msvcrt.locking(self._fh.fileno(), msvcrt.LK_LOCK, 1)
        else:
            import fcntl

            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX)

    def release(self) -> None:
        self._depth -= 1
        if self._depth > 0 or self._fh is None:
            return
        try:
            if sys.platform == "win32":  # pragma: no cover
                import msvcrt

                self._fh.seek(0)
                msvcrt.locking(self._fh.fileno(), msvcrt.LK_UNLCK, 1)
            else:
                import fcntl

                fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
        finally:
            self._fh.close()
            self._fh = None


def _table_names(conn: DBConnection) -> list[str]:
    try:
        res = conn.list_tables()
        names = getattr(res, "tables", res)
        return list(names)
    except AttributeError:  # older lancedb
        return list(conn.table_names())


class MemoryDB:
    def __init__(self, db_dir: Path, embedder: Embedder) -> None:
        self.db_dir = Path(db_dir)
        self.embedder = embedder
        self.dim = int(embedder.dim)
        self._lock = threading.RLock()
        try:
            self.db_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise TutorError(f"cannot create the memory folder {self.db_dir}: {exc.strerror or exc}") from None
        self._flock = _FileLock(self.db_dir / ".writer.lock")
        self._writes = 0
        self._versions: dict[str, tuple[int, float, int]] = {}  # name -> (version, checked at, _writes)
        self.indices: dict[str, ProfileIndex] = {}
        self.forget_listeners: list[tuple[str, Callable[[], Any]]] = []  # (profile, ref to listener)
        self.completed: set[str] = set()  # memory ids whose interrupted deletion was finished at open
        self.footprints: list[Any] = []  # purge.Footprint: learner text kept elsewhere, deleted with it
        self.damaged: dict[str, str] = {}  # table -> why it cannot be read (storage/damage.py)
        self._warned: set[str] = set()
        self.tables: dict[str, Table] = {}
        import lancedb

        try:
            # interval 0: every read sees the latest commit, also from another process.
            self.conn = lancedb.connect(str(self.db_dir), read_consistency_interval=timedelta(0))
            with self.writing():
                existing = set(_table_names(self.conn))
                for name in S.TABLES:
                    try:
                        self.tables[name] = self._open(name, name in existing)
                    except TutorError:
                        raise
                    except Exception as exc:  # noqa: BLE001 - a table that cannot be opened is damaged
                        if full_disk(exc) or name not in existing:
                            raise
                        self.damaged[name] = reason(exc)
                        log.info("memory table %s cannot be opened", name, exc_info=True)
            self._quick_check()
        except TutorError:
            raise
        except Exception as exc:  # noqa: BLE001 - an unreadable database is one clear line
            raise TutorError(f"cannot open the memory database in {self.db_dir}: {type(exc).__name__}: "
                             f"{reason(exc)}") from None

    # -- damage (storage/damage.py) -------------------------------------------------
    def _quick_check(self) -> None:
        """What can be checked at every start: each file of a table ends as a Lance file
        does (4 bytes each). A cut-off file is confirmed with a real read of one column,
        which needs every live file's end: a file no version uses (a write killed half-way)
        is no damage."""
        for name, table in self.tables.items():
            cut = files_cut_off(self.db_dir / f"{name}.lance")
            if not cut:
                continue
            try:
                table.search().select(["id"]).limit(None).to_arrow()
            except Exception as exc:  # noqa: BLE001 - anything but damage is not ours to hide
                if not is_damage(exc):
                    raise
                self.damaged[name] = f"{reason(exc)}; {cut[0].relative_to(self.db_dir)} is cut off"
                log.info("memory table %s is damaged", name, exc_info=True)

    def require(self, name: str) -> None:
        """Refuse to touch a damaged table: DamagedTableError with its one line."""
        why = self.damaged.get(name)
        if why is not None:
            raise DamagedTableError(damage_line(self.db_dir, name, why), name)

    def warn_damaged(self, name: str) -> None:
        """Name a damaged table once per run (a call goes on without it)."""
        with self._lock:  # a call's recovery reads in the background: still one line
            if name not in self.damaged or name in self._warned:
                return
            self._warned.add(name)
        log.warning("%s", damage_line(self.db_dir, name, self.damaged[name]))

    def _guarded(self, name: str, op: Callable[[], R], reading: bool = True) -> R:
        """`op` on table `name`; LanceDB failing to read one of its files marks it damaged."""
        self.require(name)
        try:
            return op()
        except BaseException as exc:
            if not isinstance(exc, Exception) and type(exc).__name__ != "PanicException":
                raise  # KeyboardInterrupt and the like; a Rust panic reaches Python as a BaseException
            if not is_damage(exc, reading):
                raise
            self.damaged[name] = reason(exc)
            log.info("memory table %s is damaged", name, exc_info=True)
            self.require(name)
            raise  # unreachable: require raised

    def columns(self, name: str) -> list[str]:
        """The table's columns (known without opening it)."""
        return list(S.arrow_schema(name, self.dim, self.embedder.name).names)

    # -- opening ------------------------------------------------------------------
    def _open(self, name: str, exists: bool) -> Table:
        want = S.arrow_schema(name, self.dim, self.embedder.name)
        if not exists:
            return self.conn.create_table(name, schema=want, exist_ok=True)
        table = self.conn.open_table(name)
        meta = table.schema.metadata or {}
        try:
            version = int(meta.get(S.META_VERSION, b"0").decode())
        except ValueError:
            version = 0
        if version > S.SCHEMA_VERSION:
            raise S.NewerSchemaError(
                f"the memory database in {self.db_dir} was written by a newer Tutor (schema {version}; "
                f"this version reads up to {S.SCHEMA_VERSION}): update Tutor or use another --data-dir"
            )
        if version < 1 or set(want.names) - set(table.schema.names):
            raise TutorError(f"the memory table '{name}' in {self.db_dir} is not a Tutor table (unknown layout)")
        recorded = meta.get(S.META_EMBEDDER, b"").decode()
        if "vector" in want.names:
            dim = table.schema.field("vector").type.list_size
            if recorded != self.embedder.name or dim != self.dim:
                table = self._reembed(name, table, recorded)
        return table

    def _reembed(self, name: str, table: Table, recorded: str) -> Table:
        """A different embedder: recompute every vector so searches never compare
        vectors from two models (which would be silent garbage)."""
        import numpy as np
        import pyarrow as pa

        log.warning("memory table %s: embedder changed (%s -> %s): re-embedding", name, recorded, self.embedder.name)
        data = table.to_arrow()
        texts = data.column("text").to_pylist()
        if name == S.MESSAGES:
            wanted = [r == "user" for r in data.column("role").to_pylist()]
        else:
            wanted = [True] * len(texts)
        vecs: list[Any] = [None] * len(texts)
        todo = [i for i, w in enumerate(wanted) if w and texts[i]]
        if todo:
            emb = self.embedder.embed([texts[i] for i in todo])
            for j, i in enumerate(todo):
                vecs[i] = np.asarray(emb[j], dtype=np.float32).tolist()
        want = S.arrow_schema(name, self.dim, self.embedder.name)
        cols = {f.name: data.column(f.name) for f in want if f.name != "vector"}
        cols["vector"] = pa.array(vecs, type=want.field("vector").type)
        fresh = pa.table(cols, schema=want)
        # Tutor lines have no vector (null); LanceDB's default would reject them as "bad".
        table = self.conn.create_table(name, data=fresh, schema=want, mode="overwrite", on_bad_vectors="null")
        self._cleanup(table)  # old vectors are garbage now; drop their files
        return table

    # -- writing ------------------------------------------------------------------
    @contextmanager
    def writing(self) -> Iterator[None]:
        """The single writer: a thread lock plus an inter-process file lock."""
        with self._lock:
            self._flock.acquire()
            try:
                yield
            finally:
                self._flock.release()

    def read(self, name: str, query: Callable[[Table], R]) -> R:
        """Run `query(table)` for a read. Reads take no lock, so another process's purge
        can delete the files of the version a read is scanning ("Not found"): the read is
        then simply run again on the new version (measured here: ~1 read in 1,300 while
        another process deleted in a loop)."""
        for attempt in range(READ_ATTEMPTS):
            try:
                return self._guarded(name, lambda: query(self.tables[name]))
            except Exception as exc:  # noqa: BLE001 - only a vanished file is retried
                if attempt == READ_ATTEMPTS - 1 or not _vanished(exc):
                    raise
                log.debug("memory read raced a cleanup in another process; reading again")
        raise AssertionError("unreachable")

    def rows(self, name: str, where: str, columns: list[str] | None = None) -> list[dict[str, Any]]:
        """The rows matching `where` (the caller's SQL filter: always its profile), as dicts."""
        def query(t: Table) -> list[dict[str, Any]]:
            q = t.search().where(where)
            if columns:
                q = q.select(columns)
            rows: list[dict[str, Any]] = q.limit(None).to_arrow().to_pylist()  # pyarrow is untyped
            return rows

        return self.read(name, query)

    def version(self, name: str, max_age: float = 0.0) -> int:
        """The table's version; with `max_age`, a check this recent is reused unless this
        process wrote since (then it is always fresh)."""
        self.require(name)
        now = time.monotonic()
        seen = self._versions.get(name)
        if max_age > 0 and seen is not None and seen[2] == self._writes and now - seen[1] < max_age:
            return seen[0]
        version = int(self.tables[name].version)
        self._versions[name] = (version, now, self._writes)
        return version

    def add(self, name: str, data: Any) -> None:  # a pyarrow Table (pyarrow is untyped)
        with self.writing():
            self._guarded(name, lambda: self.tables[name].add(data), reading=False)
            self._after_write()

    def delete(self, name: str, where: str) -> None:
        with self.writing():
            self._guarded(name, lambda: self.tables[name].delete(where), reading=False)
            self._after_write()

    def update(self, name: str, where: str, values: dict[str, Any]) -> None:
        with self.writing():
            self._guarded(name, lambda: self.tables[name].update(where=where, values=values), reading=False)
            self._after_write()

    def _after_write(self) -> None:
        self._writes += 1
        if self._writes % COMPACT_EVERY == 0:
            for name, t in self.tables.items():
                if name in self.damaged:
                    continue
                try:
                    t.optimize()  # default retention: old versions stay a while (no purge here)
                except Exception:  # noqa: BLE001 - compaction is an optimisation only
                    log.debug("compaction skipped", exc_info=True)

    def purge(self, names: tuple[str, ...] = S.TABLES) -> None:
        """Make deletions physical: rewrite each table from its live rows and drop every
        older version and unreferenced file. Without this, LanceDB keeps deleted rows in
        old fragments (a deletion file only masks them)."""
        with self.writing():
            for name in names:
                self.require(name)  # a damaged table is not rewritten: the deletion waits for the repair
                table = self.tables[name]
                data = self._guarded(name, table.to_arrow)
                # tutor lines keep their null vector (LanceDB would reject it as "bad")
                fresh = self.conn.create_table(name, data=data, schema=table.schema, mode="overwrite",
                                               on_bad_vectors="null")
                self._cleanup(fresh)
                self.tables[name] = fresh
            self._writes += 1  # versions cached before the rewrite are stale

    def notify_forgotten(self, result: Any) -> None:
        for entry in list(self.forget_listeners):
            profile, ref = entry
            listener = ref()  # weak: a finished engine must not be kept alive by the database
            if listener is None:
                self.forget_listeners.remove(entry)
                continue
            if profile != result.profile:  # another profile's deletion is none of its business
                continue
            try:
                listener(result)
            except Exception:  # noqa: BLE001 - the deletion itself is done; never undo it
                log.warning("a deletion listener failed", exc_info=True)

    def compact(self) -> None:
        with self.writing():
            for name, t in self.tables.items():
                if name not in self.damaged:
                    t.optimize()
            self._writes += 1

    @staticmethod
    def _cleanup(table: Table) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "removes every version except the latest": intended
            table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)

    def close(self) -> None:
        self.indices.clear()


def _vanished(exc: BaseException) -> bool:
    """A file of the version being read was removed under us (LanceDB says "Not found")."""
    return isinstance(exc, FileNotFoundError) or "Not found" in str(exc) or "No such file" in str(exc)
