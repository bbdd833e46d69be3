"""The turn pipeline: (STT) -> emotion -> guardrail -> gate/store -> recall -> history ->
prompt -> streamed LLM -> sentence splitter -> per-sentence callback -> persisted turn.

`TutorEngine` holds the services; `start_call()` gives a `CallSession` whose `turn()`
runs one turn on the caller's thread (the engine thread in a live call) and whose
`end()` hands extraction and the report to a background thread (tutor/lifecycle.py).
"""
from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tutor_app.core.cancel import CancelToken
from tutor_app.core.sentences import SentenceSplitter
from tutor_app.core.types import AudioClip, ChatMessage, EmotionScore
from tutor_app.errors import TutorError
from tutor_app.settings import Settings
from tutor_app.tutor.prompts import PromptInputs, RecalledItem, build_prompt
from tutor_app.tutor.report import TurnRecord
from tutor_app.tutor.turn import StageClock, TurnResult

log = logging.getLogger(__name__)

SORRY_OFFLINE = "Sorry, I lost my connection to the tutor model for a moment. Could you say that again?"
SORRY_EMPTY = "Sorry, I didn't catch that. Could you say it again?"
RECENT_WINDOW = 10


@dataclass
class EngineServices:
    settings: Settings
    emotion: Any  # EmotionScorer
    memory: Any  # memory.store.ProfileMemory
    chat_model: Callable[[], Any]  # lazy: the LLM loads on the first turn that needs it
    stt: Callable[[], Any] | None = None
    clock: Callable[[], float] = time.time


class TutorEngine:
    def __init__(self, services: EngineServices) -> None:
        self.services = services

    @property
    def settings(self) -> Settings:
        return self.services.settings

    def start_call(self, session_id: str | None = None, off_record: bool = False) -> "CallSession":
        return CallSession(self, session_id or new_session_id(), off_record)

    def warm_up(self) -> None:
        """Load the tutor model (and import its SDK) ahead of the first turn; background use."""
        try:
            model = self.services.chat_model()
            warm = getattr(model, "warm_up", None)
            if warm:
                warm()
        except TutorError as exc:
            log.warning("tutor model warm-up failed: %s", exc)


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


@dataclass
class _Previous:
    question: str = ""
    hits: list[Any] = field(default_factory=list)
    vector: Any = None


