"""Export a profile to JSON; import memories from JSONL (contract in DESIGN.md).

Import is all-or-nothing: every line is checked first and a single bad line (not
UTF-8, not JSON, missing text, wrong type) aborts the import with its line number, so
a retry after fixing the file cannot create duplicates of half an import.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor_app.errors import TutorError
from tutor_app.memory.storage.schema import dump_meta, iso, utcnow

if TYPE_CHECKING:
    from tutor_app.memory.storage.store import ProfileMemory

EXPORT_FORMAT = "tutor-memory-export"
IMPORT_KEYS = ("text", "created_at", "category", "memory_type", "importance", "session_id", "meta")
MAX_IMPORT_BYTES = 512 * 1024 * 1024


@dataclass
class ImportResult:
    imported: int
    skipped_duplicates: int
    total_lines: int


def export_profile(store: "ProfileMemory", extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything this profile has: memories (with history), transcripts, calls, and
    `extra` sections kept outside this database (the practice items)."""
    messages = [{"id": msg.id, "session_id": msg.session_id, "role": msg.role, "text": msg.text,
                 "emotion": msg.emotion or None, "emotion_score": msg.emotion_score, "created_at": iso(msg.created_at)}
                for msg, _ in store.session_messages(None)]
    return {
        "format": EXPORT_FORMAT, "version": 1, "profile": store.profile, "exported_at": iso(utcnow()),
        "memories": [m.to_dict() for m in store.list()],
        "messages": messages,
        "calls": [{"id": c.id, "session_id": c.session_id, "started_at": iso(c.started_at),
                   "ended_at": iso(c.ended_at), "extracted": c.extracted, "report": c.report} for c in store.calls()],
        **(extra or {}),
    }


def write_export(store: "ProfileMemory", target: Path, extra: dict[str, Any] | None = None) -> int:
    data = export_profile(store, extra)
    target = Path(target)
    tmp = target.with_name(target.name + ".tmp")
    try:
        tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        os.chmod(tmp, 0o600)  # private, also when it replaces a readable file of the same name
        os.replace(tmp, target)  # never half an export file
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise TutorError(f"cannot write {target}: {exc.strerror or exc}") from None
    return len(data["memories"])


def parse_import(raw: bytes, name: str = "input") -> list[dict[str, Any]]:
    """Validated import items, or TutorError naming the first bad line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_no = raw[: exc.start].count(b"\n") + 1
        raise TutorError(f"{name} line {line_no}: not valid UTF-8 (byte {exc.start}); nothing imported") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    # An export file of ours (one JSON object with "memories") imports too: round trip.
    stripped = text.strip()
    if stripped.startswith("{") and "\n" in stripped:
        try:
            whole = json.loads(stripped)
        except ValueError:
            whole = None
        if isinstance(whole, dict) and whole.get("format") == EXPORT_FORMAT:
            mems = whole.get("memories")
            if not isinstance(mems, list):
                raise TutorError(f"{name}: export file without a memories list; nothing imported")
            return [_item(m, f"{name} memory {i}", keep_extra=True) for i, m in enumerate(mems, 1)]
    items = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:  # the ValueError json.loads raises, with .msg
            raise TutorError(f"{name} line {n}: not valid JSON ({exc.msg}); nothing imported") from None
        items.append(_item(obj, f"{name} line {n}"))
    return items


def _item(obj: Any, where: str, keep_extra: bool = False) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise TutorError(f"{where}: expected a JSON object; nothing imported")
    if "text" not in obj:
        raise TutorError(f"{where}: missing \"text\"; nothing imported")
    if obj.get("meta") is not None and not isinstance(obj.get("meta"), dict):
        raise TutorError(f"{where}: \"meta\" must be an object; nothing imported")
    item = {k: obj.get(k) for k in IMPORT_KEYS if obj.get(k) is not None}
    if keep_extra:  # from our own export: keep provenance and the emotion
        for k in ("emotion_label", "emotion_score"):
            if obj.get(k) is not None:
                item[k] = obj[k]
    item["source"] = "import"
    try:
        dump_meta(item.get("meta"))
    except TutorError as exc:
        raise TutorError(f"{where}: {exc}; nothing imported") from None
    return item


def import_file(store: "ProfileMemory", path: Path) -> ImportResult:
    path = Path(path)
    too_large = TutorError(f"{path} is too large to import (the limit is {MAX_IMPORT_BYTES} bytes); nothing imported")
    try:
        if path.stat().st_size > MAX_IMPORT_BYTES:
            raise too_large
        # Read with the bound itself too: a pipe or /dev/stdin has no size to check beforehand.
        with path.open("rb") as f:
            raw = f.read(MAX_IMPORT_BYTES + 1)
    except OSError as exc:
        raise TutorError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_IMPORT_BYTES:
        raise too_large
    return import_items(store, parse_import(raw, path.name))


def import_items(store: "ProfileMemory", items: list[dict[str, Any]]) -> ImportResult:
    # Validate every item (text size, types, dates) before anything is written.
    try:
        checked = store.add_many(items, validate_only=True)
    except TutorError as exc:
        raise TutorError(f"{exc}; nothing imported") from None
    fresh = _not_present(store, items, checked, range(len(items)))
    if not fresh:
        return ImportResult(0, len(items), len(items))
    # The embedding (seconds for a large file) runs outside the writer lock; the duplicate
    # check is made again under it, against the table as it is now, so two imports of one
    # file at the same time (two processes) add it once.
    vectors = store.embedder.embed([checked[i].text for i in fresh])
    with store._db.writing():
        still = _not_present(store, items, checked, fresh)
        if still:
            keep = [fresh.index(i) for i in still]
            store.add_many([items[i] for i in still], vectors=vectors[keep])
    return ImportResult(len(still), len(items) - len(still), len(items))


def _not_present(store: "ProfileMemory", items: list[dict[str, Any]], checked: list[Any],
                 candidates: Any) -> list[int]:
    """Indices among `candidates` whose memory the profile does not hold yet (the same text
    and time; a text without a time matches that text at any time), each once."""
    existing = {(m.text, iso(m.created_at)) for m in store.list()}
    texts = {t for t, _ in existing}
    out, seen = [], set()
    for i in candidates:
        mem = checked[i]
        key = (mem.text, iso(mem.created_at) if items[i].get("created_at") else None)
        if key in existing or (key[1] is None and mem.text in texts) or key in seen:
            continue  # re-importing the same file does not duplicate memories
        seen.add(key)
        out.append(i)
    return out
