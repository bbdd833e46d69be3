"""The per-turn flow the tutor engine uses (gate -> recall -> STM -> history)."""
from __future__ import annotations

import pytest

from tests.memory_fixtures import embedder, open_profile  # noqa: F401 (fixtures)
from tutor_app.core.types import EmotionScore
from tutor_app.settings import MemorySettings
from tutor_app.tutor.turn_memory.flow import MemoryFlow
from tutor_app.tutor.turn_memory.stm import ShortTermStore

pytestmark = pytest.mark.slow

NEUTRAL = [EmotionScore("neutral", 0.9), EmotionScore("joy", 0.05)]


def test_turn_flow(open_profile):
    store = open_profile("alice")
    clock = [1000.0]
    mem = MemoryFlow(store, MemorySettings(), ShortTermStore("alice", clock=lambda: clock[0]))
    t = mem.on_learner_turn("call-1", "Remember that I love lattes.", NEUTRAL)
    assert t.stored is not None and t.stored.source == "trigger"
    mem.on_tutor_reply("call-1", "Lattes are lovely!")
    t = mem.on_learner_turn("call-1", "I got the job at the hospital today!", [EmotionScore("joy", 0.9)])
    assert t.stored is not None and t.stored.emotion_label == "joy" and t.stored.memory_type == "episodic"
    t = mem.on_learner_turn("call-1", "Temp memo: my room number is 4021", [EmotionScore("joy", 0.95)])
    assert t.stored is None and t.memos == ["my room number is 4021"]
    assert all("4021" not in m.text for m in store.list())
    t = mem.on_learner_turn("call-1", "What coffee do I like? Tell me honestly, I keep forgetting it.", NEUTRAL)
    assert t.stored is None and t.recalled and t.recalled[0].text == "Remember that I love lattes."
    assert "learner_memories" in t.prompt_blocks() and "4021" in t.prompt_blocks()
    t2 = mem.on_learner_turn("call-1", "Why?", NEUTRAL)  # short follow-up keeps the memories
    assert t2.followup.kind == "followup" and t2.recalled[0].text == "Remember that I love lattes."
    t3 = mem.on_learner_turn("call-1", "Let's talk about something else, like the weather in London", NEUTRAL)
    assert t3.followup.kind == "reset"
    assert all(h.text != "Remember that I love lattes." for h in t3.recalled)
    clock[0] += 25 * 3600  # a day without activity: short-term memory expired
    t4 = mem.on_learner_turn("call-1", "hello again", NEUTRAL)
    assert t4.memos == [] and t4.followup.kind == "first"


def test_off_the_record_writes_nothing(open_profile):
    store = open_profile("alice")
    mem = MemoryFlow(store, MemorySettings())
    mem.on_learner_turn("c", "Remember that my PIN is 1234", NEUTRAL, off_record=True)
    mem.on_tutor_reply("c", "ok", off_record=True)
    assert store.list() == [] and store.session_messages("c") == []