class CallSession:
    """One call: its turns, short-term memory and guardrail state."""

    def __init__(self, engine: TutorEngine, session_id: str, off_record: bool) -> None:
        from tutor_app.emotion.guardrail import Guardrail
        from tutor_app.memory.stm import ShortTermMemory

        self.engine = engine
        self.session_id = session_id
        self.off_record = off_record
        s = engine.services
        self.started_at = s.clock()
        self.turns: list[TurnRecord] = []
        self.guardrail = Guardrail(engine.settings.emotion)
        self.stm = ShortTermMemory(ttl_seconds=engine.settings.memory.stm_ttl_hours * 3600, clock=s.clock)
        self._previous = _Previous()
        self._transcript: list[ChatMessage] = []  # off-the-record calls keep history only here
        self._call_id: str | None = None
        self.ended = False
        if not off_record:
            self._resume()

    # -- public -----------------------------------------------------------------------
    @property
    def memory_on(self) -> bool:
        return not self.off_record and self.engine.settings.memory.enabled

    def turn_audio(self, clip: AudioClip, on_sentence: Callable[[str], None] | None = None,
                   cancel: CancelToken | None = None) -> TurnResult:
        clock = StageClock()
        stt = self.engine.services.stt() if self.engine.services.stt else None
        if stt is None:
            raise TutorError("speech recognition is not available")
        transcript = stt.transcribe(clip)
        clock.mark("stt")
        result = self.turn(transcript.text, on_sentence, cancel, speech_seconds=clip.seconds, clock=clock)
        result.transcript = transcript.text
        return result

    def turn(self, text: str, on_sentence: Callable[[str], None] | None = None,
             cancel: CancelToken | None = None, speech_seconds: float | None = None,
             clock: StageClock | None = None,
             on_emotion: Callable[[list[EmotionScore]], None] | None = None,
             spoken: Callable[[str], str] | None = None) -> TurnResult:
        """`on_emotion(scores)` runs as soon as the emotion is read (live call: the UI shows
        it before the reply); `spoken(reply) -> heard` runs before the turn is stored, so a
        live call can wait for playback and keep only what the learner heard (barge-in)."""
        if self.ended:
            raise TutorError("this call has ended; start a new one")
        clock = clock or StageClock()
        text = (text or "").strip()
        if not text:
            return TurnResult(user_text="", reply="", timings_ms=clock.timings)
        s = self.engine.services
        settings = self.engine.settings

        scores = s.emotion.score(text)
        top3 = scores[:3]
        clock.mark("emotion")
        if on_emotion:
            on_emotion(scores)
        decision = self.guardrail.check(text, scores)
        clock.mark("guardrail")
        if decision.kind == "crisis":
            # The safe reply is fixed and the words are not used for tutoring or memory.
            reply = decision.reply or ""
            if on_sentence:
                on_sentence(reply)
            if spoken:
                reply = spoken(reply)
            self._record(text, reply, scores, speech_seconds, store_user=False)
            clock.since_start("total")
            return TurnResult(text, reply, top3, [], [], "crisis", clock.timings)

        stored = self._gate(text, scores)
        clock.mark("gate")
        hits, query_vector = self._recall(text, scores)
        clock.mark("recall")
        recent, earlier = self._history(text, query_vector)
        clock.mark("history")
        top = next((e for e in scores if e.label != "neutral"), scores[0] if scores else None)
        prompt = build_prompt(PromptInputs(
            tutor=settings.tutor, user_text=text,
            profile=s.memory.profile_view() if self.memory_on else {},
            recalled=[RecalledItem(h.text, h.reason) for h in hits],
            session_notes=self.stm.notes(), history=recent, earlier=earlier,
            emotion=top, guardrail_instruction=decision.instruction,
        ))
        clock.mark("prompt")
        reply, interrupted, error, backend = self._generate(prompt, on_sentence, cancel, clock)
        if spoken:
            reply = spoken(reply)
        self._record(text, reply, scores, speech_seconds)
        clock.mark("persist")
        clock.since_start("total")
        return TurnResult(
            user_text=text, reply=reply, emotion=top3,
            recalled=[h.to_dict() for h in hits], stored=stored, guardrail=decision.kind,
            timings_ms=clock.timings, interrupted=interrupted, error=error, backend=backend,
        )

    def end(self, background: bool = True):
        """End the call; extraction and the report run in a background thread (returned)."""
        from tutor_app.tutor.lifecycle import finish_call

        self.ended = True
        if self.off_record:
            return None
        return finish_call(self.engine, self.session_id, self.turns, self.started_at,
                           background=background)

    # -- stages -----------------------------------------------------------------------
    def _gate(self, text: str, scores: list[EmotionScore]) -> list[str]:
        from tutor_app.memory import gate

        decision = gate.decide(text, scores)
        if decision.reason == "temp_memo":
            self.stm.add_note(decision.temp_memo)  # lives only in this call's memory
            return []
        if not decision.store or not self.memory_on:
            return []
        memory = self.engine.services.memory.add(
            gate.memory_text(text), category="emotion" if decision.reason == "emotion" else "",
            memory_type="episodic", importance=0.8 if decision.reason == "trigger" else 0.6,
            source=decision.source, session_id=self.session_id, emotion=decision.emotion,
        )
        return [memory.id]

    def _recall(self, text: str, scores: list[EmotionScore]) -> tuple[list[Any], Any]:
        from tutor_app.memory.followup import classify

        memory = self.engine.services.memory
        if not self.memory_on:
            return [], None
        k = self.engine.settings.memory.recall_top_k
        result = memory.recall(text, emotions=scores, k=k, context=self._previous.question)
        kind = classify(text, self._previous.question, result.query_vector, self._previous.vector,
                        self.engine.settings.memory.followup_similarity)
        hits = list(result.hits)
        if kind == "followup" and self._previous.hits:
            known = {h.id for h in hits}
            hits = (hits + [h for h in self._previous.hits if h.id not in known])[:k]
        elif kind == "reset":
            hits = []
        self._previous = _Previous(text, hits, result.query_vector)
        self.stm.set_recalled(hits)
        return hits, result.query_vector

    def _history(self, text: str, query_vector: Any) -> tuple[list[ChatMessage], list[ChatMessage]]:
        from tutor_app.memory.history import select_history

        if not self.memory_on:
            return self._transcript[-RECENT_WINDOW:], []
        return select_history(self.engine.services.memory, self.session_id, query_vector,
                              recent=RECENT_WINDOW)

    def _generate(self, prompt, on_sentence, cancel, clock: StageClock) -> tuple[str, bool, str | None, str]:
        """Stream the reply, hand out whole sentences as they end, stop on cancel. Returns
        (delivered text, interrupted, error line, backend name)."""
        token = cancel or CancelToken()
        splitter = SentenceSplitter()
        delivered: list[str] = []
        backend = ""
        first_token = first_sentence = False

        def emit(sentence: str) -> None:
            nonlocal first_sentence
            if token.cancelled:
                return
            if not first_sentence:
                clock.since_start("first_sentence")
                first_sentence = True
            delivered.append(sentence)
            if on_sentence:
                on_sentence(sentence)

        try:
            model = self.engine.services.chat_model()
            backend = getattr(model, "name", "")
            for delta in model.stream(prompt.system_parts, prompt.messages, token):
                if token.cancelled:
                    break
                if not first_token:
                    clock.since_start("first_token")
                    first_token = True
                for sentence in splitter.feed(delta):
                    emit(sentence)
            if not token.cancelled:
                for sentence in splitter.flush():
                    emit(sentence)
            backend = getattr(model, "last_backend", None) or backend
            fallback = getattr(model, "last_fallback_reason", None)
            if fallback:
                # The turn was answered by the local model: say so once, briefly.
                clock.mark("llm")
                return " ".join(delivered), token.cancelled, f"offline: local tutor ({fallback})", backend
        except TutorError as exc:
            clock.mark("llm")
            log.warning("tutor model failed: %s", exc)
            if not delivered and not token.cancelled:
                emit(SORRY_OFFLINE)
            return " ".join(delivered), False, str(exc), backend
        clock.mark("llm")
        if not delivered and not token.cancelled:
            emit(SORRY_EMPTY)  # the model returned nothing: never leave the learner hanging
        return " ".join(delivered), token.cancelled, None, backend

    def _record(self, text: str, reply: str, scores: list[EmotionScore], speech_seconds: float | None,
                store_user: bool = True) -> None:
        s = self.engine.services
        top = next((e for e in scores if e.label != "neutral"), scores[0] if scores else EmotionScore("neutral", 1.0))
        now = s.clock()
        self.turns.append(TurnRecord(now, text if store_user else "", reply, speech_seconds, top.label, top.score))
        self.stm.add_turn(text if store_user else "", reply)
        self._transcript += [ChatMessage("user", text if store_user else "(not recorded)"), ChatMessage("assistant", reply)]
        if self.off_record:
            return
        self._ensure_call_record()
        if store_user:
            s.memory.add_message(self.session_id, "user", text, emotion=top.label)
        if reply:
            s.memory.add_message(self.session_id, "assistant", reply, embed=False)

    # -- persistence --------------------------------------------------------------------
    def _ensure_call_record(self) -> None:
        from datetime import datetime, timezone

        if self._call_id is None:
            started = datetime.fromtimestamp(self.started_at, tz=timezone.utc)
            self._call_id = self.engine.services.memory.record_call(self.session_id, started).id

    def _resume(self) -> None:
        """A session id seen before (a restart, or `chat --session S` again) continues it."""
        memory = self.engine.services.memory
        for call in memory.calls():
            if call.session_id == self.session_id:
                self._call_id = call.id
                if call.started_at is not None:
                    self.started_at = call.started_at.timestamp()
        if self._call_id is None:
            return
        for message, _ in memory.session_messages(self.session_id):
            self._transcript.append(ChatMessage(message.role, message.text))
            if message.role == "user":
                self._previous = _Previous(message.text)
                self.turns.append(TurnRecord(message.created_at.timestamp(), message.text, "", None,
                                             message.emotion or "neutral", 0.0))
            elif self.turns:
                self.turns[-1].reply = message.text
