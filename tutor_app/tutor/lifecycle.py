"""Call end, in the background: extraction of learner facts (seed 000) merged into memory,
the review (corrections, new words) and the call report. A call whose extraction failed
or was interrupted is finished at the next start (`finish_pending`)."""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from tutor_app.core.types import ChatMessage
from tutor_app.errors import TutorError
from tutor_app.tutor import extract, review
from tutor_app.tutor.report import CallReport, TurnRecord, build_report

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

    def to_json(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "extraction": self.extraction,
                "extracted": self.extracted, "profile": self.profile,
                "report": self.report.to_dict() if self.report else None, "error": self.error}


def finish_call(engine, session_id: str, turns: list[TurnRecord], started_at: float,
                background: bool = True, on_done: Callable[[CallOutcome], None] | None = None,
                pauses_ms: list[float] | None = None):
    """Mark the call ended now; run extraction + review + report (in a thread if asked).
    `pauses_ms`: the learner's within-turn pauses (a live call), kept in the report."""
    ended_at = engine.services.clock()

    def work() -> CallOutcome:
        outcome = process_call(engine, session_id, turns, started_at, ended_at, pauses_ms)
        if on_done:
            on_done(outcome)
        return outcome

    if not background:
        return work()
    thread = threading.Thread(target=_safe(work), name=f"call-end-{session_id}", daemon=False)
    thread.start()
    return thread


def _safe(fn: Callable[[], Any]) -> Callable[[], None]:
    def run() -> None:
        try:
            fn()
        except Exception:  # noqa: BLE001 - a background failure is logged, retried next start
            log.exception("call-end processing failed")
    return run


def process_call(engine, session_id: str, turns: list[TurnRecord] | None, started_at: float | None,
                 ended_at: float, pauses_ms: list[float] | None = None) -> CallOutcome:
    memory = engine.services.memory
    call = _call_record(memory, session_id)
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
                from tutor_app.memory.merge import merge_extracted

                merge_extracted(memory, facts.to_dict(), session_id=session_id)
            outcome.extraction = "done"
        except (TutorError, ValueError) as exc:
            # Malformed JSON was already retried once by complete_json: retry next start.
            outcome.extraction, outcome.error = "failed", str(exc)
            log.warning("extraction for %s failed: %s", session_id, exc)
            _merge_by_rules(memory, messages, session_id, outcome)
    corrections, new_words, source = _review(engine, messages, turns)
    outcome.report = build_report(session_id, started_at, ended_at, turns, corrections, new_words, source,
                                  pauses_ms=pauses_ms)
    if pauses_ms is None and call is not None and call.report.get("pauses"):
        # Finished again later (finish_pending): the pauses were measured live and exist
        # only in the stored report; the thinking time learns from them.
        outcome.report.pauses = dict(call.report["pauses"])
    outcome.profile = memory.profile_view()
    if call is None:
        call = memory.record_call(session_id, _dt(started_at))
    memory.update_call(call.id, ended_at=_dt(ended_at), report=outcome.report.to_dict(),
                       extracted=outcome.extraction in ("done", "skipped"))
    return outcome


def _merge_by_rules(memory, messages: list[ChatMessage], session_id: str, outcome: CallOutcome) -> None:
    """The model gave no usable extraction: keep what the learner plainly said about
    themselves (merging is idempotent, so the retry at next start adds, never doubles)."""
    from tutor_app.memory.merge import merge_extracted
    from tutor_app.tutor.extract_rules import extract_by_rules

    facts = extract_by_rules(messages)
    if facts.is_empty():
        return
    merge_extracted(memory, facts.to_dict(), session_id=session_id)
    outcome.extracted, outcome.extraction = facts.to_dict(), "rules"


def finish_pending(engine, include_open: bool = False, exclude: str | None = None) -> list[CallOutcome]:
    """Finish calls whose end-of-call work never completed (failed or app killed).
    `include_open`: also calls that never ended (the GUI owns calls; the CLI doesn't)."""
    memory = engine.services.memory
    done = []
    for call in memory.calls():
        if call.extracted or call.session_id == exclude:
            continue
        if call.ended_at is None and not include_open:
            continue
        ended = call.ended_at.timestamp() if call.ended_at else engine.services.clock()
        done.append(process_call(engine, call.session_id, None, None, ended))
    return done


def _review(engine, messages: list[ChatMessage], turns: list[TurnRecord]):
    learner = [t.user_text for t in turns if t.user_text]
    if len(messages) < 2 or not learner:
        return [], [], "none"
    try:
        model = engine.services.chat_model()
        system, request = review.review_request(messages)
        raw = model.complete_json(system, request, schema=review.REVIEW_SCHEMA)
        corrections, new_words = review.parse_review(raw, learner)
        return corrections, new_words, "model"
    except (TutorError, ValueError) as exc:
        log.info("review unavailable (%s): the report uses heuristics", exc)
        return [], None, "heuristic"


def _call_record(memory, session_id: str):
    for call in memory.calls():
        if call.session_id == session_id:
            return call
    return None


def _turns_from(memory, session_id: str) -> list[TurnRecord]:
    turns: list[TurnRecord] = []
    for message, _ in memory.session_messages(session_id):
        if message.role == "user":
            turns.append(TurnRecord(message.created_at.timestamp(), message.text, "", None,
                                    message.emotion or "neutral", 0.0))
        elif turns:
            turns[-1].reply = (turns[-1].reply + " " + message.text).strip()
    return turns


def _dt(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=timezone.utc)
