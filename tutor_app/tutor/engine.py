"""The turn pipeline: (STT) -> emotion -> guardrail -> gate/store -> recall -> history ->
prompt -> streamed LLM -> sentence splitter -> parrot check -> per-sentence callback ->
persisted turn (the streamed reply: tutor/reply_stream.py).

`TutorEngine` holds the services; `start_call()` gives a `Conversation` whose `turn()`
runs one turn on the caller's thread (the turns thread in a live call) and whose
`end()` hands extraction and the report to the call-end runner (tutor/call_end.py).
"""
from __future__ import annotations

import functools
import logging
import time
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from tutor_app.core.cancel import CancelToken, TurnHandle
from tutor_app.core.protocols import ChatModel, EmotionScorer, ReadsAhead
from tutor_app.core.types import AudioClip, ChatMessage, EmotionScore, top_emotion
from tutor_app.errors import TutorError
from tutor_app.memory.ports import MemoryStore
from tutor_app.practice.ports import PracticeBook
from tutor_app.settings import Settings
from tutor_app.settings import memory_on as memory_rule
from tutor_app.speech.bias import transcribe_with
from tutor_app.speech.ports import SpeechToText
from tutor_app.tutor.hear_again import Ear, hear_again
from tutor_app.tutor.heard import not_heard_turn
from tutor_app.tutor.korean_help import built_in_help
from tutor_app.tutor.prompts import PromptInputs, RecalledItem, build_compact_prompt, stable_system
from tutor_app.tutor.reply_stream import (  # noqa: F401 - the apologies, named here by the call loop's tests
    MAX_SENTENCES,
    SORRY_EMPTY,
    SORRY_KEY,
    SORRY_OFFLINE,
    SWITCHED,
    generate,
    reply_request,
)
from tutor_app.tutor.report import TurnRecord
from tutor_app.tutor.turn import StageClock, TurnResult
from tutor_app.tutor.turn_memory.history import RECENT

if TYPE_CHECKING:
    from tutor_app.memory.storage.purge import PurgeResult
    from tutor_app.speech.bias import BiasList
    from tutor_app.tutor.call_end import CallEndJob
    from tutor_app.tutor.lifecycle import CallOutcome
    from tutor_app.tutor.turn_memory.history import SelectiveHistory

log = logging.getLogger(__name__)

NEXT_LINE = "..."  # the learner's next line in a read ahead's prompt: not known yet, any text holds its place


@dataclass
class EngineServices:
    settings: Settings
    emotion: EmotionScorer
    memory: MemoryStore  # memory.store.ProfileMemory
    chat_model: Callable[[], ChatModel]  # lazy: the LLM loads on the first turn that needs it
    stt: Callable[[], SpeechToText] | None = None
    clock: Callable[[], float] = time.time
    practice: PracticeBook | None = None  # practice.store.PracticeStore: mistakes and words brought back


class TutorEngine:
    def __init__(self, services: EngineServices) -> None:
        from tutor_app.tutor.turn_memory.flow import MemoryFlow
        from tutor_app.tutor.turn_memory.stm import ShortTermStore

        self.services = services
        mem = services.settings.memory
        self.stm = ShortTermStore(services.memory.profile, mem.stm_ttl_hours, services.clock)
        self.memory_flow = MemoryFlow(services.memory, mem, stm=self.stm)
        self._calls: weakref.WeakSet[Conversation] = weakref.WeakSet()
        if hasattr(services.memory, "on_forget"):  # a deleted exchange leaves the live history too
            services.memory.on_forget(self._forgotten)

    @property
    def settings(self) -> Settings:
        return self.services.settings

    def start_call(self, session_id: str | None = None, off_record: bool = False) -> "Conversation":
        call = Conversation(self, session_id or new_session_id(), off_record)
        self._calls.add(call)
        return call

    def _forgotten(self, result: PurgeResult) -> None:
        """memory/purge.PurgeResult: drop the deleted lines from what the calls hold in memory."""
        self.stm.forget_deleted(result)
        for call in list(self._calls):
            call.forget(result.texts, everything=result.everything)

    def stt_bias(self) -> BiasList:
        """The names this profile's memories hold, for Whisper (speech/bias.py). A memory
        read: each call builds it once (`Conversation.stt_bias`)."""
        from tutor_app.speech.bias import build_bias

        return build_bias(self.services.memory)

    def warm_up(self) -> None:
        """Load the tutor model (and import its SDK) ahead of the first turn; background use."""
        try:
            model = self.services.chat_model()
            warm = getattr(model, "warm_up", None)
            if warm:
                warm()
        except TutorError as exc:
            log.warning("tutor model warm-up failed: %s", exc)


