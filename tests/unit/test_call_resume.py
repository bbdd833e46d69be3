"""A false interruption, end to end on a fake sound card: the learner's voice over the tutor
pauses its playback at once (call/listen/floor.py); their words then say it was only a
backchannel - the tutor resumes and its reply is whole, not interrupted - or that they took
the floor - the tutor's turn is cut to what was heard. Frames are scripted; no clock."""
from __future__ import annotations

import numpy as np
import pytest

from tests.unit.call_fakes import FakeStt
from tests.unit.test_call_loop import REPLY, SILENCE_FRAMES, Call
from tutor_app.call import events as ev
from tutor_app.core.types import FRAME_SAMPLES, SAMPLE_RATE

T = np.arange(FRAME_SAMPLES) / SAMPLE_RATE
# Open speech (a vowel's harmonics, not a hum, not noise): what floor.py lets take the floor.
VOWEL = (0.05 * sum(a * np.sin(2 * np.pi * 120 * (k + 1) * T) for k, a in
                    enumerate([0.3, 0.4, 0.5, 0.8, 0.9, 0.7, 0.5, 0.4, 0.5, 0.6, 0.4, 0.3]))).astype(np.float32)


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


def _talk_over_the_tutor(call: Call, frames: int) -> None:
    """The reply's first sentence and a third of its second played, then `frames` of
    open speech over it: paused at 9 voiced frames (288 ms)."""
    call.say()
    call.queued(9000)
    call.out.pull(3000)  # all of sentence 1
    call.out.pull(1000)  # the first third of sentence 2
    call.rec.wait_kind(ev.TutorSentence, 2)
    for _ in range(frames):
        call.mic.push(VOWEL)
    call.processed(16 + SILENCE_FRAMES + frames)
    call.ctl.loop._pool("stt").submit(lambda: None).result()  # its words so far are in


def _played(call: Call, gen: int = 1) -> int:
    return sum(n for (g, _), n in call.player.stats.played.items() if g == gen)


def test_a_backchannel_that_paused_the_tutor_lets_it_resume_and_finish_its_reply(calls):
    call = calls(replies=[REPLY], stt=FakeStt("hello there", "Okay."))
    _talk_over_the_tutor(call, 12)
    assert call.player.paused
    assert not call.out.pull(1000).any() and _played(call) == 4000  # silent: nothing more played
    call.mic.push_frames(0.0, SILENCE_FRAMES)  # "Okay." ends: its words say a backchannel
    assert call.ctl.loop.wait_frames(16 + 2 * SILENCE_FRAMES + 12)
    # Its words come from the STT worker, maybe after the last frame (the listener is woken
    # for them): the Backchannel event follows the resume.
    call.rec.wait_kind(ev.Backchannel)
    assert not call.player.paused
    call.play_all()
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert not done.interrupted and done.reply == " ".join(REPLY)  # whole: resumed where it paused
    assert done.backchannels == ("Okay",) and call.session.turns[0].reply == " ".join(REPLY)
    # backed up to the start of the sentence it paused in (the fake voice has no quieter
    # gap within reach), so sentence 2 played whole once more: 1000 + 3000 + 3000 + 3000
    assert _played(call) == 9000 and sum(call.player.stats.played.values()) == 9000
    assert len([u for u in call.rec.of(ev.UserUtterance) if u.text]) == 1  # no turn of the learner's
    assert call.ctl.loop.listener.ends.get("backchannel") == 1


def test_a_learner_who_took_the_floor_ends_the_paused_turn_at_what_was_heard(calls):
    call = calls(replies=[REPLY, ["Sure."]], stt=FakeStt("hello there", "I think that is not right"))
    _talk_over_the_tutor(call, 20)  # 640 ms of voice: room for its six words
    assert call.player.paused
    call.mic.push_frames(0.0, SILENCE_FRAMES)  # its words at its end: more than a backchannel
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done.interrupted and done.reply == "One two three. Four"  # what was heard before the pause
    assert call.session.turns[0].reply == "One two three. Four"
    assert not call.player.paused  # the cut turn's queue was dropped; the next reply plays
    call.mic.push_frames(0.0, SILENCE_FRAMES)  # the learner's turn ends (its silence counts from the interruption)
    call.rec.wait_kind(ev.UserUtterance, 2)
    assert call.session.texts[-1] == "I think that is not right" or call.rec.wait_for(
        lambda r: call.session.texts[-1] == "I think that is not right")
