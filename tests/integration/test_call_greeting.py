"""The tutor speaks first in a spoken call (call/opening.py): the real call loop,
controller, engine, LanceDB memory and the anthropic SDK against the fake server; only
the sound card, VAD, STT and TTS are the fakes of tests/unit/call_fakes.py."""
from __future__ import annotations

import json

import pytest

from tests.fakes.anthropic_server import Reply
from tests.memory_fixtures import real_embedder
from tests.unit.call_fakes import LOUD, FakeSd, FakeStt, FakeTts, FakeVad, Recorder, wait_until
from tutor_app.speech.echo import EchoOptions
from tutor_app.call import events as ev
from tutor_app.call.controller import CallController
from tutor_app.call.options import LoopOptions

pytestmark = pytest.mark.slow

NAMED = "Hi Minji! Good to hear you. What would you like to talk about today?"
GENERIC = "Hi! I'm your English tutor. What would you like to talk about today?"
SILENCE_FRAMES = 25


@pytest.fixture
def engine(data_dir, fake_anthropic):
    from tutor_app.emotion.scorer import load_scorer
    from tutor_app.llm.factory import load_chat_model
    from tutor_app.memory.storage.store import open_store
    from tutor_app.paths import AppPaths
    from tutor_app.registry.manifest import ModelRegistry
    from tutor_app.settings import Settings
    from tutor_app.tutor.engine import EngineServices, TutorEngine

    paths = AppPaths.resolve(data_dir)
    settings = Settings.load(paths, llm_backend="anthropic")
    settings.llm.max_retries = 0
    settings.llm.fallback_to_local = False
    settings.speech.audio_mode = "headset"
    store = open_store(paths.db_dir, real_embedder(), settings.profile)
    model = load_chat_model(settings, ModelRegistry.load(paths.models_dir))
    yield TutorEngine(EngineServices(settings=settings, emotion=load_scorer(settings), memory=store,
                                     chat_model=lambda: model))
    store.close()


class Call:
    def __init__(self, engine, greet: bool = True, stt=None) -> None:
        self.engine = engine
        self.sd = FakeSd()
        self.rec = Recorder()
        self.ctl = CallController(engine=engine, stt=stt or FakeStt("hello there"), vad=FakeVad(), tts=FakeTts(),
                                  settings=engine.settings, sd=self.sd, judge=False, greet=greet,
                                  options=LoopOptions(echo=EchoOptions(mode="headset"), stall_s=None,
                                                      warm_up=False))

    def start(self, off_record: bool = False, **kwargs) -> str:
        return self.ctl.start_call(off_record=off_record, sink=self.rec, **kwargs)

    def play_until(self, predicate) -> None:
        """Drain the fake speaker until `predicate()` (the greeting plays as it is pulled)."""
        assert wait_until(lambda: (self.sd.outputs[-1].pull(500), predicate())[1]), self.rec.events[-8:]

    def end(self) -> None:
        self.ctl.end_call()
        if self.ctl.end_work is not None:
            self.ctl.end_work.join(30)


def _greeting_done(rec: Recorder) -> list[ev.TutorTurnDone]:
    return [e for e in rec.of(ev.TutorTurnDone) if e.greeting]


def _remember_name(engine, name: str) -> None:
    from tutor_app.memory.profile.merge import merge_extracted

    merge_extracted(engine.services.memory, {"name": name}, session_id="an-earlier-call")


def test_a_spoken_call_opens_with_the_learners_name_kept_as_the_tutors_words(engine, fake_anthropic):
    _remember_name(engine, "Minji")
    memories_before = len(engine.services.memory.list())
    call = Call(engine)
    sid = call.start()
    call.play_until(lambda: _greeting_done(call.rec))
    done = _greeting_done(call.rec)[0]
    # spoken through the speaker path: one TutorSentence per sentence as it started playing
    assert " ".join(e.text for e in call.rec.of(ev.TutorSentence)) == NAMED
    assert done.reply == NAMED and not done.interrupted
    assert not call.rec.of(ev.UserUtterance)  # no learner turn before or for it
    print(f"greeting: first sample {done.timings_ms.get('first_audio')} ms after start_call (fakes)")
    memory = engine.services.memory
    assert [(m.role, m.text) for m, _ in memory.session_messages(sid)] == [("assistant", NAMED)]
    assert len(memory.list()) == memories_before  # never a memory

    fake_anthropic.push(Reply("Oh, how exciting! How did it go?"))
    call.ctl.send_text("I had a job interview today.")
    call.play_until(lambda: len(call.rec.of(ev.TutorTurnDone)) == 2)
    call.end()
    report = call.rec.wait_kind(ev.ReportReady)[0].report
    assert report["turns"] == 1  # the greeting is no learner turn
    assert [t.user_text for t in call.ctl.session.turns] == ["I had a job interview today."]
    roles = [m.role for m, _ in memory.session_messages(sid)]
    assert roles == ["assistant", "user", "assistant"]


