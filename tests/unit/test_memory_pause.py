"""One "pause memory" rule (settings.memory_on): each moment of a call is remembered iff
the call is not off the record and memory is not paused then; the call's end works on what
was kept, whatever the setting says when the learner hangs up."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from tutor_app.paths import AppPaths
from tutor_app.settings import Settings, memory_on
from tutor_app.tutor.engine import Conversation
from tutor_app.tutor.lifecycle import _practice
from tutor_app.tutor.report import TurnRecord, build_report


class FakeMemory:
    """What a call stores: the learner lines said while memory was on."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def calls(self):
        return []

    def session_messages(self, session_id, with_vectors=False):
        return [(SimpleNamespace(role="user", text=t), None) for t in self.lines]


class FakePractice:
    def __init__(self) -> None:
        self.judged_on: list[str] | None = None

    def planned(self, session_id):
        return []

    def record(self, session_id, outcomes):
        pass

    def add_from_call(self, session_id, corrections, new_words, learner_lines):
        self.judged_on = list(learner_lines)
        return []


@pytest.fixture
def engine(tmp_path):
    settings = Settings(paths=AppPaths.resolve(tmp_path))
    services = SimpleNamespace(clock=lambda: 0.0, memory=FakeMemory(), practice=FakePractice())
    return SimpleNamespace(settings=settings, services=services)


def say(call: Conversation, text: str) -> TurnRecord:
    """A turn as the engine runs it: stored only when memory is on at that moment."""
    if call.memory_on:
        call.engine.services.memory.lines.append(text)
    return TurnRecord(0.0, text, "ok")


def pause(engine, paused: bool) -> None:
    engine.settings.memory.enabled = not paused


def end(call: Conversation, turns: list[TurnRecord]) -> list[str] | None:
    """The call end's practice step: the lines it judged (None: it did nothing)."""
    result = _practice(call.engine, call.session_id, [], [], turns)
    return call.engine.services.practice.judged_on if result else None


def test_the_rule():
    settings = SimpleNamespace(memory=SimpleNamespace(enabled=True))
    assert memory_on(settings) and not memory_on(settings, off_record=True)
    settings.memory.enabled = False
    assert not memory_on(settings) and not memory_on(settings, off_record=True)


def test_paused_before_the_call(engine):
    pause(engine, True)
    call = Conversation(engine, "s1", off_record=False)
    turns = [say(call, "I live in Busan"), say(call, "I like hiking")]
    pause(engine, False)  # resumed only at hang-up: nothing of the call comes back
    assert engine.services.memory.lines == []
    assert end(call, turns) is None


def test_paused_mid_call(engine):
    call = Conversation(engine, "s2", off_record=False)
    turns = [say(call, "I live in Busan")]
    pause(engine, True)
    assert not call.memory_on  # from this moment
    turns.append(say(call, "my PIN is 1234"))
    assert engine.services.memory.lines == ["I live in Busan"]
    assert end(call, turns) == ["I live in Busan"]  # the end never uses the paused turn
    pause(engine, False)
    assert end(call, turns) == ["I live in Busan"]  # nor does resuming before the end bring it back


def test_resumed_mid_call(engine):
    pause(engine, True)
    call = Conversation(engine, "s3", off_record=False)
    turns = [say(call, "my PIN is 1234")]
    pause(engine, False)
    assert call.memory_on
    turns.append(say(call, "I like hiking"))
    assert engine.services.memory.lines == ["I like hiking"]
    pause(engine, True)  # paused again at hang-up: what was kept still counts
    assert end(call, turns) == ["I like hiking"]


def test_off_the_record_ignores_the_setting(engine):
    call = Conversation(engine, "s4", off_record=True)
    assert not call.memory_on
    pause(engine, True)
    pause(engine, False)
    assert not call.memory_on
    turns = [say(call, "I live in Busan")]
    assert engine.services.memory.lines == [] and end(call, turns) is None


def test_the_report_leaves_out_what_was_said_while_paused():
    kept = TurnRecord(10.0, "I like hiking", "Hiking is wonderful.", 2.0, "joy", 0.8)
    paused = TurnRecord(20.0, "my neighbour Quillsby", "Quillsby sounds marvellous.", 3.0, "fear", 0.9,
                        kept=False)
    report = build_report("s5", 0.0, 60.0, [kept, paused]).to_dict()
    assert report["turns"] == 1 and report["paused_turns"] == 1 and report["words"] == 3
    assert report["speaking_seconds"] == 2.0
    assert [p["label"] for p in report["emotion_timeline"]] == ["joy"]
    assert report["new_words"] == ["wonderful"]  # not "marvellous": that reply answered a paused turn
    assert "quillsby" not in str(report).lower() and "marvellous" not in str(report)
