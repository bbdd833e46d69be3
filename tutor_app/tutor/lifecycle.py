"""Call end: extraction of learner facts (seed 000) merged into memory, the review
(corrections, new words) and the call report; in the background on the call-end runner
(tutor/call_end.py), or synchronously for `end-call`. A call whose extraction failed
or was interrupted is finished at the next start (tutor/recovery.py)."""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from tutor_app.core.types import ChatMessage
from tutor_app.errors import TutorError
from tutor_app.memory.ports import MemoryStore
from tutor_app.tutor import call_end, extract, review
from tutor_app.tutor.call_end import CallEndJob
from tutor_app.tutor.ports import CallEndEngine
from tutor_app.tutor.report import CallReport, Correction, TurnRecord, build_report

if TYPE_CHECKING:
    from tutor_app.memory.storage.models import CallRecord

log = logging.getLogger(__name__)


@dataclass
class CallOutcome:
    session_id: str
    extracted: dict[str, Any] = field(default_factory=dict)  # validated facts, {} if none
    # done | skipped (too short) | failed (retried next start) | rules (the model failed, the
    # learner's plain statements were merged, the model is retried next start) | off
    extraction: str = "skipped"
    profile: dict[str, Any] = field(default_factory=dict)  # the merged profile afterwards
    report: CallReport | None = None
    error: str | None = None
    practice: dict[str, Any] = field(default_factory=dict)  # reviews and new items (practice/calls.py)

    def to_json(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "extraction": self.extraction,
                "extracted": self.extracted, "profile": self.profile,
                "report": self.report.to_dict() if self.report else None, "error": self.error,
                "practice": self.practice}


def finish_call(engine: CallEndEngine, session_id: str, turns: list[TurnRecord], started_at: float,
                background: bool = True, on_done: Callable[[CallOutcome], None] | None = None,
                pauses_ms: list[float] | None = None) -> CallEndJob[CallOutcome] | CallOutcome:
    """Mark the call ended now; run extraction + review + report (on the call-end runner,
    tutor/call_end.py, if asked: its job is returned). `pauses_ms`: the learner's
    within-turn pauses (a live call), kept in the report."""
    ended_at = engine.services.clock()

    def work() -> CallOutcome:
        outcome = process_call(engine, session_id, turns, started_at, ended_at, pauses_ms)
        if on_done:
            on_done(outcome)
        return outcome

    if not background:
        return work()
    return call_end.submit(f"call-end-{session_id}", work)


# One call's end at a time in a process: the runner runs its jobs one by one, and this
# lock keeps `end-call` (the synchronous path) from running beside the runner's recovery:
# two merges into one profile must not interleave their read-modify-write.
_ONE_AT_A_TIME = threading.Lock()


def process_call(engine: CallEndEngine, session_id: str, turns: list[TurnRecord] | None,
                 started_at: float | None, ended_at: float, pauses_ms: list[float] | None = None,
                 unless_done: bool = False) -> CallOutcome:
    """`unless_done`: a recovery, which found the call unfinished before it took the lock:
    a call another process finished meanwhile is left as it is."""
    from filelock import FileLock

    # One call end at a time across processes too (two `end-call`, two starts recovering
    # one killed call): the second finds the first's memories, so nothing is merged twice.
    folder = engine.settings.paths.live_dir
    folder.mkdir(parents=True, exist_ok=True)
    with _ONE_AT_A_TIME, FileLock(str(folder / "call-end.lock")):
        if unless_done:
            call = _call_record(engine.services.memory, session_id)
            if call is not None and call.extracted:
                return CallOutcome(session_id, extraction="done", profile=engine.services.memory.profile_view())
        return _process_call(engine, session_id, turns, started_at, ended_at, pauses_ms)


def _process_call(engine: CallEndEngine, session_id: str, turns: list[TurnRecord] | None,
                  started_at: float | None, ended_at: float, pauses_ms: list[float] | None = None) -> CallOutcome:
    memory = engine.services.memory
    call = _call_record(memory, session_id)
    if call is not None and call.ended_at is None:
        # The end time first: if this process dies during extraction, the next start
        # sees an ended, unextracted call and finishes it (tutor/recovery.py).
        memory.update_call(call.id, ended_at=_dt(ended_at))
    messages = [ChatMessage(m.role, m.text) for m, _ in memory.session_messages(session_id)]
    if turns is None:
        turns = _turns_from(memory, session_id)
    if started_at is None:
        started_at = call.started_at.timestamp() if call and call.started_at else ended_at
    outcome = CallOutcome(session_id)
    if len(messages) < extract.MIN_MESSAGES:
        outcome.extraction = "skipped"
    else:
        try:
            model = engine.services.chat_model()
            facts = extract.extract_facts(model, messages).facts  # the rule floor merged in
            outcome.extracted = facts.to_dict()
            if not facts.is_empty():
                from tutor_app.memory.profile.merge import merge_extracted

                merge_extracted(memory, facts.to_dict(), session_id=session_id)
            outcome.extraction = "done"
        except (TutorError, ValueError) as exc:
            # Malformed JSON was already retried once by complete_json: retry next start.
            outcome.extraction, outcome.error = "failed", str(exc)
            log.warning("extraction for %s failed: %s", session_id, exc)
            _merge_by_rules(memory, messages, session_id, outcome)
    corrections, new_words, source = _review(engine, messages, turns)
    outcome.practice = _practice(engine, session_id, corrections, new_words or [], turns)
    outcome.report = build_report(session_id, started_at, ended_at, turns, corrections, new_words, source,
                                  pauses_ms=pauses_ms)
    if pauses_ms is None and call is not None and call.report.get("pauses"):
        # Finished again later (tutor/recovery.py): the pauses were measured live and exist
        # only in the stored report; the thinking time learns from them.
        outcome.report.pauses = dict(call.report["pauses"])
    outcome.profile = memory.profile_view()
    if call is None:
        call = memory.record_call(session_id, _dt(started_at))
    memory.update_call(call.id, ended_at=_dt(ended_at), report=outcome.report.to_dict(),
                       extracted=outcome.extraction in ("done", "skipped"))
    return outcome


