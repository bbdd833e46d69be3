"""LocalAgreement-2 on word lists: the pure part of the streaming transcriber.

whisper_streaming (Macháček et al., 2023) decodes a growing utterance again and again and
commits the words two consecutive decodes agree on: Whisper's last words change while the
speaker is still mid-word or mid-phrase, earlier ones settle. Here a decode covers only
the audio after a *cut*: the middle of a pause (the voice detector's quiet stretch) that
all the words before it were agreed on; those words are final and become the prompt of
every later decode, so the words join. Agreed words after the last pause are decoded
again at the end (with the tail), so they are not final. A long stretch without a pause
can be cut between two agreed words instead (`word_cut`); the decode after such a cut
may say the word before it again, which is dropped (`drop_repeat`).

Words are compared without case or punctuation ("waiting," agrees with "waiting"); the
newer decode's spelling and timings are kept.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import groupby

from tutor_app.core.types import Segment, Transcript, Word

_NOT_WORD = re.compile(r"[^\w']+")
END_GUARD_S = 0.1  # a quiet stretch ending this close to the audio's end is not known to end there


@dataclass(frozen=True)
class Heard:
    """One decoded word, its times in seconds from the utterance's start, and the segment
    it came from (Whisper's scores for it: tutor/heard.py judges turns by them)."""

    word: Word
    source: Segment

    @property
    def key(self) -> str:
        return normal(self.word.word)


def normal(text: str) -> str:
    """A word as compared: lower case, no punctuation ("Waiting," == "waiting")."""
    return _NOT_WORD.sub("", text.replace("’", "'").lower()).strip("'")


def heard_words(transcript: Transcript) -> list[Heard]:
    """A decode's words (punctuation alone is no word)."""
    return [Heard(w, segment) for segment in transcript.segments for w in segment.words if normal(w.word)]


def agreed(previous: Sequence[Heard], new: Sequence[Heard]) -> int:
    """How many leading words two consecutive decodes agree on."""
    n = 0
    for a, b in zip(previous, new):
        if a.key != b.key:
            break
        n += 1
    return n


def drop_repeat(before: Sequence[Heard], new: Sequence[Heard], max_ngram: int = 5) -> list[Heard]:
    """`new` without a leading n-gram (longest first, up to `max_ngram` words) equal to
    the last words of `before`: a decode that starts inside a word can say it again."""
    for n in range(min(max_ngram, len(before), len(new)), 0, -1):
        if [h.key for h in before[-n:]] == [h.key for h in new[:n]]:
            return list(new[n:])
    return list(new)


def pause_cut(new: Sequence[Heard], agreed_n: int, pauses: Sequence[tuple[float, float]], after: float,
              until: float) -> float | None:
    """The latest point, in seconds, where the audio can be cut for good: the middle of a
    pause between `after` and `until` (the audio's end: a quiet end may be a soft word's
    start, not a pause) with at least one word before it, and every word before it (by the
    word's middle: Whisper stretches a word's end into the silence after it) among the
    first `agreed_n` of `new`. None: no such pause."""
    best = None
    for a, b in pauses:
        middle = (a + b) / 2
        before = 0
        while before < len(new) and (new[before].word.start + new[before].word.end) / 2 < middle:
            before += 1
        if a > after and b < until - END_GUARD_S and 0 < before <= agreed_n:
            best = middle
    return best


def word_cut(new: Sequence[Heard], agreed_n: int, until: float) -> tuple[float, int] | None:
    """No pause to cut at: the boundary before the last agreed word that ends by `until`
    (that word is decoded again after the cut; the words before it are kept), as
    (seconds, words before it). None: fewer than two such words."""
    k = 0
    while k < agreed_n and new[k].word.end <= until:
        k += 1
    if k < 2:
        return None
    left, right = new[k - 2].word, new[k - 1].word
    return (left.end + right.start) / 2, k - 1


def text_of(words: Sequence[Heard]) -> str:
    """Words joined as Whisper spells them (each carries its own leading space)."""
    return " ".join("".join(h.word.word for h in words).split())


def prompt_of(words: Sequence[Heard], max_chars: int) -> str:
    """The last `max_chars` characters of the final text, from a word's start, without
    its closing punctuation: a decode that stopped at a pause wrote "Americans." and a
    prompt ending in a full stop makes Whisper start a sentence ("ask not" -> "Knock,")."""
    text = text_of(words).rstrip(".!?,;:…") if max_chars > 0 else ""
    if len(text) <= max_chars:
        return text
    cut = text[-max_chars:]
    if text[-max_chars - 1] == " ":
        return cut
    space = cut.find(" ")  # inside a word: from the next one
    return cut[space + 1:] if space >= 0 else ""


def segments_of(words: Sequence[Heard]) -> list[Segment]:
    """Segments rebuilt from words: consecutive words of one decoded segment stay one,
    with that segment's scores."""
    out: list[Segment] = []
    for _, group in groupby(words, key=lambda h: id(h.source)):
        run = list(group)
        out.append(replace(run[0].source, start=run[0].word.start, end=run[-1].word.end, text=text_of(run),
                           words=tuple(h.word for h in run)))
    return out