def test_off_the_record_it_still_greets_but_stores_nothing(engine):
    call = Call(engine)
    sid = call.start(off_record=True)
    call.play_until(lambda: _greeting_done(call.rec))
    assert _greeting_done(call.rec)[0].reply == GENERIC  # no name known: the generic line
    assert call.ctl.session._transcript[-1].content == GENERIC  # the call's own history holds it
    assert engine.services.memory.session_messages(sid) == []
    call.end()


def test_a_call_started_by_typing_does_not_greet(engine, fake_anthropic):
    _remember_name(engine, "Minji")
    call = Call(engine)
    call.start(greet=False)
    fake_anthropic.push(Reply("Nice to meet you. What do you do?"))
    call.ctl.send_text("Hello, I'm typing.")
    call.play_until(lambda: call.rec.of(ev.TutorTurnDone))
    assert not _greeting_done(call.rec)
    assert call.rec.of(ev.TutorSentence)[0].text == "Nice to meet you."
    call.end()


def test_talking_over_the_greeting_stops_it_and_keeps_only_what_was_heard(engine, fake_anthropic):
    _remember_name(engine, "Minji")
    call = Call(engine, stt=FakeStt("wait a second"))
    sid = call.start()
    call.play_until(lambda: len(call.rec.of(ev.TutorSentence)) >= 2)  # "Hi Minji!" played, the next started
    fake_anthropic.push(Reply("Sure, take your time."))
    mic = call.sd.inputs[-1]
    mic.push_frames(LOUD, 11)  # over the tutor: its words so far go to STT ("wait": a barge-in)
    assert call.ctl.loop.wait_frames(11)
    call.ctl.loop._pool("stt").submit(lambda: None).result()
    mic.push_frames(0.0, SILENCE_FRAMES)
    assert wait_until(lambda: _greeting_done(call.rec))
    done = _greeting_done(call.rec)[0]
    assert done.interrupted and done.reply.startswith("Hi Minji!") and done.reply != NAMED
    stored = [(m.role, m.text) for m, _ in engine.services.memory.session_messages(sid)]
    assert stored[0] == ("assistant", done.reply)  # only what was heard
    call.play_until(lambda: len(call.rec.of(ev.TutorTurnDone)) == 2)  # the interruption is the learner's turn
    assert call.rec.of(ev.UserUtterance)[0].text == "wait a second"
    call.end()


def _an_earlier_call(engine, told: str) -> None:
    """A call the learner had before, in which they told the tutor `told`."""
    from datetime import datetime, timezone

    memory = engine.services.memory
    memory.record_call("an-earlier-call", datetime.now(timezone.utc))
    memory.add(told, session_id="an-earlier-call", memory_type="episodic")


def test_with_the_cloud_model_a_returning_learner_hears_a_follow_up_question(engine, fake_anthropic):
    _remember_name(engine, "Minji")
    _an_earlier_call(engine, "I have a job interview on Friday.")
    fake_anthropic.push(Reply("How did the job interview go?"))
    call = Call(engine)
    call.start()
    call.play_until(lambda: _greeting_done(call.rec))
    assert _greeting_done(call.rec)[0].reply == "Hi Minji! How did the job interview go?"
    request = json.dumps(fake_anthropic.last_request().messages)
    assert "I have a job interview on Friday." in request  # asked from what was remembered only
    fake_anthropic.push(Reply("That's great news! What did they ask you?"))
    call.ctl.send_text("It went well, thanks!")
    call.play_until(lambda: len(call.rec.of(ev.TutorTurnDone)) == 2)
    messages = [(m["role"], m["content"] if isinstance(m["content"], str) else m["content"][0]["text"])
                for m in fake_anthropic.last_request().messages]
    assert ("assistant", "Hi Minji! How did the job interview go?") in messages  # the model knows what it asked
    call.end()


def test_no_question_worth_asking_keeps_the_fixed_greeting(engine, fake_anthropic):
    _remember_name(engine, "Minji")
    _an_earlier_call(engine, "I like green tea.")
    fake_anthropic.push(Reply("NONE"))
    call = Call(engine)
    call.start()
    call.play_until(lambda: _greeting_done(call.rec))
    assert _greeting_done(call.rec)[0].reply == \
        "Hi Minji! Good to hear from you again. What would you like to talk about today?"
    call.end()
