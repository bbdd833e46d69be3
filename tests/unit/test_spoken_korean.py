"""Spoken Korean, and doubted English (tutor/hear_again.py): a turn the English gate turned
away is heard again by the multilingual model; Korean it is sure of is answered, never
stored; English it is sure of, in words that pass the English gate's rules, is the
learner's turn; anything else keeps "I didn't catch that". The model is behind the `Ear` seam, scripted here (no
Korean recording exists on this machine; the real model's own tests are in
tests/integration/test_spoken_korean_model.py)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.unit.call_fakes import LOUD, FakeSession, FakeStt
from tests.unit.test_call_loop import REPLY, Call, calls  # noqa: F401 - the fixture
from tests.unit.test_call_threads import CompleteJudge
from tests.unit.test_heard import UnsureStt, transcript
from tutor_app.call import events as ev
from tutor_app.core.types import SAMPLE_RATE, AudioClip, Transcript
from tutor_app.speech.language_id import Hearing
from tutor_app.tutor.hear_again import AgainRules, hear_again, judge
from tutor_app.tutor.heard import NOT_HEARD

ASK = "출장은 영어로 뭐예요?"
CLIP = AudioClip(np.zeros(SAMPLE_RATE, dtype=np.float32), SAMPLE_RATE)
WANTED = {"ko": 0.5, "en": 0.8}  # Korean as surely as Whisper's own threshold; English surer
KOREAN_GUESS = transcript("I'm not going to go there, you're", logprob=-1.1)  # tiny.en on Korean


class ScriptedEar:
    """The multilingual model's seam: one scripted hearing, and what it was asked."""

    def __init__(self, hearing: Hearing) -> None:
        self.hearing = hearing
        self.asked: list[dict[str, float]] = []

    def hear(self, clip: AudioClip, wanted) -> Hearing:
        self.asked.append(dict(wanted))
        return self.hearing


def korean(text: str = ASK, probability: float = 0.93, **kw) -> Hearing:
    values = {"avg_logprob": -0.35, "no_speech_prob": 0.02, "compression_ratio": 1.1} | kw
    return Hearing("ko", probability, text, **values)


def english(text: str = "I live in Seoul.", probability: float = 0.87, **kw) -> Hearing:
    values = {"avg_logprob": -0.3, "no_speech_prob": 0.03, "compression_ratio": 0.9} | kw
    return Hearing("en", probability, text, **values)


def test_korean_the_model_is_sure_of_is_the_turn():
    ear = ScriptedEar(korean())
    found = hear_again(CLIP, KOREAN_GUESS, ear)
    assert found is not None and found.text == ASK and found.reason == "korean"
    assert ear.asked == [WANTED]


def test_the_question_does_not_arise_for_english_silence_or_without_the_model():
    ear = ScriptedEar(korean())
    assert hear_again(CLIP, transcript("I went to the market with my mother yesterday."), ear) is None
    assert hear_again(CLIP, Transcript("", "en", 1.0), ear) is None  # silence: as before
    assert ear.asked == []  # the model never ran
    assert hear_again(CLIP, KOREAN_GUESS, None) is None  # not installed


@pytest.mark.parametrize(("hearing", "reason"), [
    (Hearing("ja", 0.88), "other-language"),
    (Hearing("en", 0.61, "I think so."), "other-language"),  # English the larger model doubts too
    (english("King three war F-I-V-I-V-I-V-I-V-I-V", probability=0.85), "spelled"),  # Chinese, greedy-decoded
    (english("Chinese letter, Chinese letter, Chinese letter", compression_ratio=5.7), "repetitive"),
    (english(avg_logprob=-0.9), "low-confidence"),  # the English gate's own limit for a sentence
    (english(no_speech_prob=0.5, avg_logprob=-0.6), "no-speech"),
    (english("..."), "no-words"),
    (korean(probability=0.41), "unsure-language"),
    (korean(""), "no-words"),
    (korean("..."), "no-words"),
    (korean("I'm going on a business trip"), "not-hangul"),
    (korean(avg_logprob=-1.3), "low-confidence"),
    (korean(no_speech_prob=0.7), "no-speech"),
    (korean("네 네 네 네 네 네 네 네 네 네 네 네", compression_ratio=3.1), "repetitive"),
    (korean("시청해 주셔서 감사합니다."), "stock-line"),
    (korean("구독과 좋아요 부탁드립니다"), "stock-line"),
])
def test_anything_else_keeps_i_didnt_catch_that(hearing, reason):
    found = hear_again(CLIP, KOREAN_GUESS, ScriptedEar(hearing))
    assert found is not None and found.text == "" and found.reason == reason


def test_english_the_larger_model_is_sure_of_is_the_learners_turn():
    """tiny.en doubted espeak's clear "I live in Seoul." (-0.79, over the -0.75 limit);
    whisper-base heard English at 0.87 and decoded it surely: the learner's words."""
    found = hear_again(CLIP, transcript("I live in Seoul.", logprob=-0.79), ScriptedEar(english()))
    assert found is not None and found.text == "I live in Seoul." and found.reason == "english" and found.remember
    short = judge(english("Yes, I did.", avg_logprob=-1.0), AgainRules())  # a short turn's own limit
    assert short.text == "Yes, I did." and short.remember


