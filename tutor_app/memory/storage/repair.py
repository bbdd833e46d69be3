"""`tutor-app doctor --repair`: bring each damaged table of the memory database back to
what can still be read (issue #33), and say exactly what was lost.

For each table doctor found damaged (storage/check.py), under the database's writer lock:
1. the whole table folder is first copied aside, `memory.lancedb.damaged-<time>/NAME.lance`
   (nothing is ever deleted silently: what the repair drops stays there);
2. newest manifests that cannot be read are dropped (LanceDB then opens the newest
   version that reads);
3. a version whose rows all read and are sound is kept as it is; else the newest older
   version that reads whole is restored (LanceDB checkout + restore) when it keeps at
   least as many rows as step 4 would; else
4. the table is rebuilt from the rows that read: a damaged vector is computed again from
   its text, and a row without its id, profile or text is written to
   `NAME.rows-set-aside.jsonl` beside the copy.
The in-memory search index is rebuilt by the caller from the repaired table.
"""
from __future__ import annotations

import json
import logging
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor_app.errors import TutorError
from tutor_app.memory.storage import schema as S
from tutor_app.memory.storage.check import TableCheck, read_all, reraise_interrupts, rows_text, sound_rows
from tutor_app.memory.storage.damage import WHAT, is_damage, manifests_newest_first, reason
from tutor_app.storage_errors import full_disk

if TYPE_CHECKING:
    from tutor_app.core.protocols import Embedder

log = logging.getLogger(__name__)

MAX_OLDER_VERSIONS = 50  # older versions tried for one that reads whole


@dataclass
class TableRepair:
    """What the repair did to one table."""

    name: str
    how: str = ""
    kept: int = 0
    lost: int | None = 0  # rows lost; None: unknown (no version of the table could be opened)
    versions_dropped: int = 0  # newest versions whose manifest could not be read
    recomputed: int = 0  # damaged vectors computed again from their text
    set_aside_rows: int = 0  # rows read but unsound, kept in the .jsonl beside the copy
    aside: Path | None = None

    def describe(self) -> str:
        lost = "an unknown number of rows lost" if self.lost is None else f"{self.lost} lost"
        parts = [f"{WHAT.get(self.name, self.name)}: {self.how}: {rows_text(self.kept)} kept, {lost}"]
        if self.versions_dropped:
            parts.append(f"the last {rows_text(self.versions_dropped, 'change')} could not be read and "
                         f"{'is' if self.versions_dropped == 1 else 'are'} lost (rows it added are not counted above)")
        if self.recomputed:
            parts.append(f"{rows_text(self.recomputed, 'damaged vector')} computed again from the text")
        if self.set_aside_rows:
            parts.append(f"{rows_text(self.set_aside_rows, 'unsound row')} written to "
                         f"{self.name}.rows-set-aside.jsonl")
        if self.aside is not None:
            parts.append(f"the damaged table was copied to {self.aside} (remove it when you no longer need it: "
                         "it still holds everything the table held)")
        return "; ".join(parts)


def aside_folder(db_dir: Path) -> Path:
    return db_dir.parent / f"{db_dir.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}"


def repair_database(db_dir: Path, embedder: Embedder, checks: list[TableCheck]) -> list[TableRepair]:
    """Repair every table of `checks` that is damaged; returns what was done to each."""
    import lancedb

    from tutor_app.memory.storage.db import _FileLock

    damaged = [c for c in checks if c.exists and not c.ok]
    if not damaged:
        return []
    aside_root = aside_folder(db_dir)
    lock = _FileLock(db_dir / ".writer.lock")  # the app's single writer: a window or a command waits
    lock.acquire()
    try:
        out = []
        for found in damaged:
            conn = lancedb.connect(str(db_dir))
            out.append(_repair_table(conn, db_dir, found, embedder, aside_root))
        return out
    finally:
        lock.release()


def _repair_table(conn: Any, db_dir: Path, found: TableCheck, embedder: Embedder, aside_root: Path) -> TableRepair:
    name, table_dir = found.name, found.path
    result = TableRepair(name, aside=aside_root / table_dir.name)
    _copy_aside(table_dir, aside_root / table_dir.name, db_dir)
    table, result.versions_dropped = _open_newest_readable(conn, name, table_dir)
    if table is None:  # no manifest reads: start the table again (the copy keeps the old one)
        shutil.rmtree(table_dir)
        conn.create_table(name, schema=S.arrow_schema(name, embedder.dim, embedder.name))
        result.how, result.lost = "no version of it could be opened; it was created again, empty", None
        return result
    rows = int(table.count_rows())
    if result.versions_dropped or not found.opened or found.version != int(table.version):
        data, unreadable, _ = read_all(table, rows)
        unsound, bad = sound_rows(name, data, None) if data is not None else ([], [])
    else:  # the version doctor read: its rows as read then (a cut-off file is read row by row once)
        data, unreadable, unsound, bad = found.data, found.unreadable, found.unsound, found.bad_vectors
    if not (unreadable or unsound or bad):
        result.how, result.kept = f"back to version {table.version}, the newest that reads whole", rows
        return result
    salvage = (data.num_rows - len(unsound)) if data is not None else 0
    older = _newest_whole_version(table, name)
    if older is not None and older[1] >= salvage:
        version, kept = older
        table.checkout(version)
        table.restore()  # a new version with that version's rows
        _drop_history(table)
        result.how, result.kept, result.lost = f"restored to version {version}, the newest that reads whole", kept, \
            max(0, rows - kept)
        return result
    keep = _rebuilt(data, name, unsound, bad, embedder, aside_root) if data is not None else None
    schema = table.schema
    if keep is None:
        keep = schema.empty_table()
    _drop_history(conn.create_table(name, data=keep, schema=schema, mode="overwrite", on_bad_vectors="null"))
    result.how = "rebuilt from the rows that could be read"
    result.kept, result.lost = keep.num_rows, unreadable + len(unsound)
    result.recomputed, result.set_aside_rows = len(bad), len(unsound)
    return result


