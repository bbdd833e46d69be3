"""`tutor-app doctor`'s look at the memory database (issue #33): every table opens, every
row reads, and every vector is finite, of the embedder's size and of unit length (the
embedder's vectors are L2-normalised: random bytes inside a data file land mostly in the
vectors, which are most of its bytes, and show there).

Read-only: nothing is changed or locked (storage/repair.py does the repairing). A table
that cannot be read whole is read row by row (bisecting batches that fail), so the report
says how many rows are lost, not only that something is.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tutor_app.memory.storage import schema as S
from tutor_app.memory.storage.damage import WHAT, files_cut_off, is_damage, manifests_newest_first, reason

BATCH = 256  # rows read at once when a table cannot be read whole
UNIT_TOLERANCE = 1e-2  # |norm - 1| of a sound vector is ~1e-7; garbage is far off


@dataclass
class TableCheck:
    """What doctor found in one table."""

    name: str
    path: Path
    exists: bool = True
    opened: bool = True
    version: int = 0
    rows: int = 0  # rows the newest readable version holds
    unreadable: int = 0  # rows that cannot be read at all
    unsound: list[str] = field(default_factory=list)  # ids of rows read with a missing id/profile/text
    bad_vectors: list[str] = field(default_factory=list)  # ids of rows whose vector is damaged (text intact)
    cut_off: list[str] = field(default_factory=list)  # files that do not end as a Lance file
    error: str = ""  # LanceDB's reason when the table could not be opened or read
    older_versions: int = 0  # manifests on disk besides the newest (what a repair can go back to)
    data: Any = field(default=None, repr=False)  # the rows read (a pyarrow Table): the repair starts from them
    other_size: int = 0  # vectors of another embedder's size: the next start computes them again (not damage)

    @property
    def ok(self) -> bool:
        return self.opened and not (self.unreadable or self.unsound or self.bad_vectors or self.error)

    def describe(self) -> str:
        """One line: what is wrong (or how many rows are fine), naming the table's folder."""
        what = WHAT.get(self.name, self.name)
        if not self.exists:
            return f"{what}: not created yet"
        if self.ok:
            again = (f"; its vectors have {self.other_size} numbers, another embedder's: the next start computes "
                     "them again" if self.other_size else "")
            return f"{what}: {rows_text(self.rows)} read, sound (version {self.version}){again}"
        if not self.opened:
            older = (f"; {rows_text(self.older_versions, 'older version')} on disk" if self.older_versions
                     else "; no older version is on disk")
            return f"{what} in {self.path} cannot be opened ({self.error}){older}"
        parts = []
        if self.unreadable:
            parts.append(f"{self.unreadable} of {rows_text(self.rows)} cannot be read ({self.error})")
        elif self.error:
            parts.append(f"the table cannot be read ({self.error})")
        if self.bad_vectors:
            parts.append(f"{rows_text(len(self.bad_vectors))} with a damaged vector (the text reads)")
        if self.unsound:
            parts.append(f"{rows_text(len(self.unsound))} without an id, profile or text")
        if self.cut_off:
            parts.append(f"cut-off files: {', '.join(self.cut_off[:3])}" + (" ..." if len(self.cut_off) > 3 else ""))
        return f"{what} in {self.path}: " + "; ".join(parts)