def test_korean_is_never_remembered():
    assert judge(korean(), AgainRules()).remember is False


def test_korean_with_english_words_in_it_is_still_korean():
    assert judge(korean("출장 is 영어로 뭐예요?"), AgainRules()).text == "출장 is 영어로 뭐예요?"
    assert judge(korean("  이거   영어로 뭐라고 해요? "), AgainRules()).text == "이거 영어로 뭐라고 해요?"


# -- the live call ---------------------------------------------------------------------
class KoreanSession(FakeSession):
    """The engine's turn() contract, with `remember` (what the loop asked for) kept."""

    def __init__(self, settings) -> None:
        super().__init__([["In English, we say \"business trip\"."]])
        self.engine = type("Engine", (), {"settings": settings})()
        self.remember: list[bool] = []

    def turn(self, text, *args, remember=True, **kwargs):
        self.remember.append(remember)
        return super().turn(text, *args, **kwargs)


@pytest.fixture
def korean_call(tmp_path, monkeypatch):
    """make(hearing, **call options) -> a call whose multilingual model hears `hearing`."""
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings

    made: list[Call] = []

    def make(hearing: Hearing, **options) -> Call:
        ear = ScriptedEar(hearing)
        monkeypatch.setattr("tutor_app.speech.language_id.installed_ear", lambda settings, registry=None: ear)
        call = Call(stt=UnsureStt(), **options)
        made.append(call)
        call.session = call.ctl.loop.turns.session = KoreanSession(Settings(paths=AppPaths.resolve(tmp_path)))
        call.ear = ear
        return call

    yield make
    for call in made:
        call.end()


def test_a_spoken_korean_turn_is_answered_and_never_stored(korean_call):
    call = korean_call(korean())
    call.mic.push_frames(0.0, 15)
    call.say()
    call.queued(1000 * 4)
    call.play_all()
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert not done.not_heard and done.reply == "In English, we say \"business trip\"."
    assert call.session.texts == [ASK] and call.session.remember == [False]  # answered, not stored
    assert [u.text for u in call.rec.of(ev.UserUtterance)] == [ASK]  # the learner sees what was heard
    assert "heard_again" in call.ctl.loop.results[-1].timings_ms
    assert call.ear.asked == [WANTED]


def test_doubted_english_the_larger_model_is_sure_of_is_answered_and_stored(korean_call):
    call = korean_call(english("I live in Seoul."))
    call.mic.push_frames(0.0, 15)
    call.say()
    call.queued(1000 * 4)
    call.play_all()
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert not done.not_heard
    assert call.session.texts == ["I live in Seoul."] and call.session.remember == [True]  # the learner's words
    assert [u.text for u in call.rec.of(ev.UserUtterance)] == ["I live in Seoul."]
    assert call.ear.asked == [WANTED]


def test_a_turn_in_another_language_still_gets_the_fixed_line(korean_call):
    call = korean_call(Hearing("ja", 0.9))
    call.mic.push_frames(0.0, 15)
    call.say()
    call.queued(1000 * len(NOT_HEARD.split()))
    call.play_all()
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert done.not_heard and done.reply == NOT_HEARD
    assert call.session.texts == [] and [u.text for u in call.rec.of(ev.UserUtterance)] == [""]


def test_a_speculative_korean_turn_shows_the_words_once_it_is_the_learners(korean_call):
    """Speculated on as "not understood" (nothing shown), then heard as Korean: the words
    are shown when the silence makes the turn the learner's, then answered."""
    judge = CompleteJudge()
    call = korean_call(korean(), judge=judge)
    call.mic.push_frames(0.0, 15)
    call.mic.push_frames(LOUD, 16)
    call.mic.push_frames(0.0, 7)  # through the judge's check (200 ms)
    call.processed(15 + 16 + 7)
    assert judge.asked.wait(10)
    call.ctl.loop._pool("judge").submit(lambda: None).result()  # the verdict is in: speculation
    call.mic.push_frames(0.0, 30)  # quiet on: the turn becomes the learner's
    call.queued(1000 * 4)
    call.play_all()
    done = call.rec.wait_kind(ev.TutorTurnDone)[0]
    assert not done.not_heard
    assert [u.text for u in call.rec.of(ev.UserUtterance)] == [ASK]
    assert call.session.texts == [ASK] and call.session.remember == [False]


def test_english_turns_never_ask_the_multilingual_model(korean_call):
    call = korean_call(korean())
    call.ctl.loop.recognition._stt = FakeStt("hello there")
    call.mic.push_frames(0.0, 15)
    call.say()
    call.queued(1000 * 4)
    call.play_all()
    call.rec.wait_kind(ev.TutorTurnDone)
    assert call.session.texts == ["hello there"] and call.session.remember == [True]
    assert call.ear.asked == []