def _drop_history(table: Any) -> None:
    """Older versions and the files only they use go (the copy set aside keeps them): the
    damaged files are no longer in the table, so no start finds them cut off again."""
    from tutor_app.memory.storage.db import MemoryDB

    MemoryDB._cleanup(table)


def _copy_aside(table_dir: Path, target: Path, db_dir: Path) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(table_dir, target)
    except OSError as exc:
        shutil.rmtree(target, ignore_errors=True)
        if full_disk(exc):
            raise TutorError(f"the disk is full: the damaged table {table_dir} cannot be copied aside before the "
                             f"repair; free some space on that disk and run `tutor-app doctor --repair` "
                             f"again") from None
        raise TutorError(f"cannot copy {table_dir} aside before the repair ({exc.strerror or exc}); "
                         f"nothing was changed") from None


def _open_newest_readable(conn: Any, name: str, table_dir: Path) -> tuple[Any, int]:
    """(the table at its newest version that opens, how many newer manifests were dropped);
    (None, n) when none opens. A dropped manifest is in the copy set aside."""
    dropped = 0
    while True:
        try:
            table = conn.open_table(name)
            table.count_rows()
            return table, dropped
        except BaseException as exc:  # noqa: BLE001 - a Rust panic reaches Python as a BaseException
            reraise_interrupts(exc)
            manifests = manifests_newest_first(table_dir)
            if not manifests:
                return None, dropped  # no history left at all
            if not is_damage(exc):
                raise TutorError(f"cannot repair {table_dir}: {reason(exc)}; a copy of it is set aside and "
                                 f"nothing else was changed") from None
            if len(manifests) == 1:
                return None, dropped
            log.info("memory table %s: manifest %s cannot be read", name, manifests[0].name, exc_info=True)
            manifests[0].unlink()
            dropped += 1


def _newest_whole_version(table: Any, name: str) -> tuple[int, int] | None:
    """(version, rows) of the newest version older than the current one whose rows all read
    and are sound; the table is left at its latest version."""
    current = int(table.version)
    versions = sorted((int(v["version"] if isinstance(v, dict) else v.version) for v in table.list_versions()),
                      reverse=True)
    try:
        for version in [v for v in versions if v < current][:MAX_OLDER_VERSIONS]:
            try:
                table.checkout(version)
                data = table.to_arrow()
                data.validate(full=True)
            except BaseException as exc:  # noqa: BLE001
                reraise_interrupts(exc)
                continue
            unsound, bad = sound_rows(name, data, None)
            if not unsound and not bad:
                return version, data.num_rows
        return None
    finally:
        table.checkout_latest()


def _rebuilt(data: Any, name: str, unsound: list[str], bad: list[str], embedder: Embedder, aside_root: Path) -> Any:
    """The rows to keep: unsound ones written aside, damaged vectors computed again."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    ids = [i if i else f"#{n}" for n, i in enumerate(data.column("id").to_pylist())]
    drop = set(unsound)
    if drop:
        rows = [r for r, i in zip(data.select([c for c in data.column_names if c != "vector"]).to_pylist(), ids)
                if i in drop]
        with open(aside_root / f"{name}.rows-set-aside.jsonl", "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        data = data.filter(pa.array([i not in drop for i in ids]))
        ids = [i for i in ids if i not in drop]
    if not bad or "vector" not in data.column_names:
        return data
    column = data.column("vector").combine_chunks()
    dim = column.type.list_size  # the table's own (another embedder's is computed again at the next open)
    present = np.asarray(column.is_valid()).copy()
    matrix = np.zeros((data.num_rows, dim), dtype=np.float32)
    if present.any():
        matrix[present] = np.asarray(column.filter(column.is_valid()).flatten(), dtype=np.float32).reshape(-1, dim)
    wanted = set(bad)
    fix = [n for n, i in enumerate(ids) if i in wanted]
    roles = data.column("role").to_pylist() if name == S.MESSAGES else None
    texts = data.column("text").to_pylist()
    embed = [n for n in fix if (roles is None or roles[n] == "user") and texts[n] and embedder.dim == dim]
    if embed:
        matrix[embed] = np.asarray(embedder.embed([texts[n] for n in embed]), dtype=np.float32)
    present[fix] = False
    present[embed] = True  # a tutor line has no vector: its damaged one becomes none
    values = pa.array(matrix.ravel(), pa.float32())
    vectors = pa.FixedSizeListArray.from_arrays(values, dim, mask=pc.invert(pa.array(present)))
    return data.set_column(data.column_names.index("vector"), data.schema.field("vector"), vectors)
