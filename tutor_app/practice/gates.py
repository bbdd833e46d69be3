"""Gates between a model's call-end review and the learner's record. Every model (a
135M offline model as much as Claude) may file a learner's whole line as a "new word",
"correct" a line into itself plus a few words, or quote the tutor as the learner; nothing
of that may become a practice item, a tick or a plan. Pure rules over words:

- a correction's *said* is a span of one of the learner's own lines (never only of the
  tutor's); its *better* differs from it, is a near edit of it (word-level edit distance
  <= max(2, 40% of its words)) and does not keep the error (the mistake span of
  practice/items.py `spans`, context included, does not reappear inside the better form:
  "said" plus words around it keeps the error);
- a new word is English (letters, apostrophes, hyphens), at most four words, not a
  learner's line nor most of one, not part of what the learner said wrongly, not a name
  (the learner's, from the profile or from "my name is ..." in their lines).

A failed gate is a reason code; callers count them in the log (never the text).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tutor_app.practice.items import MISTAKE, WORD, PracticeItem, spans, words

MAX_WORD_WORDS = 4  # a "new word" is a word or a short phrase
MOST_OF_A_LINE = 0.5  # a phrase holding this share of a learner's line is that line
_ENGLISH = re.compile(r"[A-Za-z]+(?:['\u2019-][A-Za-z]+)*(?: [A-Za-z]+(?:['\u2019-][A-Za-z]+)*)*")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_EDGE_PUNCTUATION = " \t.,!?;:\"'()[]\u201c\u201d\u2018\u2019"
# Where a learner gives their name; the name itself is capitalised in what they said.
_INTRODUCED = re.compile(r"\b(?:my name is|my name's|call me|i'm called|i am called)\s+([A-Z][a-z'-]+)",
                         re.IGNORECASE)

# Reason codes (the log counts them).
EMPTY, NOT_SAID, TUTOR_LINE, SAME, FAR, KEEPS_ERROR = "empty", "not-said", "tutor-line", "same", "far", "keeps-error"
NOT_ENGLISH, TOO_LONG, LEARNER_LINE, SAID_WRONGLY, NAME = "not-english", "too-long", "learner-line", "said-wrongly", "name"


def _find(hay: Sequence[str], needle: Sequence[str]) -> int:
    """Where `needle` starts as a contiguous run of `hay`, -1 if nowhere."""
    n = len(needle)
    if not n:
        return -1
    for start in range(len(hay) - n + 1):
        if list(hay[start:start + n]) == list(needle):
            return start
    return -1


def _in_any(lines: Iterable[Sequence[str]], span: Sequence[str]) -> bool:
    return any(_find(line, span) >= 0 for line in lines)


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Word-level Levenshtein distance."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def max_edit(said_words: int) -> int:
    return max(2, (2 * said_words) // 5)


def correction_shape_fault(said: str, better: str) -> str | None:
    """The gates a correction passes on its own words (also for items already kept)."""
    a, b = words(said), words(better)
    if not a or not b:
        return EMPTY
    if a == b:
        return SAME
    if edit_distance(a, b) > max_edit(len(a)):
        return FAR
    mistake, fixed = spans(said, better)
    if mistake == fixed or _find(fixed.split(), mistake.split()) >= 0 or _find(b, a) >= 0:
        return KEEPS_ERROR
    return None


def correction_fault(said: str, better: str, learner_lines: Sequence[str],
                     tutor_lines: Sequence[str] = ()) -> str | None:
    """None when a model's correction may become a practice item, else why not."""
    a = words(said)
    if not a:
        return EMPTY
    if not _in_any((words(line) for line in learner_lines), a):
        return TUTOR_LINE if _in_any((words(line) for line in tutor_lines), a) else NOT_SAID
    return correction_shape_fault(said, better)


def clean_word(word: str) -> str:
    """A new word as kept: one space between words, no quotes or full stop around it."""
    return " ".join(str(word).split()).strip(_EDGE_PUNCTUATION)


def word_shape_fault(word: str) -> str | None:
    """The gates a new word passes on its own words (also for items already kept)."""
    text = clean_word(word)
    if not text:
        return EMPTY
    if not _ENGLISH.fullmatch(text):
        return NOT_ENGLISH
    if len(text.split()) > MAX_WORD_WORDS:
        return TOO_LONG
    return None


