"""Practice items: the learner's own mistakes (what they said, the better form, a type)
and the new words of their calls. Each carries its review schedule (practice/schedule.py)
and its review history; they live in the learner's profile (practice/store.py).

The *span* of a correction is the part that changed plus one word of context on each
side: "Yesterday I go to the hospital" -> "Yesterday I went to the hospital" has the
spans "i go to" (the mistake) and "i went to" (the better form). Spans, not whole
sentences, are what a later turn is checked for (practice/outcome.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

MISTAKE, WORD = "mistake", "word"
KINDS = (MISTAKE, WORD)
# The types a correction is filed under (the review model names one; rules decide otherwise).
TYPES = ("tense", "article", "preposition", "agreement", "word choice", "word order", "other")

ARTICLES = {"a", "an", "the"}
PREPOSITIONS = {"in", "on", "at", "to", "for", "of", "with", "from", "by", "about", "into", "onto", "during",
                "since", "until", "through", "over", "under", "between", "among", "after", "before", "near"}
AUXILIARIES = {"am", "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "have", "has", "had",
               "will", "would", "shall", "should", "can", "could"}
# Common irregular past forms, so "go -> went" is recognised as a tense correction.
IRREGULAR_PAST = {"go": "went", "eat": "ate", "see": "saw", "buy": "bought", "take": "took", "make": "made",
                  "come": "came", "get": "got", "have": "had", "do": "did", "is": "was", "are": "were",
                  "meet": "met", "tell": "told", "think": "thought", "bring": "brought", "teach": "taught",
                  "find": "found", "give": "gave", "know": "knew", "leave": "left", "feel": "felt",
                  "write": "wrote", "drink": "drank", "run": "ran", "sleep": "slept", "speak": "spoke",
                  "swim": "swam", "begin": "began", "forget": "forgot", "lose": "lost", "pay": "paid",
                  "say": "said", "send": "sent", "spend": "spent", "stand": "stood", "win": "won",
                  "read": "read", "sing": "sang", "fly": "flew", "drive": "drove", "ride": "rode"}
_WORD = re.compile(r"[a-z0-9']+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("\u2019", "'"))


@dataclass
class Review:
    """One use (or miss) of an item in a later call."""

    at: str  # ISO time
    session_id: str
    outcome: str  # "used" (the better form) | "repeated" (the mistake) | "said" (a word used)
    line: str = ""  # the learner's words that counted

    def to_dict(self) -> dict[str, str]:
        return {"at": self.at, "session_id": self.session_id, "outcome": self.outcome, "line": self.line}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> "Review":
        return cls(str(raw.get("at", "")), str(raw.get("session_id", "")), str(raw.get("outcome", "")),
                   str(raw.get("line", "")))


@dataclass
class PracticeItem:
    id: str
    kind: str  # mistake | word
    said: str  # mistake: the learner's words; word: the word or phrase
    better: str = ""  # mistake: the better form
    why: str = ""
    type: str = ""  # one of TYPES for a mistake
    session_id: str = ""  # the call it came from
    turn: int = -1  # the learner's turn in that call (0-based), -1 unknown
    created_at: str = ""  # ISO
    card: dict[str, Any] = field(default_factory=dict)  # the FSRS card (fsrs.Card.to_dict())
    reviews: list[Review] = field(default_factory=list)

    @property
    def mistake_span(self) -> str:
        return spans(self.said, self.better)[0] if self.kind == MISTAKE else ""

    @property
    def better_span(self) -> str:
        return spans(self.said, self.better)[1] if self.kind == MISTAKE else " ".join(words(self.said))

    def key(self) -> str:
        """Two items with one key are the same thing to practise (merged, not doubled)."""
        if self.kind == WORD:
            return f"word:{' '.join(words(self.said))}"
        return f"mistake:{self.mistake_span}->{self.better_span}"


def spans(original: str, better: str) -> tuple[str, str]:
    """(mistake span, better span): the changed words plus one word of context each side."""
    a, b = words(original), words(better)
    matcher = SequenceMatcher(a=a, b=b, autojunk=False)
    changed = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if not changed:
        return " ".join(a), " ".join(b)
    a0, a1 = changed[0][1], changed[-1][2]
    b0, b1 = changed[0][3], changed[-1][4]
    # One word of context on each side (the same words in both, from the equal parts).
    lo = 1 if a0 > 0 and b0 > 0 else 0
    hi_a = 1 if a1 < len(a) else 0
    hi_b = 1 if b1 < len(b) else 0
    hi = min(hi_a, hi_b)
    return " ".join(a[a0 - lo:a1 + hi]), " ".join(b[b0 - lo:b1 + hi])


def classify(original: str, better: str) -> str:
    """The type of a correction from the words that changed (when the review gave none)."""
    a, b = words(original), words(better)
    if sorted(a) == sorted(b) and a != b:
        return "word order"
    matcher = SequenceMatcher(a=a, b=b, autojunk=False)
    removed: list[str] = []
    added: list[str] = []
    for tag, i0, i1, j0, j1 in matcher.get_opcodes():
        if tag != "equal":
            removed += a[i0:i1]
            added += b[j0:j1]
    changed = set(removed) | set(added)
    if changed and changed <= ARTICLES:
        return "article"
    if changed and changed <= PREPOSITIONS:
        return "preposition"
    if len(removed) == len(added) == 1 and _is_agreement(removed[0], added[0]):
        return "agreement"
    if _is_tense_change(removed, added):
        return "tense"
    return "word choice" if changed else "other"


def _is_tense_change(removed: list[str], added: list[str]) -> bool:
    if not removed and not added:
        return False
    if set(removed) | set(added) <= AUXILIARIES | {"will", "going"}:
        return True
    for old, new in zip(removed, added):
        if IRREGULAR_PAST.get(old) == new or IRREGULAR_PAST.get(new) == old:
            return True
        stem = old.rstrip("s")
        if new in (old + "ed", old + "d", stem + "ed", stem + "ied") or old in (new + "ed", new + "d"):
            return True
    return False


def _is_agreement(old: str, new: str) -> bool:
    """"he make" -> "he makes", "she have" -> "she has", "they was" -> "they were"."""
    pairs = {("have", "has"), ("do", "does"), ("is", "are"), ("was", "were"), ("am", "is"), ("am", "are")}
    if (old, new) in pairs or (new, old) in pairs:
        return True
    return new in (old + "s", old + "es") or old in (new + "s", new + "es")