def _merge_by_rules(memory: MemoryStore, messages: list[ChatMessage], session_id: str, outcome: CallOutcome) -> None:
    """The model gave no usable extraction: keep what the learner plainly said about
    themselves (merging is idempotent, so the retry at next start adds, never doubles)."""
    from tutor_app.memory.profile.merge import merge_extracted
    from tutor_app.tutor.extract_rules import extract_by_rules

    facts = extract_by_rules(messages)
    if facts.is_empty():
        return
    merge_extracted(memory, facts.to_dict(), session_id=session_id)
    outcome.extracted, outcome.extraction = facts.to_dict(), "rules"


def _practice(engine: CallEndEngine, session_id: str, corrections: list[Correction], new_words: list[str],
              turns: list[TurnRecord]) -> dict[str, Any]:
    """The learning loop's part of call end: planned items judged, new ones kept."""
    store = getattr(engine.services, "practice", None)
    if store is None:
        return {}
    # Only the lines kept while memory was on (settings.memory_on): the end of the call
    # does not read "pause memory" again, nor use what was said while it was paused.
    kept = {m.text for m, _ in engine.services.memory.session_messages(session_id) if m.role == "user"}
    lines = [t.user_text for t in turns if t.user_text and t.user_text in kept]
    if not lines:
        return {}
    from tutor_app.practice.calls import after_call

    try:
        return after_call(store, session_id, corrections, new_words, lines).to_dict()
    except TutorError as exc:  # the report and the memory still count; the items wait
        log.warning("practice items of %s not updated: %s", session_id, exc)
        return {}


def _review(engine: CallEndEngine, messages: list[ChatMessage],
            turns: list[TurnRecord]) -> tuple[list[Correction], list[str] | None, str]:
    learner = [t.user_text for t in turns if t.user_text and t.kept]  # not what was said while paused
    if len(messages) < 2 or not learner:
        return [], [], "none"
    try:
        model = engine.services.chat_model()
        korean = engine.settings.tutor.explain_in_korean  # the learner asked for Korean explanations
        system, request = review.review_request(messages, korean)
        raw = model.complete_json(system, request, schema=review.REVIEW_SCHEMA)
        tutor = [m.content for m in messages if m.role == "assistant"]
        corrections, new_words = review.parse_review(raw, learner, tutor, _names(engine.services.memory), korean)
        # A model on this machine (llama.cpp, a local server) is small: the report says its
        # list may be short rather than implying the call had no mistakes.
        answered = str(getattr(model, "last_backend", None) or getattr(model, "name", ""))
        return corrections, new_words, ("local-model" if answered.startswith(("llama.cpp:", "server:"))
                                        else "model")
    except (TutorError, ValueError) as exc:
        log.info("review unavailable (%s): the report uses heuristics", exc)
        return [], None, "heuristic"


def _names(memory: MemoryStore) -> list[str]:
    """The learner's names in the profile (current and earlier): never a "new word"."""
    view = memory.profile_view()
    return [str(n) for n in [view.get("name"), *view.get("history", {}).get("name", [])] if n]


def _call_record(memory: MemoryStore, session_id: str) -> CallRecord | None:
    for call in memory.calls():
        if call.session_id == session_id:
            return call
    return None


def _turns_from(memory: MemoryStore, session_id: str) -> list[TurnRecord]:
    turns: list[TurnRecord] = []
    for message, _ in memory.session_messages(session_id):
        if message.role == "user":
            turns.append(TurnRecord(message.created_at.timestamp(), message.text, "", None,
                                    message.emotion or "neutral", message.emotion_score or 0.0))
        elif turns:
            turns[-1].reply = (turns[-1].reply + " " + message.text).strip()
    return turns


def _dt(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=timezone.utc)