def introduced_names(lines: Iterable[str]) -> set[str]:
    """Names the learner gave in their lines ("my name is Minji" -> "minji")."""
    return {m.group(1).lower() for line in lines for m in _INTRODUCED.finditer(line)
            if m.group(1)[0].isupper()}


def wrong_regions(corrections: Iterable[tuple[str, str]]) -> list[list[str]]:
    """What the learner said wrongly: the mistake span of each correction (context
    included), or its whole said when the correction itself failed its gates."""
    regions = []
    for said, better in corrections:
        region = words(said) if correction_shape_fault(said, better) else spans(said, better)[0].split()
        if region:
            regions.append(region)
    return regions


def _part_of(phrase: list[str], region: list[str]) -> bool:
    """The phrase overlaps a wrong region: a run of it is inside, or it holds the region."""
    if _find(phrase, region) >= 0 or _find(region, phrase) >= 0:
        return True
    # A phrase straddling the region's edge ("go to school" against "i am go to").
    return any(region[-k:] == phrase[:k] or region[:k] == phrase[-k:]
               for k in range(1, min(len(phrase), len(region) + 1)))


def word_fault(word: str, learner_lines: Sequence[str], wrong: Sequence[list[str]] = (),
               names: Iterable[str] = ()) -> str | None:
    """None when a model's new word may become a practice item, else why not."""
    shape = word_shape_fault(word)
    if shape:
        return shape
    phrase = words(clean_word(word))
    name_words = {w for name in names for w in words(name)}
    if any(w in name_words for w in phrase):
        return NAME
    for line in learner_lines:
        for part in [line, *_SENTENCE_END.split(line)]:  # a line may hold several sentences
            said = words(part)
            if said == phrase or (_find(said, phrase) >= 0 and len(phrase) >= max(2, MOST_OF_A_LINE * len(said))):
                return LEARNER_LINE
    if any(_part_of(phrase, region) for region in wrong):
        return SAID_WRONGLY
    return None


@dataclass
class Gated:
    """What passed the gates, and a count of what did not by reason (for the log)."""

    corrections: list[Any] = field(default_factory=list)
    new_words: list[str] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)

    def summary(self) -> str:
        return ", ".join(f"{reason} {count}" for reason, count in sorted(self.dropped.items())) or "none"


def gate_review(corrections: Sequence[Any], new_words: Sequence[str], learner_lines: Sequence[str],
                tutor_lines: Sequence[str] = (), names: Iterable[str] = ()) -> Gated:
    """The corrections (anything with `original` and `better`) and new words that may
    reach the learner's record. Names are the profile's; the learner's own "my name is"
    lines add theirs."""
    out = Gated()
    for correction in corrections:
        fault = correction_fault(str(correction.original), str(correction.better), learner_lines, tutor_lines)
        if fault:
            out.dropped[f"correction {fault}"] += 1
        else:
            out.corrections.append(correction)
    learner_said = [(str(c.original), str(c.better)) for c in corrections
                    if _in_any((words(line) for line in learner_lines), words(str(c.original)))]
    wrong = wrong_regions(learner_said)
    all_names = {n for n in names if n} | introduced_names(learner_lines)
    seen: set[str] = set()
    for word in new_words:
        fault = word_fault(str(word), learner_lines, wrong, all_names)
        key = " ".join(words(clean_word(str(word))))
        if fault:
            out.dropped[f"word {fault}"] += 1
        elif key not in seen:
            seen.add(key)
            out.new_words.append(clean_word(str(word)))
    return out


@dataclass(frozen=True)
class Known:
    """What the practice file cannot know by itself, for its migration: the learner's
    names and their lines per call (from memory)."""

    names: frozenset[str] = frozenset()
    lines: dict[str, list[str]] = field(default_factory=dict)  # session id -> learner lines


def item_fault(item: PracticeItem, known: Known | None = None) -> str | None:
    """None when a kept item still passes the gates (a plan, a judgement, the migration)."""
    if item.kind == MISTAKE:
        lines = known.lines.get(item.session_id) if known else None
        if lines:
            return correction_fault(item.said, item.better, lines)
        return correction_shape_fault(item.said, item.better)
    if item.kind == WORD:
        if known is None:
            return word_shape_fault(item.said)
        lines = known.lines.get(item.session_id, [])
        return word_fault(item.said, lines, names=set(known.names) | introduced_names(lines))
    return "kind"