def rows_text(n: int, word: str = "row") -> str:
    """"1 row", "3 rows"."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def check_database(db_dir: Path, dim: int | None) -> list[TableCheck]:
    """Check every table of the database in `db_dir` (vectors of `dim` numbers; None: the
    table's own size)."""
    import lancedb

    conn = lancedb.connect(str(db_dir))
    return [check_table(conn, Path(db_dir), name, dim) for name in S.TABLES]


def check_table(conn: Any, db_dir: Path, name: str, dim: int | None) -> TableCheck:
    path = db_dir / f"{name}.lance"
    found = TableCheck(name, path)
    if not path.is_dir():
        found.exists = False
        return found
    found.cut_off = [str(p.relative_to(db_dir)) for p in files_cut_off(path)]
    found.older_versions = max(0, len(manifests_newest_first(path)) - 1)
    try:
        table = conn.open_table(name)
        found.version = int(table.version)
        found.rows = int(table.count_rows())  # from the manifest: no data read
    except BaseException as exc:  # noqa: BLE001 - a Rust panic reaches Python as a BaseException
        reraise_interrupts(exc)
        found.opened, found.error = False, reason(exc)
        return found
    data, lost, error = read_all(table, found.rows)
    found.unreadable, found.error, found.data = lost, error, data
    if data is not None:
        size = data.schema.field("vector").type.list_size if "vector" in data.column_names else None
        if dim and size and size != dim:  # the table's own size: every row has it (a fixed-size list)
            found.other_size = size
        found.unsound, found.bad_vectors = sound_rows(name, data, size)
    return found


def read_all(table: Any, rows: int) -> tuple[Any, int, str]:
    """(every readable row as one Arrow table, how many rows could not be read, why). The
    whole table at once first; when that fails, batches, and a failing batch in halves."""
    import pyarrow as pa

    try:
        data = table.to_arrow()
        data.validate(full=True)  # offsets, UTF-8: what a garbled page gets wrong
        return data, 0, ""
    except BaseException as exc:  # noqa: BLE001
        reraise_interrupts(exc)
        if not is_damage(exc) and not isinstance(exc, (pa.ArrowInvalid, UnicodeDecodeError)):
            raise
        first_error = reason(exc)
    good: list[Any] = []
    lost = 0

    def read(lo: int, hi: int) -> None:
        nonlocal lost
        try:
            part = table.take_offsets(list(range(lo, hi))).to_arrow()
            part.validate(full=True)
            good.append(part)
        except BaseException as exc:  # noqa: BLE001
            reraise_interrupts(exc)
            if hi - lo == 1:
                lost += 1
                return
            mid = (lo + hi) // 2
            read(lo, mid)
            read(mid, hi)

    for lo in range(0, rows, BATCH):
        read(lo, min(rows, lo + BATCH))
    if not good:
        return None, rows, first_error
    schema = good[0].schema
    return pa.concat_tables([g.cast(schema) for g in good]), lost, first_error


def sound_rows(name: str, data: Any, dim: int | None) -> tuple[list[str], list[str]]:
    """(ids of rows missing an id, profile or text; ids of rows whose vector is damaged).
    A row without an id is listed by its position ("#12")."""
    import numpy as np

    ids = [i if i else f"#{n}" for n, i in enumerate(data.column("id").to_pylist())]
    needed = ["id", "profile"] + (["text"] if name == S.MEMORIES else [])
    unsound = set()
    for col in needed:
        for n, value in enumerate(data.column(col).to_pylist()):
            if not (isinstance(value, str) and value.strip()):
                unsound.add(ids[n])
    bad: list[str] = []
    if "vector" in data.column_names and data.num_rows:
        vectors = data.column("vector").combine_chunks()
        present = np.asarray(vectors.is_valid())
        dim = dim or vectors.type.list_size
        if vectors.type.list_size != dim:
            bad = [ids[n] for n in np.flatnonzero(present)]
        elif present.any():  # unit length: the embedder's vectors are L2-normalised
            values = np.asarray(vectors.filter(vectors.is_valid()).flatten(), dtype=np.float32).reshape(-1, dim)
            with np.errstate(all="ignore"):
                norms = np.linalg.norm(values, axis=1)
            damaged = ~np.isfinite(values).all(axis=1) | ~(np.abs(norms - 1.0) <= UNIT_TOLERANCE)
            rows = np.flatnonzero(present)
            bad = [ids[n] for n in rows[damaged]]
    return sorted(unsound), [i for i in bad if i not in unsound]


def reraise_interrupts(exc: BaseException) -> None:
    """Ctrl-C and exit go on; every other error (a Rust panic too) is a finding."""
    if not isinstance(exc, Exception) and type(exc).__name__ != "PanicException":
        raise exc
