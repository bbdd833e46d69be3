"""A text chat (the desktop app's "type a message" with no call running): the live call
runs without opening the microphone or the speaker, typed turns are answered as text,
and the report follows the end like any call's."""
from __future__ import annotations

from types import SimpleNamespace

from tests.unit.call_fakes import FakeEngine, FakeSd, FakeSession, FakeStt, FakeTts, FakeVad, Recorder
from tutor_app.call import events as ev
from tutor_app.call.controller import CallController
from tutor_app.call.loop import LoopOptions
from tutor_app.call.options import EchoOptions
from tutor_app.settings import SpeechSettings


def test_a_text_chat_never_opens_the_microphone():
    sd, rec = FakeSd(), Recorder()
    session = FakeSession([["Hello!", "How are you?"]])
    ctl = CallController(engine=FakeEngine(session), stt=FakeStt(), vad=FakeVad(), tts=FakeTts(),
                         settings=SimpleNamespace(speech=SpeechSettings()), sd=sd, judge=False,
                         options=LoopOptions(echo=EchoOptions(mode="headset"), stall_s=None, warm_up=False))
    ctl.start_call(off_record=True, sink=rec, text_only=True)
    try:
        ctl.send_text("Hi, I can't talk right now.")
        [done] = rec.wait_kind(ev.TutorTurnDone)
        assert done.reply == "Hello! How are you?"
        assert [e.text for e in rec.of(ev.TutorSentence)] == ["Hello!", "How are you?"]
        assert sd.inputs == [] and sd.outputs == []  # nothing listened to, nothing spoken
        assert not rec.of(ev.Problem) and not rec.of(ev.MicLevel)
    finally:
        ctl.end_call()
    assert ctl.end_work is not None
    ctl.end_work.join(10)
    [report] = rec.wait_kind(ev.ReportReady)
    assert report.report["turns"] == 1
