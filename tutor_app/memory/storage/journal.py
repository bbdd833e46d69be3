"""The journal of pending deletions (`pending-purges.json` in the database folder):
the jobs of purge.py, written (fsync) before their first row is touched and removed when
done. It is checked against its schema when read: a torn or ill-typed journal is treated
the same way, named once, set aside (never overwritten) and stands for one job that
erases everything hidden, so a deletion is never forgotten and no command fails on it.
"""
from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tutor_app.paths import PURGE_JOURNAL

log = logging.getLogger(__name__)



@dataclass
class PurgeJob:
    """What one deletion removes. `kind` "memory": these memories and message ids;
    "clear": every row of the profile (memories, messages, calls)."""

    profile: str
    kind: str = "memory"
    memory_ids: list[str] = field(default_factory=list)
    message_ids: list[str] = field(default_factory=list)
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])


def journal_path(db_dir: Path) -> Path:
    return Path(db_dir) / PURGE_JOURNAL


KINDS = ("memory", "clear", "tables")
UNREADABLE = "unreadable"  # the id of the job that stands in for a damaged journal


def _unreadable() -> PurgeJob:
    return PurgeJob(profile="", kind="tables", id=UNREADABLE)


def _job(raw: Any) -> PurgeJob | None:
    """A journal entry checked against its schema; None when any field has the wrong type."""
    if not isinstance(raw, dict):
        return None
    profile, kind, ident = raw.get("profile"), raw.get("kind"), raw.get("id")
    memory_ids, message_ids = _ids(raw.get("memory_ids")), _ids(raw.get("message_ids"))
    if not (isinstance(profile, str) and kind in KINDS and isinstance(ident, str) and ident
            and memory_ids is not None and message_ids is not None):
        return None
    return PurgeJob(profile=profile, kind=str(kind), memory_ids=memory_ids, message_ids=message_ids, id=ident)


def _ids(value: Any) -> list[str] | None:
    """A list of id strings, or None when it is anything else."""
    if isinstance(value, list) and all(isinstance(i, str) for i in value):
        return [str(i) for i in value]
    return None


def _load(path: Path) -> tuple[list[PurgeJob], str]:
    """(jobs, what is wrong): "" for a sound journal (or none), else why it cannot be used."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [], ""
    except (OSError, ValueError) as exc:
        return [], f"unreadable ({type(exc).__name__})"
    raw_jobs = data.get("jobs") if isinstance(data, dict) else None
    if not isinstance(raw_jobs, list):
        return [], "not a list of jobs"
    jobs = [_job(raw) for raw in raw_jobs]
    if any(j is None for j in jobs):
        return [], "a job with fields of the wrong type"
    return [j for j in jobs if j is not None], ""


def read_jobs(db_dir: Path) -> list[PurgeJob]:
    """The journal's jobs. A torn or ill-typed journal cannot name its rows: one job erases
    everything hidden (every table is rewritten) rather than forget that something was
    being deleted; the damaged file is set aside when that job is journalled or done."""
    jobs, damage = _load(journal_path(db_dir))
    if damage:
        log.info("the pending-deletion journal is %s; purging every table", damage)
        return [_unreadable()]
    return jobs


def _set_aside(path: Path, damage: str) -> None:
    """Keep a damaged journal for a look (never overwritten), and say so once."""
    import time

    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        os.replace(path, aside)
    except OSError:
        path.unlink(missing_ok=True)
        aside = path
    log.warning("the pending-deletion journal %s was damaged (%s): every table was purged of deleted rows "
                "instead and the file was set aside as %s; if a memory you deleted is still listed, "
                "delete it again", path, damage, aside.name)


def rewrite_jobs(db_dir: Path, keep: Callable[[list[PurgeJob]], list[PurgeJob]]) -> None:
    """Read-modify-write of the journal (the caller holds the writer lock). A damaged
    journal is set aside first; its stand-in job stays until it has run."""
    path = journal_path(db_dir)
    jobs, damage = _load(path)
    if damage:
        _set_aside(path, damage)
        jobs = [_unreadable()]
    _write_jobs(db_dir, keep(jobs))


def _write_jobs(db_dir: Path, jobs: list[PurgeJob]) -> None:
    path = journal_path(db_dir)
    if not jobs:
        path.unlink(missing_ok=True)
        _fsync_dir(path.parent)
        return
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump({"version": 1, "jobs": [asdict(j) for j in jobs]}, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)  # a full disk leaves no empty .tmp behind
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    if os.name == "nt":  # pragma: no cover - directories cannot be fsynced there
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
