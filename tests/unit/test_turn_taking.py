"""Turn-taking in the live Listener with scripted VAD frames, transcripts and end-of-turn
verdicts (no models, no clocks): two waits, speculation / commit / retraction, pauses,
backchannels vs interruptions. Each step waits for the audio thread to have processed
the frames pushed so far, so the outcome never depends on timing."""
from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from tests.unit.call_fakes import FakeStt, HeldTts
from tests.unit.test_call_loop import REPLY, Call
from tutor_app.call import events as ev
from tutor_app.call.listen.turn_taking import is_backchannel
from tutor_app.call.options import EndpointingOptions, SpeculationOptions, frames

COMPLETE = SimpleNamespace(complete=True, reason="scripted")
UNFINISHED = SimpleNamespace(complete=False, reason="scripted")
LIKELY = SimpleNamespace(complete=False, likely=True, reason="scripted: a full sentence, doubtful audio")
CHECK = 7  # frames of silence that pass the 200 ms check (6 frames) with one to spare


class ScriptedJudge:
    """The end-of-turn judge's seam: verdicts in order (the last one repeats)."""

    def __init__(self, *verdicts) -> None:
        self.verdicts = list(verdicts) or [COMPLETE]
        self.texts: list[str] = []
        self._cond = threading.Condition()

    def __call__(self, audio, text: str):
        with self._cond:
            self.texts.append(text)
            self._cond.notify_all()
            return self.verdicts.pop(0) if len(self.verdicts) > 1 else self.verdicts[0]

    def wait_calls(self, n: int) -> None:
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.texts) >= n, 10), f"judge not asked {n} times"


class Steps:
    """Push frames and wait until the audio thread has processed them."""

    def __init__(self, call: Call) -> None:
        self.call = call
        self.pushed = 0

    def push(self, amplitude: float, n: int) -> None:
        self.call.mic.push_frames(amplitude, n)
        self.pushed += n
        self.call.processed(self.pushed)

    def first_turn(self, judge: ScriptedJudge) -> None:
        """Half a second of quiet, half a second of speech, and the pause it is judged in."""
        self.push(0.0, 15)
        self.push(0.3, 16)
        self.pause_until_judged(judge, 1)

    def tutor_speaking(self) -> None:
        """The reply is synthesised and its first sentence is playing."""
        self.call.queued(9000)
        self.call.out.pull(1000)
        self.call.rec.wait_kind(ev.TutorSentence)

    def pause_until_judged(self, judge: ScriptedJudge, calls: int) -> None:
        """Silence through the check, the judge's answer, then one more frame to act on it."""
        self.push(0.0, CHECK)
        judge.wait_calls(calls)
        self.call.ctl.loop._pool("judge").submit(lambda: None).result()  # the verdict is in
        self.push(0.0, 1)


@pytest.fixture
def calls():
    made: list[Call] = []

    def make(**kwargs) -> Call:
        kwargs.setdefault("endpointing", EndpointingOptions(thinking_ms=1500))
        # These tests are about the other waits: a reply may play as soon as it is ready.
        # The earliest-reply hold (a comma pause) has its own tests below.
        kwargs.setdefault("speculation", SpeculationOptions(earliest_ms=0))
        made.append(Call(**kwargs))
        return made[-1]

    yield make
    for call in made:
        call.end()


def test_a_complete_turn_is_answered_without_waiting_for_the_long_silence(calls):
    judge = ScriptedJudge(COMPLETE)
    call = calls(judge=judge)
    steps = Steps(call)
    steps.first_turn(judge)  # 8 frames = 256 ms of silence, far below 1.5 s
    done = call.rec.wait_kind(ev.UserUtterance)
    call.queued(9000)
    call.play_all()
    turn_done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done[0].text == "hello there" and judge.texts == ["hello there"]
    assert turn_done.reply == " ".join(REPLY) and not turn_done.interrupted
    assert len(call.stt.clips[0].samples) == (9 + 16) * 512  # the early transcript was the turn's
    assert len(call.stt.clips) == 1
    assert "first_audio" in turn_done.timings_ms


def test_an_unfinished_turn_waits_through_a_thinking_pause_and_stays_one_turn(calls):
    judge = ScriptedJudge(UNFINISHED, COMPLETE)
    call = calls(judge=judge, stt=FakeStt("next month I am planning to", "next month I am planning to visit"))
    steps = Steps(call)
    steps.first_turn(judge)
    steps.push(0.0, 37 - CHECK - 1)  # a 1.2 s pause in all, shorter than the 1.5 s thinking time
    assert not call.rec.of(ev.UserUtterance) and not call.session.texts
    steps.push(0.3, 10)
    steps.pause_until_judged(judge, 2)
    utterances = call.rec.wait_kind(ev.UserUtterance)
    assert [u.text for u in utterances] == ["next month I am planning to visit"]
    assert len(call.stt.clips[-1].samples) == (9 + 16 + 37 + 10) * 512  # both halves
    assert call.ctl.loop.listener.pauses_ms == [37 * 32]


