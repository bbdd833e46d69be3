"""Deletion that leaves nothing behind, even when it is interrupted.

A deletion is a `PurgeJob` (ids only, never text). It is written to a journal in the
database folder (fsync) BEFORE the first row is touched, then run step by step:
call reports are scrubbed, log lines erased, rows deleted, every touched table rewritten
from its live rows with all old versions and files dropped (LanceDB otherwise keeps
deleted rows in old fragments), and only then is the job removed from the journal. Every
open of the store replays what is left in the journal, so a deletion killed at any point
is finished at the next start. Each step is idempotent: running one twice is harmless.

`HOOK(stage)` is called at each step (tests raise there to simulate a crash); with
TUTOR_APP_TEST_PAUSE_AT=<stage> the process says so on stderr and waits for stdin at
that step, so a test can `kill -9` it exactly there without sleeping.
"""
from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from operator import methodcaller
from typing import TYPE_CHECKING, Any, Protocol

from tutor_app.memory.storage import schema as S
from tutor_app.memory.storage.journal import UNREADABLE, read_jobs, rewrite_jobs
from tutor_app.memory.storage.journal import PurgeJob as PurgeJob  # the store builds jobs as purge.PurgeJob
from tutor_app.memory.storage.journal import journal_path as journal_path

if TYPE_CHECKING:
    from tutor_app.memory.storage.models import Memory, Message
    from tutor_app.memory.storage.ports import PurgeStore

log = logging.getLogger(__name__)

ENV_PAUSE_AT = "TUTOR_APP_TEST_PAUSE_AT"
HOOK: Callable[[str], None] | None = None  # tests: raise at a stage to simulate a crash
MAX_VERSIONS_SCANNED = 200  # an unknown id must not scan a long history (`memory cleanup` erases all)
MIN_NEEDLE_CHARS = 8  # log lines quoting a deleted text are erased; shorter texts match too much


class Footprint(Protocol):
    """Learner text kept outside this database (practice items): a deletion reaches it
    too. Both calls must be idempotent: an interrupted deletion runs them again."""

    def forget(self, profile: str, learner_lines: list[str]) -> None: ...
    def clear(self, profile: str) -> None: ...


@dataclass
class PurgeResult:
    """What a deletion removed (for the running session's in-memory history)."""

    profile: str
    memory_ids: set[str] = field(default_factory=set)
    message_ids: set[str] = field(default_factory=set)
    texts: set[str] = field(default_factory=set)  # the deleted lines, to drop from live history
    everything: bool = False


def _stage(name: str) -> None:
    if HOOK is not None:
        HOOK(name)
    if os.environ.get(ENV_PAUSE_AT) == name:
        print(f"paused at {name}", file=sys.stderr, flush=True)
        sys.stdin.readline()  # the test kills us here


# -- planning ------------------------------------------------------------------------------
_WORD = re.compile(r"[\w'-]+")
_STOP = frozenset("""a an the and or but to of in on at for with from by about my your his her their our
i me you we they he she it is am are was were be been do does did have has had this that these those
learner learner's likes like loves love enjoys wants want would as very really also just remember please""".split())


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and (len(w) > 2 or w.isdigit())}


def said_in(memory_text: str, line: str, paraphrase: bool = True) -> bool:
    """Was this memory taken from this learner line? Verbatim (the gate stores what was
    said), or, for an extracted `paraphrase`, every content word of it said there."""
    mem, said = _norm(memory_text), _norm(line)
    if not mem or not said:
        return False
    if mem == said or f" {mem} " in f" {said} " or (len(said) >= 12 and f" {said} " in f" {mem} "):
        return True
    words = _content_words(memory_text)
    return paraphrase and len(words) >= 2 and words <= _content_words(line)


