"""A learner's practice items, one JSON file per profile in the data dir's `practice/`.

Each change rewrites the whole file atomically (a temporary file, fsync, rename), under an
OS file lock shared by every process of the app: a deleted item is gone from disk at
once (no old versions or fragments kept, unlike the vector store), and an interrupted
write leaves the previous file whole. The file name is a digest of the profile name, so
no profile name can reach outside the folder.

New items pass the gates of practice/gates.py; a file written before the gates (version 1)
loses the items that fail them the first time it is opened (`_migrate`).
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypedDict

from tutor_app.errors import TutorError
from tutor_app.memory.ports import MemoryStore
from tutor_app.practice import schedule
from tutor_app.practice.file_schema import checked
from tutor_app.practice.gates import Known, gate_review, item_fault
from tutor_app.practice.items import MISTAKE, TYPES, WORD, PracticeItem, Review, classify, words
from tutor_app.practice.outcome import Outcome

log = logging.getLogger(__name__)

FORMAT = "tutor-app-practice"
VERSION = 2  # 2: every item passed the gates (practice/gates.py)


class _Data(TypedDict):
    """The practice file, read."""
    items: list[PracticeItem]
    plans: dict[str, list[str]]  # session id -> planned item ids
    version: int


def _iso(when: datetime) -> str:
    return when.astimezone(timezone.utc).isoformat()


class PracticeStore:
    def __init__(self, folder: Path, profile: str, clock: Callable[[], datetime] | None = None,
                 known: Callable[[set[str]], Known] | None = None) -> None:
        self.folder = folder
        self.profile = profile
        self._known = known  # the learner's names and lines, read only for the migration
        digest = hashlib.sha256(profile.encode("utf-8")).hexdigest()[:24]
        self.path = folder / f"{digest}.json"
        self._clock = clock or (lambda: datetime.now(timezone.utc))

    def now(self) -> datetime:
        return self._clock()

    # -- reading -------------------------------------------------------------------------
    def items(self) -> list[PracticeItem]:
        return self._load()["items"]

    def get(self, item_id: str) -> PracticeItem | None:
        return next((i for i in self.items() if i.id == item_id), None)

    def search(self, query: str) -> list[PracticeItem]:
        wanted = words(query)
        if not wanted:
            return self.items()
        found = []
        for item in self.items():
            text = set(words(f"{item.said} {item.better} {item.why} {item.type}"))
            if all(w in text for w in wanted):
                found.append(item)
        return found

    def export(self) -> list[dict[str, Any]]:
        """Every item as plain JSON (for `memory export`)."""
        return [_row(i) for i in self.items()]

    def planned(self, session_id: str) -> list[PracticeItem]:
        """The items planned for that call (judged at its end)."""
        plans = self._load()["plans"]
        ids = set(plans.get(session_id, []))
        return [i for i in self.items() if i.id in ids]

    # -- writing -------------------------------------------------------------------------
    def mark_planned(self, session_id: str, items: Sequence[PracticeItem]) -> None:
        with self._editing() as data:
            data["plans"][session_id] = [i.id for i in items]

    def add_from_call(self, session_id: str, corrections: Sequence[Any], new_words: Sequence[str],
                      learner_lines: Sequence[str]) -> list[PracticeItem]:
        """New items from a call's review (a correction or word already kept is not doubled)."""
        now = self._clock()
        added: list[PracticeItem] = []
        gated = gate_review(corrections, [str(w) for w in new_words], learner_lines)
        if gated.dropped:
            log.info("practice gates of %s dropped %d: %s", session_id, sum(gated.dropped.values()), gated.summary())
        with self._editing() as data:
            known = {i.key() for i in data["items"]}
            candidates = [self._mistake(c, session_id, learner_lines, now) for c in gated.corrections]
            candidates += [PracticeItem(uuid.uuid4().hex[:16], WORD, w, session_id=session_id,
                                        created_at=_iso(now), card=schedule.new_card(now))
                           for w in gated.new_words]
            for item in candidates:
                if item.key() not in known:
                    known.add(item.key())
                    data["items"].append(item)
                    added.append(item)
        return added

    def record(self, session_id: str, outcomes: Sequence[Outcome]) -> None:
        """The reviews of a call: each outcome moves that item's schedule (once per call)."""
        now = self._clock()
        with self._editing() as data:
            by_id = {i.id: i for i in data["items"]}
            for outcome in outcomes:
                item = by_id.get(outcome.item_id)
                if item is None or any(r.session_id == session_id for r in item.reviews):
                    continue  # deleted meanwhile, or this call was already counted (a re-run)
                item.card = schedule.review(item.card, outcome.success, now)
                item.reviews.append(Review(_iso(now), session_id, outcome.outcome, outcome.line))
            data["plans"].pop(session_id, None)

    def delete(self, item_id: str) -> PracticeItem:
        with self._editing() as data:
            for index, item in enumerate(data["items"]):
                if item.id == item_id:
                    del data["items"][index]
                    for ids in data["plans"].values():
                        if item_id in ids:
                            ids.remove(item_id)
                    return item
        raise TutorError(f"no practice item with id '{item_id}'")

    def forget_lines(self, lines: Sequence[str]) -> int:
        """A deleted exchange takes its practice items along: every item quoting one of
        those learner lines goes, and review lines that quote them are blanked."""
        said = [" ".join(words(line)) for line in lines if words(line)]
        if not said or not self.path.exists():
            return 0

        def quoted(text: str) -> bool:
            norm = " ".join(words(text))
            return bool(norm) and any(f" {norm} " in f" {s} " or f" {s} " in f" {norm} " for s in said)

        with self._editing() as data:
            before = len(data["items"])
            data["items"] = [i for i in data["items"] if not (i.kind == MISTAKE and quoted(i.said))]
            for item in data["items"]:
                for review in item.reviews:
                    if review.line and quoted(review.line):
                        review.line = ""
            return before - len(data["items"])

    def clear(self) -> int:
        """Erase every item of this profile (the file goes)."""
        with self._locked():
            count = len(self._read()["items"])
            self.path.unlink(missing_ok=True)
        return count

    # -- internals -----------------------------------------------------------------------
    def _mistake(self, correction: Any, session_id: str, learner_lines: Sequence[str],
                 now: datetime) -> PracticeItem:
        original, better = str(correction.original), str(correction.better)
        kind = str(getattr(correction, "type", "") or "")
        turn = next((n for n, line in enumerate(learner_lines)
                     if " ".join(words(original)) in " ".join(words(line))), -1)
        return PracticeItem(uuid.uuid4().hex[:16], MISTAKE, original, better, str(correction.why),
                            kind if kind in TYPES else classify(original, better), session_id, turn,
                            _iso(now), schedule.new_card(now))

    @contextmanager
    def _locked(self) -> Iterator[None]:
        from filelock import FileLock

        self.folder.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.path) + ".lock"):
            yield

    @contextmanager
    def _editing(self) -> Iterator[_Data]:
        with self._locked():
            data = self._read()
            self._migrate(data)
            yield data
            self._write(data)

    def _load(self) -> _Data:
        if not self.path.exists():
            return {"items": [], "plans": {}, "version": VERSION}
        with self._locked():
            data = self._read()
            if self._migrate(data):
                self._write(data)
            return data

    def _migrate(self, data: _Data) -> bool:
        """A file from before the gates: the items that fail them go (and from the plans).
        Without the learner's names and lines (a store opened outside the app, e.g. by a
        memory deletion) only what the items themselves show is removed, and the file
        stays at its version for the app's next open. True when the file needs writing."""
        if data["version"] >= VERSION:
            return False
        known = self._known({i.session_id for i in data["items"]}) if self._known and data["items"] else None
        bad = {i.id for i in data["items"] if item_fault(i, known)}
        data["items"] = [i for i in data["items"] if i.id not in bad]
        for session_id, ids in data["plans"].items():
            data["plans"][session_id] = [x for x in ids if x not in bad]
        if self._known is not None:
            data["version"] = VERSION
        if not bad and data["version"] < VERSION:
            return False
        log.info("practice file checked against the gates (%s): %d of %d items failed and were removed",
                 "complete" if self._known is not None else "items only", len(bad), len(bad) + len(data["items"]))
        return True

    def _read(self) -> _Data:
        """The file checked against its schema (practice/file_schema.py). A torn or ill-typed
        file is set aside, what was in good order is kept, and practice goes on (the caller
        holds the file lock)."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {"items": [], "plans": {}, "version": VERSION}
        except ValueError as exc:  # not JSON, not UTF-8: torn
            return self._set_aside(f"it cannot be read ({type(exc).__name__})", [], {}, VERSION)
        except OSError as exc:
            raise TutorError(f"the practice file of profile '{self.profile}' cannot be read "
                             f"({exc.strerror or exc}): {self.path}") from None
        items, plans, version, problems = checked(raw, VERSION)
        if problems:
            why = problems[0] if problems[0].startswith("not ") else f"wrong types: {', '.join(problems[:5])}"
            return self._set_aside(why, items, plans, version)
        return {"items": items, "plans": plans, "version": version}

    def _set_aside(self, why: str, items: list[PracticeItem], plans: dict[str, list[str]], version: int) -> _Data:
        """Rename the damaged file (never overwritten), write back what was in good order,
        and say so once: the next read finds a sound file."""
        import time

        data: _Data = {"items": items, "plans": plans, "version": version}
        aside = self.path.with_name(f"{self.path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            os.replace(self.path, aside)
        except OSError as exc:
            raise TutorError(f"the practice file {self.path} is damaged ({why}) and cannot be set aside "
                             f"({exc.strerror or exc}): move it away and start again") from None
        kept = (f"the {len(items)} item{'s' if len(items) != 1 else ''} in good order {'were' if len(items) != 1 else 'was'} "
                f"kept" if items else "practice starts again with no items")
        if items or plans:
            self._write(data)
        log.warning("the practice file %s of profile '%s' was damaged (%s): it was set aside as %s and %s; "
                    "restore it from a backup if you have one, else nothing to do", self.path, self.profile, why,
                    aside.name, kept)
        return data

    def _write(self, data: _Data) -> None:
        payload = {"format": FORMAT, "version": data["version"], "profile": self.profile,
                   "items": [_row(i) for i in data["items"]], "plans": data["plans"]}
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, ensure_ascii=False)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)
        _fsync_dir(self.folder)


def _row(item: PracticeItem) -> dict[str, Any]:
    return {"id": item.id, "kind": item.kind, "said": item.said, "better": item.better, "why": item.why,
            "type": item.type, "session_id": item.session_id, "turn": item.turn, "created_at": item.created_at,
            "card": item.card, "reviews": [r.to_dict() for r in item.reviews]}


def _fsync_dir(folder: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def known_from(memory: MemoryStore) -> Callable[[set[str]], Known]:
    """The migration's view of memory: the learner's names (profile) and their lines in
    the calls the items came from."""

    def read(session_ids: set[str]) -> Known:
        view = memory.profile_view()
        names = [view.get("name"), *(view.get("history") or {}).get("name", [])]
        lines = {sid: [m.text for m, _ in memory.session_messages(sid) if m.role == "user"]
                 for sid in session_ids if sid}
        return Known(frozenset(str(n) for n in names if n), lines)

    return read


class PracticeFootprint:
    """The practice items as a memory-deletion footprint (memory/storage/purge.py Footprint): a
    deleted exchange or a cleared profile takes its practice items along."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def forget(self, profile: str, learner_lines: list[str]) -> None:
        PracticeStore(self.folder, profile).forget_lines(learner_lines)

    def clear(self, profile: str) -> None:
        PracticeStore(self.folder, profile).clear()