def compact_prompt(chat_model: Callable[[], ChatModel]) -> bool:
    """Does the tutor model want the short prompt (a small local model)? A model that
    cannot be had now gets the full one; the turn then reports its error as usual."""
    try:
        return bool(getattr(chat_model(), "compact_prompt", False))
    except TutorError:
        return False


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


class Conversation:
    """One conversation, a voice call or a text chat (its id: the session id): turns, guardrail, memory."""

    def __init__(self, engine: TutorEngine, session_id: str, off_record: bool) -> None:
        from tutor_app.emotion.guardrail import Guardrail

        self.engine = engine
        self.session_id = session_id
        self.off_record = off_record
        self.started_at = engine.services.clock()
        self.turns: list[TurnRecord] = []
        self.guardrail = Guardrail.from_settings(engine.settings.emotion)
        self._transcript: list[ChatMessage] = []  # off-the-record calls keep history only here
        self._call_id: str | None = None
        self.ended = False
        if not off_record:
            self._resume()

    # -- public -----------------------------------------------------------------------
    @property
    def memory_on(self) -> bool:  # what is said now is remembered: settings.memory_on, the one rule
        return memory_rule(self.engine.settings, self.off_record)

    def prefill_prompt(self) -> None:
        """A local model reads the stable start of this call's prompt (persona, rules,
        settings, the learner's name, the plan) before the first turn, while the greeting
        plays (llm/prefix_cache.py); nothing to do for a cloud model."""
        s = self.engine.services
        model = s.chat_model()
        prefill = getattr(model, "prefill", None)
        if prefill is None:
            return
        inputs = PromptInputs(tutor=self.engine.settings.tutor, user_text="", profile=s.memory.profile_view(),
                              practice_plan=self.practice_plan)
        prefill(stable_system(inputs, compact=bool(getattr(model, "compact_prompt", False))))

    def read_ahead(self) -> None:
        """A local model reads the next turn's prompt up to the learner's line now, while
        the learner answers (a live call's turn ends once its reply has played;
        llm/read_ahead.py): the next turn then reads only the line. After each reply and
        the greeting; nothing for a cloud model or a local one given the full prompt (its
        memories and emotion come before the history and change every turn)."""
        s = self.engine.services
        try:
            model = s.chat_model()
            if not isinstance(model, ReadsAhead) or not compact_prompt(lambda: model):
                return
            # The window the next turn's prompt will be built from (_history): the stored
            # one holds the next line too, which the turn takes out.
            window = self._transcript[-(RECENT - 1):] if self.memory_on else self._transcript[-RECENT:]
            inputs = PromptInputs(tutor=self.engine.settings.tutor, user_text=NEXT_LINE,
                                  profile=s.memory.profile_view(), history=window, practice_plan=self.practice_plan)
            prompt = build_compact_prompt(inputs, turn=len(self.turns))
            model.read_ahead(prompt.system_parts, prompt.messages)
        except Exception as exc:  # noqa: BLE001 - only time is at stake: the turn is answered and kept
            log.warning("no read ahead of the next prompt (%s: %s)", type(exc).__name__, exc)

    @functools.cached_property
    def practice_plan(self) -> str:
        """The call's quiet practice plan (the items due now), made on first use and kept
        with the call so its end can judge them. None off the record or without memory."""
        store = self.engine.services.practice
        if store is None or not self.memory_on:
            return ""
        from tutor_app.practice.calls import start_plan

        try:
            return start_plan(store, self.session_id)
        except TutorError as exc:  # an unreadable practice file must not cost the call
            log.warning("no practice plan: %s", exc)
            return ""

    @functools.cached_property
    def stt_bias(self) -> BiasList:
        """This call's bias list for speech recognition, built on first use."""
        return self.engine.stt_bias()

    def turn_audio(self, clip: AudioClip, on_sentence: Callable[[str], None] | None = None,
                   cancel: CancelToken | None = None, ear: Ear | None = None) -> TurnResult:
        """`ear`: the multilingual Whisper, when installed, for a turn that may be Korean."""
        clock = StageClock()
        stt = self.engine.services.stt() if self.engine.services.stt else None
        if stt is None:
            raise TutorError("speech recognition is not available")
        transcript = transcribe_with(stt, clip, self.stt_bias)
        clock.mark("stt")
        again = hear_again(clip, transcript, ear)  # not understood as English: Korean, or clearer English?
        if again is not None and again.text:
            clock.mark("heard_again")
            result = self.turn(again.text, on_sentence, cancel, speech_seconds=clip.seconds, clock=clock,
                               remember=again.remember)
            result.transcript = again.text
            return result
        not_heard = not_heard_turn(transcript, on_sentence, clock)  # not English, or not clear: never stored
        if not_heard is not None:
            return not_heard
        result = self.turn(transcript.text, on_sentence, cancel, speech_seconds=clip.seconds, clock=clock,
                           transcript=transcript)
        result.transcript = transcript.text
        return result

    def turn(self, text: str, on_sentence: Callable[[str], None] | None = None,
             cancel: TurnHandle | None = None, speech_seconds: float | None = None,
             clock: StageClock | None = None,
             on_emotion: Callable[[list[EmotionScore]], None] | None = None,
             spoken: Callable[[str], str] | None = None, transcript: Any = None,
             remember: bool = True) -> TurnResult:
        """`cancel` is the turn's one interruption handle (a live call's TutorTurn, or a
        CancelToken): the model stops when it is cancelled, and the learner's words are
        stored only once it is committed (a speculative turn the learner talked on through
        comes back with `retracted` set and leaves nothing behind). `on_emotion(scores)` runs
        as soon as the emotion is read; `spoken(reply) -> heard` runs before the reply is
        stored, so a live call keeps only what the learner heard (barge-in). `remember=False`:
        the learner's words are answered but never stored (spoken Korean, tutor/hear_again.py)."""
        if self.ended:
            raise TutorError("this call has ended; start a new one")
        clock = clock or StageClock()
        handle: TurnHandle = cancel or CancelToken()
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
            return self._fixed_reply(text, [decision.reply or ""], scores, handle, clock, on_sentence, spoken,
                                     speech_seconds, "crisis")
        helped = built_in_help(text, self._transcript, settings.tutor.topic, lambda: compact_prompt(s.chat_model))
        if helped is not None:  # a help request the small offline model could not read (tutor/korean_help.py)
            return self._fixed_reply(text, list(helped.sentences), scores, handle, clock, on_sentence, spoken,
                                     speech_seconds, decision.kind, helped.backend)

        kept = self.memory_on and remember  # decided once per turn: the line, and the report's count of it
        flow = self.engine.memory_flow.prepare(self.session_id, text, scores, off_record=not kept)
        clock.timings.update({f"memory_{k}": round(v, 2) for k, v in flow.timings_ms.items()
                              if k != "memory_total"})
        clock.mark("memory")
        recent, earlier = self._history(text, flow.history)
        inputs = PromptInputs(
            tutor=settings.tutor, user_text=text,
            profile=s.memory.profile_view(),  # read-only: off the record is not amnesia
            recalled=[RecalledItem(h.text, h.reason) for h in flow.recalled],
            session_notes=flow.memos, history=recent, earlier=earlier,
            emotion=top_emotion(scores), guardrail_instruction=decision.instruction,
            practice_plan=self.practice_plan,
        )
        request = reply_request(inputs, compact_prompt(s.chat_model), len(self.turns))
        clock.mark("prompt")

        def store_when_committed(block: bool) -> bool:
            """Write the learner's turn once it is really theirs (at once for a plain turn)."""
            if flow._commit is None:
                return True
            if not (handle.wait_committed() if block else handle.committed):
                return False
            if self._call_id is None and kept:
                self._ensure_call_record()
            flow.commit()
            return True

        store_when_committed(block=False)
        gen = generate(s.chat_model, request, on_sentence, handle, clock, lambda: store_when_committed(block=False))
        if not store_when_committed(block=True):
            return self._retracted(text, clock)
        reply = spoken(gen.text) if spoken else gen.text
        # An apology or notice is what the app said, not the tutor: shown and spoken, never
        # stored or sent back to the model as the tutor's words.
        tutor_words = "" if gen.apology else reply.removeprefix(gen.notice).strip()
        if remember:
            self._record(text, tutor_words, scores, speech_seconds, kept, transcript)
        else:  # kept like a built-in help answer (_fixed_reply): the reply, not the words
            self._record("", tutor_words, scores, speech_seconds, self.memory_on)
        clock.mark("persist")
        clock.since_start("total")
        self.read_ahead()
        return TurnResult(
            user_text=text, reply=reply, emotion=top3,
            recalled=[h.to_dict() for h in flow.recalled],
            stored=[flow.stored.id] if flow.stored is not None else [], guardrail=decision.kind,
            timings_ms=clock.timings, interrupted=gen.interrupted or handle.cancelled, error=gen.error,
            backend=gen.backend, problem=gen.problem, fallback=gen.fallback,
        )

    def _fixed_reply(self, text: str, sentences: list[str], scores: list[EmotionScore], handle: TurnHandle,
                     clock: StageClock, on_sentence: Callable[[str], None] | None,
                     spoken: Callable[[str], str] | None, speech_seconds: float | None, guardrail: str | None,
                     backend: str = "") -> TurnResult:
        """A reply the app composed, not the model (the crisis line, a built-in help answer):
        said, and kept in the call's own history; the learner's words are not stored."""
        for sentence in sentences:
            if on_sentence:
                on_sentence(sentence)
        if not handle.wait_committed():
            return self._retracted(text, clock)
        reply = " ".join(sentences)
        if spoken:
            reply = spoken(reply)
        self._record("", reply, scores, speech_seconds, kept=self.memory_on)
        clock.since_start("total")
        self.read_ahead()
        return TurnResult(text, reply, scores[:3], [], [], guardrail, clock.timings, backend=backend)

    def _retracted(self, text: str, clock: StageClock) -> TurnResult:
        """The learner went on talking before this turn was committed: nothing kept."""
        clock.since_start("total")
        return TurnResult(user_text=text, reply="", timings_ms=clock.timings, retracted=True)

    def end(self, background: bool = True) -> "CallEndJob[CallOutcome] | CallOutcome | None":
        """End the call; extraction and the report run on the call-end runner (its job is
        returned), or now when not `background`. None off the record."""
        from tutor_app.tutor.lifecycle import finish_call

        self.ended = True
        if self.off_record:
            return None
        return finish_call(self.engine, self.session_id, self.turns, self.started_at,
                           background=background)

    def forget(self, texts: set[str], everything: bool = False) -> None:
        """Deleted lines are not sent to the model again, nor kept for the call report."""
        self._transcript = [] if everything else [m for m in self._transcript if m.content not in texts]
        self.turns = [] if everything else [t for t in self.turns if t.user_text not in texts]
        for t in self.turns:
            if t.reply in texts:
                t.reply = ""

    # -- stages -----------------------------------------------------------------------
    def _history(self, text: str, history: SelectiveHistory) -> tuple[list[ChatMessage], list[ChatMessage]]:
        """(recent window, relevant older turns). The store already holds this turn's
        learner line: it is the current message, not history."""
        if not self.memory_on:
            return self._transcript[-RECENT:], []  # the same window as the stored history
        recent = [ChatMessage(m.role, m.text) for m in history.recent]
        if recent and recent[-1].role == "user" and recent[-1].content == text:
            recent.pop()
        return recent, [ChatMessage(m.role, m.text) for m in history.relevant]

    def _record(self, text: str, reply: str, scores: list[EmotionScore], speech_seconds: float | None,
                kept: bool, transcript: Any = None) -> None:
        """`text` is "" for a turn that must not be kept (crisis); `kept`: memory was on for it
        (else the report leaves it out). `transcript`: the timed Transcript of a spoken turn."""
        from tutor_app.tutor.fluency import turn_fluency

        s = self.engine.services
        top = top_emotion(scores) or EmotionScore("neutral", 1.0)
        fluency = turn_fluency(transcript.segments, transcript.pauses) if transcript is not None and text else None
        self.turns.append(TurnRecord(s.clock(), text, reply, speech_seconds, top.label, top.score, fluency, kept))
        self._transcript += [ChatMessage("user", text or "(not recorded)"), ChatMessage("assistant", reply)]
        self.engine.memory_flow.on_tutor_reply(self.session_id, reply, off_record=not self.memory_on or not text)

    # -- persistence --------------------------------------------------------------------
    def _ensure_call_record(self) -> None:
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
        stm = self.engine.stm.session(self.session_id)  # the last question survives a restart
        for message, _ in memory.session_messages(self.session_id):
            if message.role == "user":
                stm.set_question(message.text)
                stm.add_turn(message.text)
            else:
                stm.set_reply(message.text)
            self._transcript.append(ChatMessage(message.role, message.text))
            if message.role == "user":
                self.turns.append(TurnRecord(message.created_at.timestamp(), message.text, "", None,
                                             message.emotion or "neutral", message.emotion_score or 0.0))
            elif self.turns:
                self.turns[-1].reply = message.text
