"""The live call loop with a fake sounddevice: turn-taking, barge-in cut accounting,
echo gating, device loss, faults. The test drives both streams by hand."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.unit.call_fakes import (
    LOUD,
    SOFT,
    FakeEngine,
    FakeSd,
    FakeSession,
    FakeStt,
    FakeTts,
    FakeVad,
    Recorder,
    wait_until,
)
from tutor_app.call import events as ev
from tutor_app.call.controller import CallController
from tutor_app.call.loop import LoopOptions
from tutor_app.call.options import EchoOptions, InterruptionOptions
from tutor_app.call.turns import SORRY_CUT, SORRY_FAILED
from tutor_app.settings import SpeechSettings

REPLY = ["One two three.", "Four five six.", "Seven eight nine."]  # 3000 fake samples each
SILENCE_FRAMES = 25  # > 600 ms of 32 ms frames: ends an utterance


class Call:
    def __init__(self, replies=None, mode="headset", barge_in=True, stt=None, sd=None, tts=None,
                 error=None, judge=None, **options) -> None:
        self.sd = sd or FakeSd()
        self.session = FakeSession(replies or [REPLY], error)
        self.stt = stt or FakeStt("hello there")
        self.rec = Recorder()
        opts = LoopOptions(echo=EchoOptions(mode=mode), interruption=InterruptionOptions(enabled=barge_in),
                           stall_s=None, warm_up=False, reopen_every_s=0.02, **options)
        settings = SimpleNamespace(speech=SpeechSettings(audio_mode=mode, barge_in=barge_in))
        self.ctl = CallController(engine=FakeEngine(self.session), stt=self.stt, vad=FakeVad(),
                                  tts=tts or FakeTts(), settings=settings, sd=self.sd, options=opts,
                                  judge=judge)
        self.session_id = self.ctl.start_call(off_record=True, sink=self.rec)

    @property
    def mic(self):
        return self.sd.inputs[-1]

    @property
    def out(self):
        return self.sd.outputs[-1]

    @property
    def player(self):
        return self.ctl.loop.speaker.player

    def say(self, frames: int = 16, amplitude: float = LOUD, then_silence: int = SILENCE_FRAMES) -> None:
        self.mic.push_frames(amplitude, frames)
        self.mic.push_frames(0.0, then_silence)

    def processed(self, total: int) -> None:
        assert self.ctl.loop.wait_frames(total), "the audio thread did not catch up"

    def queued(self, samples: int) -> None:
        assert wait_until(lambda: self.player.queued_samples() >= samples), "the reply was not synthesised"

    def play_all(self) -> None:
        while self.player.busy:
            self.out.pull(1000)

    def end(self) -> None:
        self.ctl.end_call()
        if self.ctl.end_work is not None:
            self.ctl.end_work.join(10)


@pytest.fixture
def calls():
    made: list[Call] = []

    def make(**kwargs) -> Call:
        call = Call(**kwargs)
        made.append(call)
        return call

    yield make
    for call in made:
        call.end()


def test_utterance_becomes_a_turn_with_events_in_order(calls):
    call = calls()
    call.mic.push_frames(0.0, 15)  # quiet before: room for the pre-roll
    call.say()
    call.queued(9000)
    call.play_all()
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    call.rec.wait_for(lambda r: r.events[-1] == ev.StateChanged(ev.LISTENING))
    assert done.reply == " ".join(REPLY) and not done.interrupted
    kinds = [type(e).__name__ if not isinstance(e, ev.StateChanged) else e.state
             for e in call.rec.events if not isinstance(e, ev.MicLevel)]
    assert kinds == ["listening", "SpeechStarted", "UserUtterance", "EmotionRead", "thinking", "speaking",
                     "TutorSentence", "TutorSentence", "TutorSentence", "TutorTurnDone", "listening"]
    assert [e.text for e in call.rec.of(ev.TutorSentence)] == REPLY
    utterance = call.rec.of(ev.UserUtterance)[0]
    assert utterance.text == "hello there"
    # pre-roll: the utterance starts 300 ms (9 frames) before its first speech frame
    assert len(call.stt.clips[0].samples) == (9 + 16) * 512
    assert len(call.stt.clips) == 1  # the early STT guess was the turn: no second decode
    assert call.rec.of(ev.EmotionRead)[0].label == "joy"  # top non-neutral emotion
    for stamp in ("stt_done", "first_audio"):
        assert stamp in done.timings_ms
    assert call.rec.of(ev.MicLevel), "the level meter got no updates"


def test_barge_in_cuts_the_reply_to_what_was_played(calls):
    call = calls(replies=[REPLY, ["Sure."]], stt=FakeStt("hello there", "wait a second"))
    call.say()
    call.queued(9000)
    call.out.pull(3000)  # all of sentence 1
    call.out.pull(1000)  # the first third of sentence 2
    call.rec.wait_kind(ev.TutorSentence, 2)
    call.mic.push_frames(LOUD, 11)  # over the tutor: at 10 frames (320 ms) its words so far go to STT
    call.processed(16 + SILENCE_FRAMES + 11)
    call.ctl.loop._pool("stt").submit(lambda: None).result()  # ... and are in ("wait": a barge-in)
    call.mic.push_frames(0.0, SILENCE_FRAMES)  # acted on at once; the learner stops (the silence counts from there)
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done.interrupted
    assert done.reply == "One two three. Four"
    assert call.session.turns[0].reply == "One two three. Four"  # history keeps what was heard
    call.out.pull(3000)
    first_turn = sum(n for (gen, _), n in call.player.stats.played.items() if gen == 1)
    assert first_turn == 4000  # the queued rest of the reply was dropped, never played
    # the first turn showed only what was played (the next turn may have started meanwhile)
    events = list(call.rec.events)
    first_turn_events = events[:events.index(done)]
    assert [e.text for e in first_turn_events if isinstance(e, ev.TutorSentence)] == REPLY[:2]
    # the interrupting utterance becomes the next turn
    call.rec.wait_kind(ev.UserUtterance, 2)
    assert call.session.texts[-1] == "wait a second" or wait_until(lambda: call.session.texts[-1] == "wait a second")


def test_barge_in_off_lets_the_tutor_finish(calls):
    call = calls(barge_in=False, replies=[REPLY, ["Ok."]])
    call.say()
    call.queued(9000)
    call.out.pull(1000)
    call.say(frames=10)
    call.processed(41 + 35)
    assert not call.rec.of(ev.TutorTurnDone)
    call.play_all()
    assert call.rec.wait_kind(ev.TutorTurnDone)[0].reply == " ".join(REPLY)


def test_early_stt_guess_is_dropped_when_the_learner_goes_on(calls):
    call = calls(stt=FakeStt("first guess", "whole turn"))
    call.say(frames=16, then_silence=8)  # a pause: long enough for an early STT, not an end
    call.say(frames=10)
    assert call.rec.wait_kind(ev.UserUtterance)[0].text == "whole turn"
    assert len(call.stt.clips) == 2
    assert len(call.stt.clips[1].samples) == (16 + 8 + 10) * 512


def test_blips_are_ignored(calls):
    call = calls()
    call.say(frames=4)  # 128 ms: a cough
    call.processed(4 + SILENCE_FRAMES)
    assert not call.rec.of(ev.SpeechStarted)
    assert not call.stt.clips and not call.session.texts


def test_gated_mode_gates_the_microphone_while_speaking(calls):
    call = calls(mode="gated", barge_in=False, replies=[REPLY, ["Fine."]])
    call.say()
    call.queued(9000)
    call.out.pull(1000)
    call.say(frames=20, amplitude=LOUD)  # the tutor's own voice (or the learner) while it speaks
    call.processed(41 + 45)
    assert len(call.rec.of(ev.SpeechStarted)) == 1 and len(call.stt.clips) == 1
    call.play_all()
    call.rec.wait_kind(ev.TutorTurnDone)
    call.mic.push_frames(0.0, 3)
    call.say(frames=10, then_silence=0)  # inside the echo tail (400 ms): still gated
    call.processed(41 + 45 + 13)
    assert len(call.rec.of(ev.SpeechStarted)) == 1
    call.say()  # after the tail: heard
    call.rec.wait_kind(ev.UserUtterance, 2)
    assert len(call.stt.clips) == 2


def test_gated_mode_barge_in_needs_louder_speech(calls):
    call = calls(mode="gated", barge_in=True, replies=[REPLY, ["Fine."]], stt=FakeStt("hi", "stop please"))
    call.say()
    call.queued(9000)
    call.out.pull(1000)
    call.mic.push_frames(SOFT, 20)  # speech at echo level: not a barge-in
    call.processed(41 + 20)
    assert not call.rec.of(ev.TutorTurnDone) and call.player.busy
    call.say(frames=16, amplitude=LOUD)  # clearly louder, > 400 ms
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done.interrupted and done.reply == "One"
    # the gated loud speech was replayed into turn-taking: it is the next turn
    assert call.rec.wait_kind(ev.UserUtterance, 2)[1].text == "stop please"


def test_microphone_lost_pauses_and_resumes(calls):
    call = calls()
    first = call.mic
    call.sd.unplugged = True
    first.lose()
    call.rec.wait_kind(ev.Problem)
    assert call.rec.of(ev.Problem)[0].kind == "device-lost"
    assert call.rec.wait_for(lambda r: ev.StateChanged(ev.PAUSED) in r.events)
    call.sd.unplugged = False
    assert call.rec.wait_for(lambda r: r.events[-1] == ev.StateChanged(ev.LISTENING)
                             or ev.StateChanged(ev.LISTENING) in r.events[r.events.index(ev.StateChanged(ev.PAUSED)):])
    assert wait_until(lambda: call.mic is not first and call.mic.active)
    call.say()
    assert call.rec.wait_kind(ev.UserUtterance)[0].text == "hello there"


def test_speaker_lost_shows_replies_as_text(calls):
    call = calls()
    call.out.lose()
    call.ctl.send_text("Hello")
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done.reply == " ".join(REPLY)
    assert any(p.kind == "device-lost" for p in call.rec.of(ev.Problem))


def test_no_microphone_still_allows_typed_turns(calls):
    call = calls(sd=FakeSd(inputs=False))
    problem = call.rec.wait_kind(ev.Problem)[0]
    assert problem.kind == "no-microphone" and not problem.fatal
    call.ctl.send_text("I like tea.")
    call.queued(9000)
    call.play_all()
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done.reply == " ".join(REPLY)
    utterance = call.rec.of(ev.UserUtterance)[0]
    assert utterance.text == "I like tea." and utterance.seconds is None


def test_no_devices_at_all_shows_replies_as_text(calls):
    call = calls(sd=FakeSd(inputs=False, outputs=False))
    call.ctl.send_text("Hello")
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done.reply == " ".join(REPLY)
    assert [e.text for e in call.rec.of(ev.TutorSentence)] == REPLY


def test_a_sentence_in_several_chunks_is_announced_once(calls):
    call = calls(tts=FakeTts(chunks=3))
    call.ctl.send_text("Hello")
    call.queued(9000)
    call.out.pull(4500)
    call.rec.wait_kind(ev.TutorSentence, 2)
    call.play_all()
    call.rec.wait_kind(ev.TutorTurnDone)
    assert [e.text for e in call.rec.of(ev.TutorSentence)] == REPLY


def test_tts_error_skips_one_sentence(calls):
    call = calls(tts=FakeTts(fail_on="Four"))
    call.ctl.send_text("Hello")
    call.queued(6000)
    call.play_all()
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done.reply == "One two three. Seven eight nine."
    assert any(p.kind == "tts" for p in call.rec.of(ev.Problem))


def test_llm_error_mid_reply_says_sorry_and_keeps_listening(calls):
    call = calls(sd=FakeSd(inputs=False, outputs=False), replies=[["Well, I think"]], error="connection broke")
    call.ctl.send_text("Hello")
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done.reply == f"Well, I think {SORRY_CUT}"
    assert any(p.kind == "llm" for p in call.rec.of(ev.Problem))
    assert call.rec.wait_for(lambda r: r.events[-1] == ev.StateChanged(ev.LISTENING))


def test_llm_error_before_any_text_apologises_once(calls):
    from tutor_app.tutor.engine import SORRY_OFFLINE

    call = calls(sd=FakeSd(inputs=False, outputs=False), replies=[[SORRY_OFFLINE]], error="offline")
    call.ctl.send_text("Hello")
    assert call.rec.wait_kind(ev.TutorTurnDone)[0].reply == SORRY_OFFLINE


def test_a_rejected_api_key_is_an_api_key_problem_not_a_lost_connection(calls):
    from tutor_app.tutor.engine import SORRY_KEY

    call = calls(sd=FakeSd(inputs=False, outputs=False), replies=[[SORRY_KEY]], error="key rejected (401)")
    call.ctl.send_text("Hello")
    assert call.rec.wait_kind(ev.TutorTurnDone)[0].reply == SORRY_KEY  # no "cut" apology added
    model_problems = [p for p in call.rec.of(ev.Problem) if p.kind not in ("no-microphone", "no-speaker")]
    assert [p.kind for p in model_problems] == ["api-key"] and "Settings" in model_problems[0].message


def test_a_reply_of_the_local_fallback_is_a_notice_with_its_reason(calls):
    call = calls(sd=FakeSd(inputs=False, outputs=False))
    call.session.fallback = "no first token in 4 s"
    call.ctl.send_text("Hello")
    assert call.rec.wait_kind(ev.TutorTurnDone)[0].reply == " ".join(REPLY)
    model_problems = [p for p in call.rec.of(ev.Problem) if p.kind not in ("no-microphone", "no-speaker")]
    assert [(p.kind, p.message) for p in model_problems] == [("offline", "local tutor (no first token in 4 s)")]


def test_a_failing_turn_is_answered_and_closed(calls):
    call = calls(sd=FakeSd(inputs=False, outputs=False), error="raise")
    call.ctl.send_text("Hello")
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done.reply == SORRY_FAILED
    assert call.rec.wait_for(lambda r: r.events[-1] == ev.StateChanged(ev.LISTENING))
    call.ctl.send_text("Again")  # the call goes on
    call.rec.wait_kind(ev.TutorTurnDone, 2)


def test_mute_ignores_the_microphone(calls):
    call = calls()
    call.ctl.set_muted(True)
    call.say()
    call.processed(16 + SILENCE_FRAMES)
    assert not call.rec.of(ev.SpeechStarted)
    assert call.rec.of(ev.MicLevel)[-1].rms == 0.0
    call.ctl.set_muted(False)
    call.say()
    call.rec.wait_kind(ev.UserUtterance)


def test_end_call_emits_ended_then_report(calls):
    call = calls(sd=FakeSd(inputs=False, outputs=False))
    call.ctl.send_text("Hello")
    call.rec.wait_kind(ev.TutorTurnDone)
    call.end()
    report = call.rec.wait_kind(ev.ReportReady)[0]
    assert report.session_id == call.session_id
    names = [type(e).__name__ for e in call.rec.events]
    assert names.index("CallEnded") < names.index("ReportReady")
    assert isinstance(report.report, dict)