def test_an_unfinished_turn_ends_at_the_thinking_time(calls):
    judge = ScriptedJudge(UNFINISHED)
    call = calls(judge=judge, endpointing=EndpointingOptions(thinking_ms=1000))
    steps = Steps(call)
    steps.first_turn(judge)
    assert not call.rec.of(ev.UserUtterance)
    steps.push(0.0, 31 - CHECK - 1)  # 1000 ms of silence in all
    assert call.rec.wait_kind(ev.UserUtterance)[0].text == "hello there"


def test_a_likely_turn_ends_at_the_sentence_wait_not_the_thinking_time(calls):
    judge = ScriptedJudge(LIKELY)
    call = calls(judge=judge, endpointing=EndpointingOptions(thinking_ms=2000))  # sentence wait: 1000 ms
    steps = Steps(call)
    steps.first_turn(judge)
    steps.push(0.0, 31 - CHECK - 2)  # 30 frames: 960 ms of silence
    assert not call.rec.of(ev.UserUtterance)
    steps.push(0.0, 2)  # 1024 ms: past the sentence wait, far from the 2 s thinking time
    assert call.rec.wait_kind(ev.UserUtterance)[0].text == "hello there"
    call.queued(9000)
    call.play_all()
    assert call.rec.wait_kind(ev.TutorTurnDone)[0].reply == " ".join(REPLY)
    assert call.ctl.loop.listener.ends == {"sentence": 1}
    assert len(call.stt.clips) == 1  # the early transcript was used


def test_a_likely_turn_the_learner_goes_on_with_stays_one_turn(calls):
    judge = ScriptedJudge(LIKELY, COMPLETE)
    call = calls(judge=judge, endpointing=EndpointingOptions(thinking_ms=2000),
                 stt=FakeStt("I went to the park.", "I went to the park with my sister"))
    steps = Steps(call)
    steps.first_turn(judge)
    steps.push(0.0, 20)  # 0.9 s of thought, under the sentence wait
    steps.push(0.3, 10)
    steps.pause_until_judged(judge, 2)
    assert [u.text for u in call.rec.wait_kind(ev.UserUtterance)] == ["I went to the park with my sister"]
    # The held reply asked for at the check was retracted unheard when the learner went on.
    assert call.ctl.loop.listener.ends == {"sentence": 1, "retracted": 1, "judge": 1}


def test_a_late_speculation_is_retracted_when_the_learner_goes_on_before_its_audio(calls):
    judge = ScriptedJudge(LIKELY, COMPLETE)
    tts = HeldTts()
    call = calls(judge=judge, tts=tts, endpointing=EndpointingOptions(thinking_ms=2000),
                 stt=FakeStt("I went to the park.", "I went to the park with my sister"))
    steps = Steps(call)
    steps.first_turn(judge)
    steps.push(0.0, 31 - CHECK)  # past the sentence wait: the tutor's turn starts
    assert tts.entered.wait(10)
    steps.push(0.0, 5)  # 160 ms more silence: not yet committed (that takes commit - check = 500 ms)
    steps.push(0.3, 10)  # the learner goes on
    tts.release.set()
    steps.pause_until_judged(judge, 2)
    call.queued(9000)
    call.play_all()
    call.rec.wait_kind(ev.TutorTurnDone)
    assert [u.text for u in call.rec.of(ev.UserUtterance)] == ["I went to the park with my sister"]
    assert [t.user_text for t in call.session.turns] == ["I went to the park with my sister"]
    assert call.ctl.loop.listener.ends == {"sentence": 1, "retracted": 1, "judge": 1}


def test_a_speculative_turn_the_learner_talks_on_through_leaves_no_trace(calls):
    judge = ScriptedJudge(COMPLETE)
    tts = HeldTts()
    call = calls(judge=judge, tts=tts, stt=FakeStt("I went to", "I went to the park"))
    steps = Steps(call)
    steps.first_turn(judge)
    assert tts.entered.wait(10)  # the tutor's first sentence is being synthesised, not yet played
    steps.push(0.3, 10)  # the learner goes on
    tts.release.set()
    steps.pause_until_judged(judge, 2)
    call.queued(9000)
    call.play_all()
    done = call.rec.wait_kind(ev.TutorTurnDone)
    assert [u.text for u in call.rec.of(ev.UserUtterance)] == ["I went to the park"]
    assert [t.user_text for t in call.session.turns] == ["I went to the park"]  # nothing stored of the guess
    assert len(done) == 1 and call.session.texts == ["I went to", "I went to the park"]
    played = {gen for gen, _ in call.player.stats.played}
    assert len(played) == 1  # not one sample of the retracted turn was played


