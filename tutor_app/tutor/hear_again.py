"""A spoken turn the English recogniser did not understand (tutor/heard.py), heard again by
the optional multilingual Whisper (speech/language_id.py), which first tells its language:

- **Korean** it is sure of ("이거 영어로 뭐라고 해요?") is decoded in Korean and answered like
  typed Korean (tutor/korean_help.py), but never stored: the engine runs the turn with
  `remember=False` (no memory, no transcript line, nothing for the call end), because a
  base-sized Whisper mishears Korean often enough that what it made of the turn must not
  become a fact about the learner.
- **English** it is sure of (>= 0.8) is decoded by that larger model and, when its words
  pass the English gate's own rules, they are the learner's words, answered and stored as
  any turn: tiny.en doubts some clear English (espeak's "I live in Seoul." at a mean
  log-probability of -0.79, over the -0.75 limit, heard as English at 0.87). On the
  synthetic Korean, Japanese and Chinese of `tutor-app bench language` the model's
  English probability stayed under 0.75, and those decodes were spelled or looped.
- Any other language, or a guess it is not sure of, keeps the "I didn't catch that" line.

The Korean rules are Whisper's own defaults (no Korean recordings were at hand to tune
them): a language probability of at least 0.5 (its language-detection threshold), a mean
token log-probability of at least -1.0 and a no-speech probability under 0.6 (its fallback
and silence thresholds), a compression ratio of at most 2.4 (its loop check). On top, the
words must be mostly Hangul, and not one of the lines Whisper is known to invent in Korean
on noise (the end of a YouTube video: "시청해 주셔서 감사합니다").
"""
from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np
from numpy.typing import NDArray

from tutor_app.core.types import SAMPLE_RATE, AudioClip, Segment, Transcript
from tutor_app.speech.language_id import Hearing
from tutor_app.tutor.heard import HeardRules, heard
from tutor_app.tutor.korean_help import HANGUL

if TYPE_CHECKING:
    from tutor_app.settings import Settings

log = logging.getLogger(__name__)

KOREAN = "ko"
ENGLISH = "en"
LETTER = re.compile(r"[^\W\d_]")
# Whisper's stock Korean lines, trained in from subtitles: said on noise, never by a learner
# to a tutor. Compared without spaces or punctuation.
STOCK_LINES = ("시청해주셔서감사합니다", "시청해주셔서고맙습니다", "구독과좋아요", "구독좋아요", "좋아요와구독",
               "구독부탁드립니다", "다음영상에서만나요", "자막제공", "자막by", "mbc뉴스")


class Ear(Protocol):
    """A multilingual recogniser (speech/language_id.MultilingualWhisper; a scripted one in
    tests): the language of a turn, and its words when it is one of `wanted` (language ->
    the least probability to decode it at)."""

    def hear(self, clip: AudioClip, wanted: Mapping[str, float]) -> Hearing: ...


@dataclass(frozen=True)
class AgainRules:
    min_language_probability: float = 0.5  # Korean
    min_avg_logprob: float = -1.0
    max_no_speech_prob: float = 0.6
    max_compression_ratio: float = 2.4
    min_hangul_share: float = 0.5  # of the letters: "출장 is 영어로 뭐예요" is still Korean
    # English: surer than any synthetic Korean, Japanese or Chinese was heard as English
    # (0.74 at most); its words then pass the English gate's rules (tutor/heard.py).
    min_english_probability: float = 0.8
    english: HeardRules = field(default_factory=HeardRules)


@dataclass(frozen=True)
class HeardAgain:
    """The verdict on one turn: `text` is the words to answer ("" when there are none);
    Korean (`reason` "korean") is answered, never stored; English ("english") is the
    learner's words like any turn's."""
    text: str
    reason: str  # "korean", "english", "other-language", "unsure-language", "no-words", "not-hangul",
    #              "low-confidence", "no-speech", "repetitive", "spelled", "stock-line"
    language: str = ""
    probability: float = 0.0

    @property
    def remember(self) -> bool:
        """Whether the words may be stored as the learner's (English: yes; Korean: never)."""
        return self.reason == "english"


def hear_again(clip: AudioClip, transcript: Transcript, ear: Ear | None,
               rules: AgainRules | None = None) -> HeardAgain | None:
    """What the multilingual model makes of a spoken turn the English gate turned away, or
    None when the question does not arise (the turn was understood, was silence, or no
    multilingual model is installed). A verdict with `text` "" keeps "I didn't catch that"."""
    if ear is None:
        return None
    verdict = heard(transcript)
    if verdict.understood or verdict.reason == "empty":
        return None
    rules = rules or AgainRules()
    hearing = ear.hear(clip, {KOREAN: rules.min_language_probability, ENGLISH: rules.min_english_probability})
    result = judge(hearing, rules)
    log.info("a turn the English recogniser did not understand (%s): %s %.2f -> %s (%.1f s)", verdict.reason,
             hearing.language, hearing.probability, result.reason, hearing.seconds)  # never the words
    return result


def judge(hearing: Hearing, rules: AgainRules) -> HeardAgain:
    """Whether the multilingual model's hearing of a turn is words to answer."""
    def no(reason: str) -> HeardAgain:
        return HeardAgain("", reason, hearing.language, hearing.probability)

    if hearing.language == ENGLISH:
        return judge_english(hearing, rules)
    if hearing.language != KOREAN:
        return no("other-language")
    if hearing.probability < rules.min_language_probability:
        return no("unsure-language")
    text = " ".join(hearing.text.split())
    letters = LETTER.findall(text)
    if not letters:
        return no("no-words")
    if len(HANGUL.findall(text)) < rules.min_hangul_share * len(letters):
        return no("not-hangul")
    if hearing.no_speech_prob > rules.max_no_speech_prob:
        return no("no-speech")
    if hearing.avg_logprob < rules.min_avg_logprob:
        return no("low-confidence")
    if hearing.compression_ratio > rules.max_compression_ratio:
        return no("repetitive")
    plain = re.sub(r"[\W_]+", "", text).lower()
    if any(line in plain for line in STOCK_LINES):
        return no("stock-line")
    return HeardAgain(text, "korean", hearing.language, hearing.probability)


def judge_english(hearing: Hearing, rules: AgainRules) -> HeardAgain:
    """English the larger model is sure of, whose words pass the English gate itself
    (tutor/heard.py: the same limits as tiny.en's words, short turns included)."""
    if hearing.probability < rules.min_english_probability:
        # accented English it doubts, or a language it took for English
        return HeardAgain("", "other-language", hearing.language, hearing.probability)
    text = " ".join(hearing.text.split())
    if not LETTER.findall(text):
        return HeardAgain("", "no-words", hearing.language, hearing.probability)
    decoded = Segment(0.0, max(hearing.seconds, 0.01), text, (), hearing.avg_logprob, hearing.no_speech_prob,
                      hearing.compression_ratio)
    verdict = heard(Transcript(text, ENGLISH, hearing.seconds, [decoded]), rules.english)
    return HeardAgain(text if verdict.understood else "", "english" if verdict.understood else verdict.reason,
                      hearing.language, hearing.probability)


def heard_again(settings: Settings | None, samples: NDArray[np.float32] | None,
                transcript: Transcript) -> HeardAgain | None:
    """The live call's question (call/turns.py; `samples` at 16 kHz): the words of a turn the
    English gate turned away, when the multilingual model is installed and sure of them."""
    if settings is None or samples is None:
        return None
    from tutor_app.speech.language_id import installed_ear

    found = hear_again(AudioClip(samples, SAMPLE_RATE), transcript, installed_ear(settings))
    return found if found is not None and found.text else None