def exchanges_of(store: "PurgeStore", memories: Iterable["Memory"]) -> list[str]:
    """Message ids of the exchanges these memories came from: each learner line it was
    taken from and the tutor reply that followed it."""
    memories = list(memories)
    if not memories:
        return []
    rows = [m for m, _ in store.session_messages(None)]
    by_session: dict[str, list[Message]] = {}
    for msg in rows:
        by_session.setdefault(msg.session_id, []).append(msg)
    ids: list[str] = []
    for mem in memories:
        sessions = [mem.session_id] if mem.session_id in by_session else list(by_session)
        for sid in sessions:
            msgs = by_session[sid]
            for i, msg in enumerate(msgs):
                if msg.role != "user" or not said_in(mem.text, msg.text, mem.source == "extraction"):
                    continue
                ids.append(msg.id)
                if i + 1 < len(msgs) and msgs[i + 1].role == "assistant":
                    ids.append(msgs[i + 1].id)
    return list(dict.fromkeys(ids))


# -- running -------------------------------------------------------------------------------
def run(store: "PurgeStore", job: PurgeJob) -> PurgeResult:
    """Journal the job, then complete it."""
    db = store._db
    with db.writing():  # one read-modify-write of the journal at a time, across processes
        rewrite_jobs(db.db_dir, lambda jobs: [*jobs, job])
    _stage("journal")
    return complete(store, job)


def replay(store: "PurgeStore") -> list[PurgeResult]:
    """Finish every deletion an earlier run did not (called on each open). One that
    cannot finish now - the disk is full, or a table is damaged - stays in the journal
    for the next start, is named once, and the rest of the run goes on."""
    from tutor_app.memory.storage.damage import DamagedTableError
    from tutor_app.storage_errors import full_disk

    db = store._db
    if not journal_path(db.db_dir).exists():
        return []
    done = []
    for job in read_jobs(db.db_dir):
        target = store.for_profile(job.profile) if job.profile else store
        log.info("completing an interrupted deletion (%s)", job.kind)
        try:
            done.append(complete(target, job))
        except DamagedTableError as exc:
            db.warn_damaged(exc.table)  # the one line; the deletion finishes after the repair
            log.info("an interrupted deletion waits for the repair of table %s", exc.table)
            break
        except Exception as exc:  # noqa: BLE001 - only a full disk is waited out
            if not full_disk(exc):
                raise
            log.info("an interrupted deletion cannot finish: the disk is full", exc_info=True)
            log.warning("a deletion could not be finished: the disk holding %s is full; it finishes by itself "
                        "at the next start once there is space (free some space on that disk)", db.db_dir)
            break
    return done


def complete(store: "PurgeStore", job: PurgeJob) -> PurgeResult:
    from tutor_app import logs

    db = store._db
    where = store._where
    # Every job ends by rewriting every table, so a damaged journal's stand-in that is
    # already journalled is done by this job too.
    done = {job.id} | ({UNREADABLE} if any(j.id == UNREADABLE for j in read_jobs(db.db_dir)) else set())
    result = PurgeResult(store.profile, set(job.memory_ids), set(job.message_ids), everything=job.kind == "clear")
    if job.kind == "clear":
        msgs = [m for m, _ in store.session_messages(None)] if job.profile else []
        mems = store.list() if job.profile else []
        result.memory_ids |= {m.id for m in mems}
        result.message_ids |= {m.id for m in msgs}
        result.texts = {m.text for m in msgs} | {m.text for m in mems}
        needles = result.memory_ids | result.message_ids | {m.session_id for m in msgs if m.session_id}
        needles |= {c.id for c in store.calls()} | {c.session_id for c in store.calls() if c.session_id}
    elif job.kind == "memory":
        msgs = _messages(store, job.message_ids)
        mems = list(store.get_many(job.memory_ids).values())
        result.texts = {m.text for m in msgs} | {m.text for m in mems}
        _stage("reports")
        _scrub_reports(store, msgs)
        needles = result.memory_ids | result.message_ids
    else:
        needles = set()
    _stage("footprints")
    for footprint in db.footprints:
        if job.kind == "clear":
            footprint.clear(store.profile)
        elif job.kind == "memory":
            footprint.forget(store.profile, [m.text for m in msgs if m.role == "user"] + [m.text for m in mems])
    if logs.content_logging() or job.kind == "memory":
        needles |= {t for t in result.texts if len(t) >= MIN_NEEDLE_CHARS}
    _stage("logs")
    logs.erase_lines(needles)
    if job.kind == "memory":
        _stage("messages")
        for chunk in _chunks(job.message_ids):
            db.delete(S.MESSAGES, f"{where} AND id IN ({_lit(chunk)})")
        _stage("memories")
        for chunk in _chunks(job.memory_ids):
            # partial/methodcaller bind this chunk (mypy cannot type a lambda's default args)
            store._write(partial(db.delete, S.MEMORIES, f"{where} AND id IN ({_lit(chunk)})"),
                         methodcaller("remove", set(chunk)))
    elif job.kind == "clear":
        _stage("messages")
        db.delete(S.MESSAGES, where)
        _stage("calls")
        db.delete(S.CALLS, where)
        _stage("memories")
        store._write(lambda: db.delete(S.MEMORIES, where), lambda idx: idx.remove(set(idx.pos)))
    for name in S.TABLES:  # every table: a report scrub or a clear leaves old versions in each
        _stage(f"purge:{name}")
        store._write(partial(db.purge, (name,)))
    _stage("done")
    with db.writing():
        rewrite_jobs(db.db_dir, lambda jobs: [j for j in jobs if j.id not in done])
    db.notify_forgotten(result)
    return result