def test_a_reply_ready_in_a_comma_pause_waits_and_the_learner_going_on_retracts_it_unheard(calls):
    """"Hello, | I had a job interview today.": the span before the comma is judged complete
    and its reply is ready at once, but no reply plays before `earliest_ms` of silence -
    Piper's comma pause (9 silent frames) ends first, and the learner's going on retracts it."""
    judge = ScriptedJudge(COMPLETE)
    tts = HeldTts()
    call = calls(judge=judge, speculation=SpeculationOptions(), tts=tts,
                 stt=FakeStt("Hello.", "Hello, I had a job interview today."))
    steps = Steps(call)
    steps.first_turn(judge)  # 8 frames of silence: judged complete, the reply asked for
    assert tts.entered.wait(10)  # its first sentence is being synthesised ...
    tts.release.set()  # ... and is ready: held, not played
    steps.push(0.0, 1)  # 9 frames: the comma pause
    steps.push(0.3, 20)  # the learner goes on
    steps.pause_until_judged(judge, 2)
    for _ in range(frames(SpeculationOptions().earliest_ms) - CHECK - 1):
        steps.push(0.0, 1)  # to the earliest a reply plays
    call.queued(9000)
    call.play_all()
    done = call.rec.wait_kind(ev.TutorTurnDone)
    assert [u.text for u in call.rec.of(ev.UserUtterance)] == ["Hello, I had a job interview today."]
    assert len(done) == 1 and [t.user_text for t in call.session.turns] == ["Hello, I had a job interview today."]
    assert len({gen for gen, _ in call.player.stats.played}) == 1  # not one sample of "Hello."'s reply
    assert call.ctl.loop.listener.ends == {"judge": 2, "retracted": 1}


def test_a_reply_held_for_the_earliest_silence_plays_when_it_comes(calls):
    judge = ScriptedJudge(COMPLETE)
    call = calls(judge=judge, speculation=SpeculationOptions())
    steps = Steps(call)
    steps.first_turn(judge)
    spec = call.ctl.loop.listener._ends.speculation
    assert spec is not None and spec.held and spec.turn.held  # speculated, held: 256 ms of silence so far
    steps.push(0.0, frames(SpeculationOptions().earliest_ms) - CHECK - 1)
    assert not spec.held  # released at 480 ms
    call.queued(9000)
    call.play_all()
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done.reply == " ".join(REPLY) and not done.interrupted
    assert call.rec.of(ev.UserUtterance)[0].text == "hello there"


def test_without_a_judge_the_vad_rule_ends_the_turn(calls):
    call = calls(judge=None)
    steps = Steps(call)
    steps.push(0.0, 15)
    steps.push(0.3, 16)
    steps.push(0.0, 10)
    assert not call.rec.of(ev.UserUtterance)
    steps.push(0.0, 10)  # 640 ms > the 600 ms VAD-only window
    assert call.rec.wait_kind(ev.UserUtterance)[0].text == "hello there"


def test_a_backchannel_over_the_tutor_does_not_stop_it_and_is_kept(calls):
    judge = ScriptedJudge(COMPLETE)
    call = calls(judge=judge, stt=FakeStt("tell me about your day", "mm-hm"))
    steps = Steps(call)
    steps.first_turn(judge)
    steps.tutor_speaking()
    steps.push(0.3, 10)  # 320 ms of "mm-hm" over the tutor
    steps.pause_until_judged(judge, 2)
    call.rec.wait_kind(ev.Backchannel)
    call.play_all()
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert not done.interrupted and done.reply == " ".join(REPLY)
    assert done.backchannels == ("mm-hm",)
    assert len(call.rec.of(ev.UserUtterance)) == 1


def test_a_sentence_over_the_tutor_interrupts_it(calls):
    judge = ScriptedJudge(COMPLETE)
    call = calls(judge=judge, replies=[REPLY, ["Sure."]], stt=FakeStt("hello there", "wait I have a question"))
    steps = Steps(call)
    steps.first_turn(judge)
    steps.tutor_speaking()
    steps.push(0.3, 11)  # 8 frames confirm it (ducked), at 10 (320 ms) its words so far go to STT
    call.ctl.loop._pool("stt").submit(lambda: None).result()  # ... and are in
    steps.push(0.3, 9)  # the next frame acts on them ("wait ...": an interruption)
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done.interrupted and done.reply == "One"
    steps.pause_until_judged(judge, 2)
    assert call.rec.wait_kind(ev.UserUtterance, 2)[1].text == "wait I have a question"


