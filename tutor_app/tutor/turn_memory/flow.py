"""The per-turn memory flow of seed 001, in one place for the tutor engine:

learner text + emotions -> gate (store / temp memo) -> transcript line -> follow-up or
reset -> recall (+ carried memories) -> short-term memory -> selective history.
The engine builds the prompt from the returned `TurnMemory` with turn_memory.formatting.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tutor_app.core.types import top_emotion
from tutor_app.errors import TutorError
from tutor_app.memory.storage.models import Memory, MemoryHit
from tutor_app.tutor.turn_memory import formatting, gate
from tutor_app.tutor.turn_memory.followup import FollowupDecision, classify_with
from tutor_app.tutor.turn_memory.history import SelectiveHistory, selective_history
from tutor_app.tutor.turn_memory.stm import ShortTermStore

if TYPE_CHECKING:
    from tutor_app.core.types import EmotionScore
    from tutor_app.memory.ports import MemoryStore

log = logging.getLogger(__name__)


@dataclass
class TurnMemory:
    recalled: list[MemoryHit]
    stored: Memory | None
    gate: gate.GateDecision
    followup: FollowupDecision
    history: SelectiveHistory
    memos: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    _commit: "Callable[[], Memory | None] | None" = field(default=None, repr=False)

    def commit(self) -> "Memory | None":
        """Write this turn (once): the learner's line, a gated memory, short-term state."""
        commit, self._commit = self._commit, None
        return commit() if commit is not None else self.stored

    def prompt_blocks(self) -> str:
        """Recalled memories and temp memos, quoted as data (never as instructions)."""
        parts = [formatting.format_memories(self.recalled), formatting.format_memos(self.memos)]
        return "\n\n".join(p for p in parts if p)


def _importance(decision: gate.GateDecision) -> float:
    if decision.reason == "trigger":
        return 0.8  # the learner asked us to remember
    score = decision.emotion.score if decision.emotion else 0.6
    return round(min(1.0, 0.5 + 0.5 * score), 3)  # 0.6 -> 0.8, 1.0 -> 1.0


class MemoryFlow:
    def __init__(self, store: "MemoryStore", settings: Any = None, stm: ShortTermStore | None = None) -> None:
        self.store = store
        self.top_k = int(getattr(settings, "recall_top_k", 3))
        self.followup_similarity = float(getattr(settings, "followup_similarity", 0.5))
        self.stm = stm or ShortTermStore(store.profile, float(getattr(settings, "stm_ttl_hours", 24.0)))

    def on_learner_turn(self, session_id: str, text: str, emotions: "Sequence[EmotionScore] | None" = None,
                        off_record: bool = False) -> TurnMemory:
        """`off_record`: nothing of this turn is written (memory paused for the call)."""
        turn = self.prepare(session_id, text, emotions, off_record)
        turn.commit()
        return turn

    def prepare(self, session_id: str, text: str, emotions: "Sequence[EmotionScore] | None" = None,
                off_record: bool = False) -> TurnMemory:
        """Everything the prompt needs, with nothing written yet: `TurnMemory.commit()`
        writes the learner's line, the gated memory and the short-term state. A live call
        commits only once the turn is really the learner's (a speculative turn the learner
        talked on through is dropped without a trace)."""
        import time

        t0 = time.perf_counter()
        st = self.stm.session(session_id)
        previous, previous_vec = st.last_question, st.last_vector
        decision = gate.decide(text, emotions)
        fu = classify_with(self.store.embedder, text, previous, self.followup_similarity,
                           previous_vector=previous_vec)
        result = self.store.recall(text, emotions, k=self.top_k, context=previous if fu.keep_context else "")
        hits = list(result.hits[: self.top_k])
        if fu.keep_context:  # seed 002: a follow-up keeps the previous turn's memories
            seen = {h.id for h in hits}
            live = self.store.index().pos  # a memory deleted since (maybe by another process) stays out
            hits += [h for h in st.recalled() if h.id not in seen and h.id in live]
        history = selective_history(self.store, session_id, text,
                                    query_vector=result.query_vector)
        memos = st.notes() + ([decision.temp_memo] if decision.temp_memo else [])
        timings = dict(result.timings_ms)
        timings["memory_total"] = (time.perf_counter() - t0) * 1000
        turn = TurnMemory(hits, None, decision, fu, history, memos, timings)

        def commit() -> Memory | None:
            if decision.temp_memo:
                st.add_note(decision.temp_memo)
            elif decision.store and not off_record:
                try:
                    turn.stored = self.store.add(
                        gate.memory_text(text), source=decision.source, session_id=session_id,
                        emotion=decision.emotion, importance=_importance(decision),
                        memory_type="episodic" if decision.reason == "emotion" else "semantic")
                except TutorError as exc:  # e.g. a whole speech is too long to be one memory
                    log.info("not stored as a memory: %s", exc)
            if not off_record:
                top = top_emotion(emotions, neutral_ok=False)
                self.store.add_message(session_id, "user", text, emotion=top.label if top else "",
                                       emotion_score=top.score if top else None)
            st.set_recalled(hits)
            st.set_question(text, result.query_vector)
            st.add_turn(text)
            return turn.stored

        turn._commit = commit
        return turn

    def on_tutor_reply(self, session_id: str, text: str, off_record: bool = False) -> None:
        """What the tutor actually said (after barge-in: only the spoken part)."""
        self.stm.session(session_id).set_reply(text)
        if not off_record and text.strip():
            self.store.add_message(session_id, "assistant", text)

