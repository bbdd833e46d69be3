"""Did the English recogniser understand this spoken turn? Decided from Whisper's own signals.

Whisper tiny.en knows only English: Korean speech comes out as fluent-looking English
("I'm not going to go there, you're...") that must not reach the tutor as the learner's
words, nor be stored. It gives itself away in its own confidence: the per-segment average
log-probability and the probabilities of the words it chose are low, and its no-speech
score is often high. (tiny.en has no language detection; with the optional multilingual
model installed, a turn turned away here is heard again, and Korean it is sure of is
answered: tutor/hear_again.py.) A turn not understood is answered with NOT_HEARD, a
fixed line that is spoken and shown but never stored.

The limits were set on synthetic Korean, Japanese and Chinese speech against recorded
and accented English (`tutor-app bench language`, tutor_app/bench/language_clips.py).
"""
from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from tutor_app.core.types import Transcript
from tutor_app.tutor.turn import StageClock, TurnResult

log = logging.getLogger(__name__)

# Spoken in English (the tutor's voice is English); the window shows it in the interface's
# language once said (ui/call_view.py, the same text marked for translation there).
NOT_HEARD = "I didn't catch that - try again in English, or type it."


@dataclass(frozen=True)
class HeardRules:
    # Averages over the turn's segments, weighted by their duration.
    min_avg_logprob: float = -0.75  # Whisper's mean token log-probability
    min_word_probability: float = 0.5  # mean probability of the words it chose
    # A turn of one to three words ("Hello!", "No, thank you.") is decoded with less
    # confidence (-0.85 for Piper's clear "Hello!", -0.99 in espeak's Korean voice, -0.78
    # for "No, thank you." in its Chinese one) and a higher no-speech score: a lower
    # limit, and neither the no-speech nor the word-probability rule.
    short_words: int = 3
    short_min_avg_logprob: float = -1.15
    # Fairly sure there was no speech, and not very sure of the words (Whisper's own
    # silence rule, tighter): English clips stayed under 0.31.
    max_no_speech_prob: float = 0.4
    no_speech_logprob: float = -0.5
    no_words_min_speech_s: float = 1.0
    max_compression_ratio: float = 2.4  # text that repeats itself: Whisper looping
    # Whisper spells what it cannot make words of ("F-O-F-I", "1-2-2-2-1"): a turn of at
    # least `spelled_min_tokens` tokens, most of them one letter or digit, is not words.
    spelled_min_tokens: int = 6
    spelled_share: float = 0.5
    # ... or one chain of this many hyphen-joined parts ("1-1-1-1-K3-4-F-I-M2-...",
    # "two-ton-one-catoo-man-one-one-..."): Chinese speech that Whisper's greedy decode
    # made into chains; English compounds have 2-4 parts ("state-of-the-art").
    spelled_chain_parts: int = 8


@dataclass(frozen=True)
class Heard:
    understood: bool
    reason: str  # "ok", "empty", "no-words", "spelled", "repetitive", "no-speech", "low-confidence", "unsure-words"
    avg_logprob: float = 0.0
    word_probability: float = 1.0
    no_speech_prob: float = 0.0


def heard(transcript: Transcript, rules: HeardRules | None = None) -> Heard:
    """Whether `transcript` can be passed on as the learner's words, and why not."""
    rules = rules or HeardRules()
    if not transcript.text.strip():
        # Whisper drops what it takes for no speech: over a second of what the VAD heard
        # as speech, gone, is speech it could not make words of (espeak's Korean at 175 wpm).
        voiced = getattr(transcript, "speech_seconds", None) or 0.0
        return Heard(False, "no-words" if voiced >= rules.no_words_min_speech_s else "empty")
    # A recogniser that gives no decoder signals (a transcript made by hand): nothing to doubt.
    segments = [s for s in getattr(transcript, "segments", None) or () if s.text.strip()]
    if not segments:
        return Heard(False, "spelled") if spelled(transcript.text, rules) else Heard(True, "ok")
    weights = [max(s.end - s.start, 0.01) for s in segments]
    total = sum(weights)
    logprob = sum(s.avg_logprob * w for s, w in zip(segments, weights)) / total
    no_speech = sum(s.no_speech_prob * w for s, w in zip(segments, weights)) / total
    words = [w.probability for s in segments for w in s.words]
    word_p = sum(words) / len(words) if words else 1.0
    compression = max(s.compression_ratio for s in segments)

    def verdict(ok: bool, reason: str) -> Heard:
        return Heard(ok, reason, round(logprob, 3), round(word_p, 3), round(no_speech, 3))

    if compression > rules.max_compression_ratio or any(s.sampled for s in segments):
        # Looped, or a sample that replaced a looped decode (its log-probabilities look
        # surer than they are: espeak's Korean once passed at -0.71 that way).
        return verdict(False, "repetitive")
    # After the loop check: a sample's words vary from run to run (spelled or not), the
    # fact that it replaced a loop does not - the same clip gets the same reason.
    if spelled(transcript.text, rules):
        return verdict(False, "spelled")
    short = len(words) <= rules.short_words if words else len(transcript.text.split()) <= rules.short_words
    if not short and no_speech > rules.max_no_speech_prob and logprob < rules.no_speech_logprob:
        return verdict(False, "no-speech")
    if logprob < (rules.short_min_avg_logprob if short else rules.min_avg_logprob):
        return verdict(False, "low-confidence")
    if not short and word_p < rules.min_word_probability:
        return verdict(False, "unsure-words")
    return verdict(True, "ok")


def spelled(text: str, rules: HeardRules) -> bool:
    tokens = re.findall(r"[^\W_]+", text)
    chains = re.findall(r"[^\W_]+(?:-[^\W_]+)+", text)
    if any(chain.count("-") + 1 >= rules.spelled_chain_parts for chain in chains):
        return True
    if len(tokens) < rules.spelled_min_tokens:
        return False
    return sum(len(t) == 1 for t in tokens) / len(tokens) > rules.spelled_share


def not_heard_turn(transcript: Transcript, on_sentence: Callable[[str], None] | None,
                   clock: StageClock, rules: HeardRules | None = None) -> TurnResult | None:
    """The answer to a spoken turn that was not understood (NOT_HEARD, said through
    `on_sentence`, nothing stored), or None when the turn goes on as the learner's words.
    An empty transcript goes on as before (the caller's rule for silence)."""
    verdict = heard(transcript, rules)
    if verdict.understood or verdict.reason == "empty":
        return None
    log.info("a spoken turn of %.1f s was not understood (%s, logprob %.2f, words %.2f, no-speech %.2f): "
             "not passed on", getattr(transcript, "seconds", 0.0), verdict.reason, verdict.avg_logprob, verdict.word_probability,
             verdict.no_speech_prob)
    if on_sentence is not None:
        on_sentence(NOT_HEARD)
    return TurnResult(user_text="", reply=NOT_HEARD, timings_ms=dict(clock.timings), transcript=transcript.text,
                      not_heard=verdict.reason)