def test_a_span_judged_complete_without_words_ends_with_nothing_to_answer(calls):
    """The judge called a span complete whose transcript is empty (a noise; the replayed echo
    after an audio stall): no turn starts, and its commit does not take the audio thread down."""
    judge = ScriptedJudge(COMPLETE)
    call = calls(judge=judge, stt=FakeStt("", "hello there"))
    steps = Steps(call)
    steps.first_turn(judge)  # speculated on "": no turn
    steps.push(0.0, 30)  # past the commit wait and the segmenter's own silence window
    assert not call.rec.of(ev.UserUtterance)
    steps.push(0.3, 16)  # the learner, heard as ever
    steps.pause_until_judged(judge, 2)
    assert call.rec.wait_kind(ev.UserUtterance)[0].text == "hello there"


@pytest.mark.parametrize("text", ["Mm-hm.", "Yeah!", "okay", "Oh, I see.", "uh-huh", "Right, right."])
def test_backchannel_words(text):
    assert is_backchannel(text)


@pytest.mark.parametrize("text", ["", "Yeah, but wait", "Stop.", "Sorry?", "I see what you mean", "Can I",
                                  "okay so I think", "No."])
def test_not_backchannels(text):
    assert not is_backchannel(text)


def test_speech_that_interrupts_at_its_end_goes_on_as_one_turn(calls):
    """AEC3 hides a learner who talks on over the tutor: the silence that ended a short
    stretch over it is no pause. Once its words interrupt, what follows is the same turn."""
    judge = ScriptedJudge(COMPLETE)
    stt = FakeStt("hello there", "sorry can I", "sorry can I ask you something")
    call = calls(judge=judge, replies=[REPLY, ["Sure."]], stt=stt)
    steps = Steps(call)
    steps.first_turn(judge)
    steps.tutor_speaking()
    steps.push(0.3, 9)  # confirmed over the tutor (8 frames), short of the words check (10)
    steps.push(0.0, CHECK)  # "silence": its words so far are asked for ...
    call.ctl.loop._pool("stt").submit(lambda: None).result()  # ... and are in
    steps.push(0.0, 1)  # acted on: "sorry" asks for the floor
    assert call.rec.wait_kind(ev.TutorTurnDone)[0].interrupted
    assert len(call.rec.of(ev.UserUtterance)) == 1  # no turn yet
    steps.push(0.3, 12)  # the learner talks on, now heard
    steps.pause_until_judged(judge, 3)  # (the judge was asked about the stretch too, and ignored)
    assert judge.texts[2] == "sorry can I ask you something"
    assert call.rec.wait_kind(ev.UserUtterance, 2)[1].text == "sorry can I ask you something"


def test_a_short_sound_not_kept_stays_the_start_of_the_speech_after_it(calls):
    """AEC3 can hide a sentence's first words as a short sound the segmenter never confirms
    (the echo's odd voiced frame keeps it pending): unless it was kept as a backchannel it
    stays the start of the speech confirmed after it, so its words are not lost."""
    judge = ScriptedJudge(COMPLETE)
    stt = FakeStt("hello there", "mm-hm mm-hm")
    call = calls(judge=judge, stt=stt)
    steps = Steps(call)
    steps.first_turn(judge)
    steps.tutor_speaking()
    steps.push(0.3, 5)  # a short sound: pending in the segmenter, a stretch for ShortSpeech
    for _ in range(3):  # the echo's odd voiced frame: never the segmenter's 19 frames of silence
        steps.push(0.0, 14)  # (nor ShortSpeech's 12 that make two stretches one sound)
        steps.push(0.3, 1)
    steps.push(0.3, 10)  # more voice: confirmed
    steps.pause_until_judged(judge, 2)
    over = [clip for clip, bias in zip(stt.clips, stt.biases) if bias is not None]
    assert over and max(clip.samples.size for clip in over) >= (5 + 3 * 15 + 10) * 512
    # short of a sentence's voice, however long: Whisper expects a backchannel (two "mm-hmm"s)
    assert len(stt.biases) > 2 and None not in stt.biases[1:]


class FailingStt(FakeStt):
    def transcribe(self, clip, bias=None):
        raise RuntimeError("the decoder crashed")


def test_a_turn_speech_recognition_fails_on_is_reported_not_dropped(calls):
    """The judge cannot run without words; the turn ends at the thinking time and reaches the
    learner as a failed turn (never as a turn with no words, which is dropped silently)."""
    judge = ScriptedJudge(COMPLETE)
    call = calls(judge=judge, stt=FailingStt())
    steps = Steps(call)
    steps.push(0.0, 15)
    steps.push(0.3, 16)
    steps.push(0.0, 50)  # past the 1.5 s thinking time
    assert "failed" in call.rec.wait_kind(ev.Problem)[0].message
    assert judge.texts == [] and not call.rec.of(ev.UserUtterance)
