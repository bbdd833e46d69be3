"""What the memory panel reads and changes, as a small interface over the memory store
(tutor_app/memory/storage/store.py). No Qt; every method may block (called from workers).

`MemorySource` is the interface the panel is written against; `StoreMemorySource`
adapts the real profile-scoped store.
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass  # ProfileEntry has a `field` attribute
from dataclasses import field as dc_field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from tutor_app.memory.profile.fields import FIELDS
from tutor_app.memory.storage.models import Memory
from tutor_app.ui.tr_mark import QT_TRANSLATE_NOOP

log = logging.getLogger(__name__)

SOURCE_TEXT = {"gate": QT_TRANSLATE_NOOP("MemoryPanel", "said in call"), "trigger": QT_TRANSLATE_NOOP("MemoryPanel", "you asked"), "extraction": QT_TRANSLATE_NOOP("MemoryPanel", "after a call"),
               "manual": QT_TRANSLATE_NOOP("MemoryPanel", "added by you"), "import": QT_TRANSLATE_NOOP("MemoryPanel", "imported")}  # the panel shows them translated


def source_text(source: str) -> str:
    """How a memory got there, in the panel's words."""
    return SOURCE_TEXT.get(source, source or "unknown")


@dataclass
class ProfileEntry:
    field: str
    values: list[str]
    history: list[str] = dc_field(default_factory=list)  # replaced older values, newest first


class MemorySource(Protocol):
    profile: str

    def rows(self) -> list[Memory]: ...  # every memory, older replaced values included
    def search(self, query: str) -> list[str]: ...  # ids, best first
    def delete(self, mem_id: str) -> None: ...
    def clear(self) -> int: ...
    def update(self, mem_id: str, text: str) -> str: ...  # returns the id now holding the text
    def profiles(self) -> list[str]: ...
    def add_profile(self, name: str) -> None: ...
    def delete_profile(self, name: str) -> None: ...
    def profile_entries(self) -> list["ProfileEntry"]: ...
    def export(self, path: Path) -> int: ...  # number of memories written


def profile_entries(rows: list[Memory]) -> list[ProfileEntry]:
    """The profile view: current values per field, replaced values as history."""
    out = []
    for fld in FIELDS:
        cats = fld.panel_categories
        mine = sorted((r for r in rows if r.category in cats), key=lambda r: r.created_at or _EPOCH)
        current = [r.text for r in mine if r.current]
        if fld.single:
            current = current[-1:]
        history = [r.text for r in reversed(mine) if not r.current]
        out.append(ProfileEntry(fld.title, current, history))
    return out


def snapshot(source) -> tuple[list[Memory], list[ProfileEntry]]:
    """A source's rows and its profile view (its own, else built from the rows)."""
    rows = source.rows()
    entries = getattr(source, "profile_entries", None)
    return rows, entries() if callable(entries) else profile_entries(rows)


class StoreMemorySource:
    """The real store (memory/storage/store.py ProfileMemory) for one profile."""

    def __init__(self, store: Any, profiles_file: Path | None = None, opener=None,
                 extra_export=None) -> None:
        self._store = store
        self.profile = store.profile
        self._profiles_file = profiles_file
        self._opener = opener  # profile name -> store (for deleting another profile)
        self._extra_export = extra_export  # () -> {section: rows} kept outside the store (practice)

    @classmethod
    def for_app(cls, app, profile: str) -> "StoreMemorySource":
        base = app.memory
        if profile == base.profile:
            store = base
        else:
            store = _open_profile(app, base, profile)
        def practice() -> dict[str, Any]:
            from tutor_app.practice.store import PracticeStore

            return {"practice": PracticeStore(app.paths.practice_dir, profile).export()}

        return cls(store, app.paths.config_dir / "profiles.json", lambda name: _open_profile(app, base, name),
                   extra_export=practice)

    def rows(self) -> list[Memory]:
        return list(self._store.list())

    def search(self, query: str) -> list[str]:
        """The store's ranked search (by meaning), then every memory that contains the
        typed words literally: a search box must always find what is plainly there."""
        ids = [h.id for h in self._store.search(query, k=50)]
        words = [w for w in query.lower().split() if w]
        seen = set(ids)
        for m in self._store.list():
            if m.id not in seen and words and all(w in m.text.lower() for w in words):
                ids.append(m.id)
                seen.add(m.id)
        return ids

    def profile_entries(self) -> list[ProfileEntry]:
        """The store's own profile view (its merge rules: newest single value wins)."""
        try:
            view = self._store.profile_view()
        except Exception:  # noqa: BLE001 - older store: group the rows ourselves
            log.debug("profile_view failed", exc_info=True)
            return profile_entries(self.rows())
        history = view.get("history") or {}
        out = []
        for fld in FIELDS:
            title, key = fld.title, fld.key
            value = view.get(key)
            values = [value] if isinstance(value, str) else [str(v) for v in (value or [])]
            values = [_TEMPLATE_PREFIX.sub("", v) for v in values]
            past = [_TEMPLATE_PREFIX.sub("", str(v)) for v in reversed(history.get(key) or [])]
            out.append(ProfileEntry(title, values, past))
        return out

    def export(self, path: Path) -> int:
        """Everything of this profile: memories with history, transcripts, call reports."""
        from tutor_app.memory.storage.transfer import write_export

        return write_export(self._store, Path(path), self._extra_export() if self._extra_export else None)

    def delete(self, mem_id: str) -> None:
        self._store.delete(mem_id)

    def clear(self) -> int:
        return int(self._store.clear())

    def update(self, mem_id: str, text: str) -> str:
        if self._store.get(mem_id) is None:
            raise KeyError(mem_id)
        return self._store.edit(mem_id, text).id

    def profiles(self) -> list[str]:
        names = _read_profiles(self._profiles_file)
        lister = getattr(self._store, "profiles", None)  # wanted from the memory store
        if callable(lister):
            try:
                names |= set(lister())
            except Exception:  # noqa: BLE001
                log.debug("store.profiles() failed", exc_info=True)
        if self.profile not in names:  # remember every profile that was ever opened
            _write_profiles(self._profiles_file, _read_profiles(self._profiles_file) | {self.profile})
            names.add(self.profile)
        return sorted(names, key=str.lower)

    def add_profile(self, name: str) -> None:
        names = _read_profiles(self._profiles_file) | {name, self.profile}
        _write_profiles(self._profiles_file, names)

    def delete_profile(self, name: str) -> None:
        if self._opener is not None:
            self._opener(name).clear()  # the memories, transcripts and calls, for real
        _write_profiles(self._profiles_file, _read_profiles(self._profiles_file) - {name})


def _open_profile(app, base, profile: str):
    from tutor_app.memory.storage.store import open_store

    if base is not None:
        return base.for_profile(profile)  # share the open database (one writer per process)
    return open_store(app.paths.db_dir, app.embedder, profile, app.memory_footprints())


def _read_profiles(path: Path | None) -> set[str]:
    if path is None or not path.is_file():
        return set()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(n) for n in data.get("profiles", []) if str(n).strip()}
    except (OSError, ValueError, AttributeError):
        return set()


def _write_profiles(path: Path | None, names: set[str]) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"profiles": sorted(names)}, ensure_ascii=False), encoding="utf-8")


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
# "Name: Minji" -> "Minji" under the Name heading (the merge step's memory templates).
_TEMPLATE_PREFIX = re.compile(r"^(name|occupation|interest|learning goal|goal|preference)\s*:\s*", re.I)
