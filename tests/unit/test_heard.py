"""The "not English" gate (tutor/heard.py) on scripted Transcript values, and the live
call loop answering a turn it did not understand with the fixed line."""
from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from tests.unit.call_fakes import FakeStt
from tests.unit.test_call_loop import REPLY, calls  # noqa: F401 - the fixture
from tutor_app.call import events as ev
from tutor_app.core.types import Segment, Transcript, Word
from tutor_app.tutor.heard import NOT_HEARD, HeardRules, heard, not_heard_turn
from tutor_app.tutor.turn import StageClock


def transcript(text: str, logprob: float = -0.3, no_speech: float = 0.05, compression: float = 1.2,
               word_p: float = 0.9, seconds: float = 3.0) -> Transcript:
    words = tuple(Word(i * 0.3, i * 0.3 + 0.25, w, word_p) for i, w in enumerate(text.split()))
    return Transcript(text, "en", seconds, [Segment(0.0, seconds, text, words, logprob, no_speech, compression)])


def test_confident_english_passes():
    verdict = heard(transcript("I went to the market with my mother yesterday."))
    assert verdict.understood and verdict.reason == "ok"


@pytest.mark.parametrize(("kwargs", "reason"), [
    ({"logprob": -1.05}, "low-confidence"),  # what Korean speech through tiny.en looks like
    ({"logprob": -0.62, "no_speech": 0.48}, "no-speech"),
    ({"compression": 2.9}, "repetitive"),
    ({"word_p": 0.35}, "unsure-words"),
])
def test_unsure_turns_are_not_understood(kwargs, reason):
    verdict = heard(transcript("I'm not going to go there, you're not going to go", **kwargs))
    assert not verdict.understood and verdict.reason == reason


def test_a_sample_that_replaced_a_looped_decode_is_not_understood_however_sure_it_looks():
    """CI once had espeak's Korean come back from Whisper's temperature fallback at -0.71
    and word probability 0.7: sharpened, not sure."""
    sure_looking = transcript("Go to the park, we'll see you all.", logprob=-0.71, word_p=0.7)
    assert heard(sure_looking).understood
    sure_looking.segments[0] = replace(sure_looking.segments[0], sampled=True)
    verdict = heard(sure_looking)
    assert not verdict.understood and verdict.reason == "repetitive"


def test_a_sampled_decode_gets_the_same_reason_whatever_its_words():
    """The sample's words vary from run to run: CI once had them spelled ("N-O-N-O ...")
    in one run of five. The reason comes from the loop it replaced, every time."""
    for text in ("No, no, I'll go with you.", "N-O-N-O-N-O-N-O-N-O-N-O"):
        sampled = transcript(text, logprob=-1.3, word_p=0.33)
        sampled.segments[0] = replace(sampled.segments[0], sampled=True)
        verdict = heard(sampled)
        assert not verdict.understood and verdict.reason == "repetitive", text


@pytest.mark.parametrize("text", [
    "Warm, you're the two-ton-one-catoo-man-one-one-one-one-catoo-one-catoo-one-cato",
    "We'll mute the 2T on one head to my 1-1-1-1-K3-4-F-I-M2-3-2-3-4-F-I-M2-",
])
def test_long_hyphen_chains_are_not_words(text):
    """Chinese speech in espeak's voice, as Whisper's greedy decode wrote it."""
    assert heard(transcript(text, logprob=-0.7, word_p=0.55)).reason == "spelled"


def test_english_compounds_are_words():
    verdict = heard(transcript("My mother-in-law bought a state-of-the-art, up-to-date phone."))
    assert verdict.understood


def test_spelled_letters_and_digit_runs_are_not_words():
    assert heard(transcript("F-O-F-I viewing the 1-U and 3-M-I-W-W-W")).reason == "spelled"
    assert heard(transcript("1-2-2-2-1-2-1-2-1-3-4-4-5")).reason == "spelled"
    assert heard(transcript("Go forward 10 meters.")).understood


