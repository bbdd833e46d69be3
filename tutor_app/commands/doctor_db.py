"""`tutor-app doctor`'s lines about the memory database, and `doctor --repair` (issue #33).
The checking and repairing live in memory/storage/check.py and repair.py; this module
only turns their findings into doctor's lines."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Finding:
    """One doctor line (commands/doctor.py turns it into its Check)."""

    area: str
    ok: bool
    detail: str
    fix: str = ""
    numbers: dict[str, Any] = field(default_factory=dict)

FIX = ("run `tutor-app doctor --repair`: it keeps every row that can be read, copies the damaged table aside "
       "and says what was lost (or restore the data folder from a backup)")


def _dim(app) -> int | None:
    """The embedder's vector size (None: unknown, then each table's own is taken)."""
    try:
        return int(app.embedder.dim)
    except Exception:  # noqa: BLE001 - a missing embedder is the models check's finding
        return None


def _lines(found: list[Any]) -> list[Finding]:
    lines = [Finding("database", c.ok, c.describe(), "" if c.ok else FIX) for c in found if c.exists]
    return lines or [Finding("database", True, "no memory tables yet")]


def database(app) -> list[Finding]:
    """Every table opens, every row reads, every vector is sound; a deletion not finished."""
    from tutor_app.memory.storage.check import check_database
    from tutor_app.memory.storage.journal import journal_path

    db_dir = app.paths.db_dir
    if not db_dir.is_dir():
        return [Finding("database", True, f"no memory database yet ({db_dir})")]
    out = _lines(check_database(db_dir, _dim(app)))
    if journal_path(db_dir).exists():
        out.append(Finding("deletion", False, "a deletion is not finished yet",
                         "it finishes by itself at the next start of the app or a command (once the disk has "
                         "space and the tables are sound)"))
    return out


def repair(app) -> list[Finding]:
    """Repair the damaged tables, check again, and rebuild the search index."""
    from tutor_app.memory.storage.check import check_database
    from tutor_app.memory.storage.repair import repair_database

    db_dir = app.paths.db_dir
    if not db_dir.is_dir():
        return [Finding("repair", True, "nothing to repair: there is no memory database yet")]
    dim = _dim(app)
    found = check_database(db_dir, dim)
    if all(c.ok for c in found if c.exists):
        return [*_lines(found), Finding("repair", True, "nothing to repair: every table reads whole")]
    out = []
    for done in repair_database(db_dir, app.embedder, found):
        out.append(Finding("repair", True, done.describe(), numbers={
            "table": done.name, "kept": done.kept, "lost": done.lost, "versions_dropped": done.versions_dropped,
            "vectors_recomputed": done.recomputed, "set_aside": str(done.aside) if done.aside else None}))
    after = check_database(db_dir, dim)
    out += _lines(after)
    if all(c.ok for c in after if c.exists):
        store = app.memory  # opened on the repaired tables: an unfinished deletion finishes here
        store.degrade_reads = False
        out.append(Finding("index", True, f"the search index of profile '{store.profile}' was rebuilt: "
                                        f"{len(store.index())} memories"))
    return out