def _chunks(ids: list[str], size: int = 1000) -> list[list[str]]:
    return [ids[i: i + size] for i in range(0, len(ids), size)]  # bounded SQL filters


def _lit(ids: Iterable[str]) -> str:
    return ", ".join(S.sql_str(i) for i in ids)


def _messages(store: "PurgeStore", ids: list[str]) -> list[Message]:
    if not ids:
        return []
    wanted = set(ids)
    return [m for m, _ in store.session_messages(None) if m.id in wanted]


def _scrub_reports(store: "PurgeStore", msgs: list[Message]) -> None:
    """Call reports quote the learner (corrections): drop the quotes of deleted lines."""
    said = [_norm(m.text) for m in msgs if m.role == "user"]
    sessions = {m.session_id for m in msgs}
    if not said:
        return
    words = {w for line in said for w in line.split()} - _STOP
    for call in store.calls():
        if call.session_id not in sessions:
            continue
        report = dict(call.report)
        corrections = report.get("corrections") or []
        kept = [c for c in corrections if not _quotes(c, said)]
        changed = len(kept) != len(corrections)
        report["corrections"] = kept
        fluency = report.get("fluency")
        if isinstance(fluency, dict) and isinstance(fluency.get("unsure_words"), list):
            # single words the recogniser doubted: a deleted line's words go too
            unsure = [u for u in fluency["unsure_words"]
                      if not (isinstance(u, dict) and _norm(str(u.get("word", ""))) in words)]
            changed |= len(unsure) != len(fluency["unsure_words"])
            report["fluency"] = {**fluency, "unsure_words": unsure}
        if changed:
            store.update_call(call.id, report=report)


def _quotes(correction: Any, said: list[str]) -> bool:
    if not isinstance(correction, dict):
        return False
    for key in ("original", "better"):
        part = _norm(str(correction.get(key) or ""))
        if part and any(f" {part} " in f" {s} " or f" {s} " in f" {part} " for s in said):
            return True
    return False


# -- hidden but not erased -------------------------------------------------------------------
def in_old_versions(store: "PurgeStore", mem_id: str) -> bool:
    """Is this id still in an older version of the memories table (deleted, not erased)?
    When the history cannot be read, the answer is yes: on a privacy path "could not
    check" must lead to erasing, never to "nothing to erase"."""
    db = store._db
    try:
        table = db.conn.open_table(S.MEMORIES)
        versions = [v["version"] if isinstance(v, dict) else v.version for v in table.list_versions()]
    except Exception as exc:  # noqa: BLE001 - unreadable history: erase to be sure (above)
        log.warning("could not list old versions of the memories (%s): erasing to be sure", type(exc).__name__)
        return True
    clause = f"{store._where} AND id = {S.sql_str(mem_id)}"
    for version in sorted(versions, reverse=True)[1:MAX_VERSIONS_SCANNED]:  # newest first: a recent deletion
        try:
            table.checkout(version)
            if table.count_rows(clause):
                return True
        except Exception as exc:  # noqa: BLE001 - an unreadable old version may still hold it: erase
            log.warning("could not read old version %s of the memories (%s): erasing to be sure",
                        version, type(exc).__name__)
            return True
    return False