def test_a_short_answer_gets_a_lower_limit():
    # Whisper is less sure of one word: Piper's clear "Hello!" decodes at -0.85.
    assert heard(transcript("Hello!", logprob=-0.85, word_p=0.16)).understood
    assert heard(transcript("Hello.", logprob=-0.97, no_speech=0.45)).understood  # espeak en-us, slow
    assert not heard(transcript("Hello!", logprob=-1.3)).understood
    assert not heard(transcript("Thank you for watching!", logprob=-0.85)).understood


def test_segments_weigh_by_their_length():
    words = (Word(0.0, 0.5, "yes", 0.9),)
    t = Transcript("Yes. I'm not going to go there", "en", 6.0, [
        Segment(0.0, 0.5, "Yes.", words, -0.2, 0.0, 1.0),
        Segment(0.5, 6.0, "I'm not going to go there", words * 6, -1.2, 0.0, 1.0)])
    assert heard(t).reason == "low-confidence"


def test_empty_and_signal_free_transcripts():
    assert heard(Transcript("", "en", 1.0)).reason == "empty"
    assert heard(Transcript("", "en", 2.0, speech_seconds=0.4)).reason == "empty"  # a cough: no turn, as before
    assert heard(Transcript("typed words", "en", 0.0)).understood  # no decoder signals: nothing to doubt
    assert heard(SimpleNamespace(text="hello")).understood  # type: ignore[arg-type]


def test_over_a_second_of_speech_without_words_is_not_understood():
    # Whisper drops what it takes for no speech: espeak's Korean at 175 wpm came out empty.
    verdict = heard(Transcript("", "en", 1.93, speech_seconds=1.83))
    assert not verdict.understood and verdict.reason == "no-words"
    assert not_heard_turn(Transcript("", "en", 1.93, speech_seconds=1.83), None, StageClock()) is not None


def test_rules_can_be_tightened():
    assert not heard(transcript("a clear sentence here", logprob=-0.4), HeardRules(min_avg_logprob=-0.3)).understood


def test_not_heard_turn_says_the_line_and_keeps_nothing():
    said: list[str] = []
    result = not_heard_turn(transcript("You're not going wrong, I'll go ahead.", logprob=-1.1), said.append,
                            StageClock())
    assert result is not None and said == [NOT_HEARD]
    assert result.user_text == "" and result.reply == NOT_HEARD and result.stored == []
    out = result.to_json()
    assert out["not_understood"] is True and out["not_understood_reason"] == "low-confidence"
    assert {"user_text", "reply", "emotion", "recalled", "stored", "guardrail", "timings_ms"} <= set(out)
    assert not_heard_turn(transcript("Hello there."), said.append, StageClock()) is None
    assert not_heard_turn(Transcript("", "en", 1.0), said.append, StageClock()) is None  # silence: as before


class UnsureStt(FakeStt):
    """Whisper tiny.en on Korean speech: fluent-looking English, low confidence."""

    def transcribe(self, clip, bias=None):
        self.clips.append(clip)
        return transcript("I'm not going to go there, you're", logprob=-1.1)


def test_a_live_turn_not_understood_is_answered_and_never_passed_on(calls):  # noqa: F811
    call = calls(stt=UnsureStt())
    call.mic.push_frames(0.0, 15)
    call.say()
    call.queued(1000 * len(NOT_HEARD.split()))  # the fake voice: 1000 samples a word
    call.play_all()
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done.not_heard and done.reply == NOT_HEARD
    assert call.session.texts == [] and call.session.turns == []  # the tutor never got the words
    assert [u.text for u in call.rec.of(ev.UserUtterance)] == [""]  # no learner bubble
    assert [e.text for e in call.rec.of(ev.TutorSentence)] == [NOT_HEARD]
    assert call.ctl.loop.results[-1].not_heard == "low-confidence"
