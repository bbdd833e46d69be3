"""Corrections explained in Korean (Settings: "explain corrections in Korean",
`tutor.explain_in_korean`): the call-end review (tutor/review.py) asks the model for a
short Korean line beside its English one; the report shows both.

A model's Korean line is kept only when it passes `korean_fault` (Korean text, short,
one line, no markup). Otherwise - and always with a small offline model, whose review is
forced into a schema without it, since it cannot write Korean - the line is the built-in
one for the correction's kind (practice/items.py TYPES, with the past tense, the
third-person -s, plurals and a/an told apart by the words that changed), ending with
the learner's own change ("go → went").
"""
from __future__ import annotations

import re
from difflib import SequenceMatcher

from tutor_app.practice.items import ARTICLES, IRREGULAR_PAST, words

MAX_CHARS = 120  # one or two short sentences on a report card
MIN_HANGUL = 4  # syllables; and at least as many as English words (quoted examples: "go → went")
SHOWN_CHANGE_WORDS = 3  # a longer change is not repeated after the explanation

BUILT_IN = {
    "past": "지난 일은 과거형 동사로 말해요",
    "perfect": "yesterday, last week처럼 끝난 때를 말할 때는 have 없이 과거형만 써요",
    "future": "앞으로의 일은 will이나 be going to로 말해요",
    "tense": "문장의 때(과거, 현재, 미래)에 맞는 동사 형태를 써요",
    "third": "주어가 he, she, it이나 한 사람·한 가지일 때 현재형 동사에 -s를 붙여요",
    "plural": "둘 이상을 말할 때는 명사를 복수형(-s)으로 써요",
    "agreement": "주어에 맞는 동사 형태를 써요 (I am, you are, they were)",
    "a-an": "모음 소리로 시작하는 단어 앞에서는 a 대신 an을 써요",
    "article": "셀 수 있는 명사 하나에는 a/an을, 서로 아는 바로 그것에는 the를 써요",
    "preposition": "이 표현에는 이 전치사가 맞아요",
    "ing-ed": "내가 느끼는 감정은 -ed(interested), 그 감정을 주는 것은 -ing(interesting)로 말해요",
    "word choice": "이 뜻에는 이 단어가 더 자연스러워요",
    "word order": "영어는 보통 '주어 + 동사 + 나머지' 순서로 말해요",
    "other": "이렇게 말하면 더 자연스러운 영어가 돼요",
}
_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")
_JUNK = re.compile(r"[{}<>`*#\\]|https?:|\n")
_MANY = {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "many", "some", "few",
         "several", "these", "those", "all", "both", "lots", "my", "his", "her", "our", "their"}
_FUTURE = {"will", "going", "gonna"}
_BE_VERY = {"am", "is", "are", "was", "were", "be", "been", "so", "very", "really", "too", "not", "get", "got",
            "feel", "felt", "m", "s", "re"}

# Reason codes of `korean_fault` (the review counts them in the log, never the text).
EMPTY, NOT_KOREAN, TOO_LONG, JUNK = "empty", "not-korean", "too-long", "junk"


def korean_fault(text: str) -> str | None:
    """Why a model's Korean explanation may not be kept, or None when it may."""
    text = text.strip()
    if not text:
        return EMPTY
    if _JUNK.search(text):
        return JUNK
    hangul = len(_HANGUL.findall(text))
    if hangul < MIN_HANGUL or hangul < len(_LATIN_WORD.findall(text)):
        return NOT_KOREAN
    if len(text) > MAX_CHARS:
        return TOO_LONG
    return None


def built_in(original: str, better: str, kind: str) -> str:
    """The short Korean explanation for a correction of `kind`, with the learner's change
    when it is one short change in one place."""
    removed, added, before, places = _change(original, better)
    line = BUILT_IN[_subkind(kind, removed, added, before)]
    if places == 1 and max(len(removed), len(added)) <= SHOWN_CHANGE_WORDS:
        if removed and added:
            line += f": {' '.join(removed)} → {' '.join(added)}"
        elif added:
            line += f": + {' '.join(added)}"
        else:
            line += f": − {' '.join(removed)}"
    return line + "."


def _change(original: str, better: str) -> tuple[list[str], list[str], str, int]:
    """(words taken out, words put in, the word before the first change in the better form,
    in how many places it changed)."""
    a, b = words(original), words(better)
    removed: list[str] = []
    added: list[str] = []
    before = ""
    places = 0
    for tag, i0, i1, j0, j1 in SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if not places:
            before = b[j0 - 1] if j0 > 0 else ""
        places += 1
        removed += a[i0:i1]
        added += b[j0:j1]
    return removed, added, before, places


def _subkind(kind: str, removed: list[str], added: list[str], before: str) -> str:
    if len(removed) == len(added) == 1 and before in _BE_VERY and _ing_ed(removed[0], added[0]):
        return "ing-ed"  # "I am interesting in music" (not "I working" -> "I worked")
    if kind == "tense":
        if set(added) & _FUTURE:
            return "future"
        if removed and set(removed) <= {"have", "has"} and not added:
            return "perfect"  # "I have went there yesterday"
        pairs = list(zip(removed, added))
        if pairs and all(IRREGULAR_PAST.get(old) == new or new.endswith("ed") for old, new in pairs):
            return "past"
        return "tense"
    if kind == "agreement" and len(removed) == len(added) == 1:
        old, new = removed[0], added[0]
        if new in (old + "s", old + "es"):
            return "plural" if before in _MANY or before.isdigit() else "third"
        return "agreement"
    if kind == "article" and set(removed) | set(added) <= {"a", "an"} and removed and added:
        return "a-an"
    if kind == "article" and not (set(removed) | set(added)) <= ARTICLES:
        return "other"
    return kind if kind in BUILT_IN else "other"


def _ing_ed(old: str, new: str) -> bool:
    stems = {w[:-3] for w in (old, new) if w.endswith("ing")} | {w[:-2] for w in (old, new) if w.endswith("ed")}
    return len(stems) == 1 and old[-3:] != new[-3:] and len(next(iter(stems))) >= 3
