"""A spoken turn the English recogniser did not understand (tutor/heard.py) may be Korean:
"이거 영어로 뭐라고 해요?". When the optional multilingual Whisper is installed
(speech/language_id.py), it is asked which language the turn is in; a turn it is sure is
Korean is decoded in Korean and answered like typed Korean (tutor/korean_help.py: the
built-in help offline, the help rule with a model that reads Korean). Any other language,
or a guess it is not sure of, keeps the "I didn't catch that" line.

The Korean words are answered, never stored: the engine runs the turn with
`remember=False` (no memory, no transcript line, nothing for the call end), because a
base-sized Whisper mishears Korean often enough that what it made of the turn must not
become a fact about the learner.

The rules are Whisper's own defaults (no Korean recordings were at hand to tune them):
a language probability of at least 0.5 (its language-detection threshold), a mean token
log-probability of at least -1.0 and a no-speech probability under 0.6 (its fallback and
silence thresholds), a compression ratio of at most 2.4 (its loop check). On top, the words
must be mostly Hangul, and not one of the lines Whisper is known to invent in Korean on
noise (the end of a YouTube video: "시청해 주셔서 감사합니다").
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np
from numpy.typing import NDArray

from tutor_app.core.types import SAMPLE_RATE, AudioClip, Transcript
from tutor_app.speech.language_id import Hearing
from tutor_app.tutor.heard import heard
from tutor_app.tutor.korean_help import HANGUL

if TYPE_CHECKING:
    from tutor_app.settings import Settings

log = logging.getLogger(__name__)

KOREAN = "ko"
LETTER = re.compile(r"[^\W\d_]")
# Whisper's stock Korean lines, trained in from subtitles: said on noise, never by a learner
# to a tutor. Compared without spaces or punctuation.
STOCK_LINES = ("시청해주셔서감사합니다", "시청해주셔서고맙습니다", "구독과좋아요", "구독좋아요", "좋아요와구독",
               "구독부탁드립니다", "다음영상에서만나요", "자막제공", "자막by", "mbc뉴스")


class Ear(Protocol):
    """A multilingual recogniser (speech/language_id.MultilingualWhisper; a scripted one in
    tests): the language of a turn, and its words when it is `language` at least as
    surely as `min_probability`."""

    def hear(self, clip: AudioClip, language: str, min_probability: float) -> Hearing: ...


@dataclass(frozen=True)
class KoreanRules:
    min_language_probability: float = 0.5
    min_avg_logprob: float = -1.0
    max_no_speech_prob: float = 0.6
    max_compression_ratio: float = 2.4
    min_hangul_share: float = 0.5  # of the letters: "출장 is 영어로 뭐예요" is still Korean


@dataclass(frozen=True)
class KoreanTurn:
    """The verdict on one turn: `text` is the Korean to answer, "" when there is none."""
    text: str
    reason: str  # "korean", "other-language", "unsure-language", "no-words", "not-hangul", "low-confidence",
    #              "no-speech", "repetitive", "stock-line"
    language: str = ""
    probability: float = 0.0


def korean_turn(clip: AudioClip, transcript: Transcript, ear: Ear | None,
                rules: KoreanRules | None = None) -> KoreanTurn | None:
    """The Korean of a spoken turn the English gate turned away, or None when the question
    does not arise (the turn was understood, was silence, or no multilingual model is
    installed). A verdict with `text` "" keeps today's "I didn't catch that"."""
    if ear is None:
        return None
    verdict = heard(transcript)
    if verdict.understood or verdict.reason == "empty":
        return None
    rules = rules or KoreanRules()
    hearing = ear.hear(clip, KOREAN, rules.min_language_probability)
    result = judge(hearing, rules)
    log.info("a turn the English recogniser did not understand (%s): %s %.2f -> %s (%.1f s)", verdict.reason,
             hearing.language, hearing.probability, result.reason, hearing.seconds)  # never the words
    return result


def judge(hearing: Hearing, rules: KoreanRules) -> KoreanTurn:
    """Whether the multilingual model's hearing of a turn is Korean words to answer."""
    def no(reason: str) -> KoreanTurn:
        return KoreanTurn("", reason, hearing.language, hearing.probability)

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
    return KoreanTurn(text, "korean", hearing.language, hearing.probability)


def hear_korean(settings: Settings | None, samples: NDArray[np.float32] | None, transcript: Transcript) -> str:
    """The live call's question (call/loop.py; `samples` at 16 kHz): the Korean words of a turn the English
    gate turned away, when the multilingual model is installed and sure of them; else ""."""
    if settings is None or samples is None:
        return ""
    from tutor_app.speech.language_id import installed_ear

    found = korean_turn(AudioClip(samples, SAMPLE_RATE), transcript, installed_ear(settings))
    return found.text if found is not None else ""
