"""Is a tutor sentence parroting? Pure text checks, run on each sentence before it is
spoken (tutor/reply_stream.py).

A small model often answers the learner with the learner's own line, as itself ("Hello,
my name is Minji. I'm an office worker in Seoul."), or says its previous reply again.
Three kinds are caught:

- "echo": the sentence says a learner sentence back unchanged, or speaks the
  learner's words in the first person (four of them in a row, or most of its content
  words from one learner line while it says I/my and not you/your). A recast in the second person ("Oh, you went to school
  yesterday?") shares words too but is what a tutor should say, so it passes.
- "identity": the tutor claims a name the learner gave as its own ("my name is Minji").
- "repeat": the sentence says one of the tutor's own earlier sentences again.

And one kind of line a small model falls back on instead of answering, never right on a
tutor's call: "canned", a chat assistant's stock line ("I'm sorry for your loss", "I
can't help you with that", "I don't have the ability to...") or talk about "the learner".
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

ECHO, IDENTITY, REPEAT, CANNED = "echo", "identity", "repeat", "canned"

COPY_SHARE = 0.9  # a sentence holding this share of a learner sentence unchanged copies it
COPY_MIN = 4  # ...when that is at least this many words
FIRST_PERSON_RUN = 4  # ...and this many when the tutor says them as itself
CONTENT_SHARE = 0.6  # share of the sentence's content words taken from one learner line
MIN_SHARED = 2  # content words in common before a share counts
REPEAT_MIN_WORDS = 5  # shorter sentences ("What about you?") may come back
REPEAT_RUN = 6  # words in a row from an earlier tutor sentence that make a repeat

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_CONTRACTIONS = {"i'm": "i am", "i've": "i have", "i'll": "i will", "i'd": "i would",
                 "you're": "you are", "it's": "it is", "that's": "that is", "don't": "do not",
                 "didn't": "did not", "can't": "can not", "won't": "will not", "isn't": "is not",
                 "we're": "we are", "they're": "they are", "what's": "what is", "let's": "let us"}
# The tutor speaking as itself; "me"/"us" are left out ("tell me about your school" is a question).
FIRST_PERSON = frozenset({"i", "my", "mine", "myself", "we", "our"})
SECOND_PERSON = frozenset({"you", "your", "yours", "yourself"})
STOPWORDS = frozenset("""a an the and or but so to of in on at for with from by about as into
than then too very also just really i me my mine myself we us our you your yours he him his she
her it its they them their this that these those is am are was were be been being do does did
have has had will would can could should shall may might must not no yes oh ah well what when
where who whom why how which there here some any all much many more most one there's up out if
s t re ve ll d m""".split())
_NAME_PATTERNS = (re.compile(r"\b(?i:my name is) ([A-Z][\w'-]+)"), re.compile(r"\b(?i:call me) ([A-Z][\w'-]+)"),
                  re.compile(r"\bI(?:'m| am) ([A-Z][a-z][\w'-]*)\b"))
_CANNED = re.compile(r"\b(?:sorry for your loss|(?:can't|cannot|can not) (?:help you|assist)|"
                     r"(?:don't|do not) have the ability|(?:can't|cannot) speak|as an ai\b|"
                     r"(?:don't|do not) speak (?:english|the|your)|the learner\b|the tutor\b|the user\b)",
                     re.IGNORECASE)
_QUOTED = re.compile(r'"[^"]*"|\u201c[^\u201d]*\u201d')
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_NOT_NAMES = frozenset({"I", "Korean", "English", "American", "British", "Sorry", "Fine", "Good", "Okay", "OK"})


def words(text: str) -> list[str]:
    """Lower-case words, contractions opened ("I'm" -> "i am")."""
    out: list[str] = []
    for w in _WORD.findall(text.lower().replace("\u2019", "'")):
        out.extend(_CONTRACTIONS.get(w, w).split())
    return out


def content_words(tokens: Iterable[str]) -> set[str]:
    return {_stem(t) for t in tokens if t not in STOPWORDS and len(t) > 1}


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def longest_run(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest run of words that `a` and `b` share."""
    best = 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def learner_names(lines: Iterable[str]) -> set[str]:
    """Names the learner gave for themself ("my name is Minji", "I'm Minji", "call me Min")."""
    names: set[str] = set()
    for line in lines:
        for pattern in _NAME_PATTERNS:
            names.update(m for m in pattern.findall(line) if m not in _NOT_NAMES)
    return names


@dataclass(frozen=True)
class Verdict:
    kind: str  # ECHO | IDENTITY | REPEAT | CANNED
    line: int  # which learner (ECHO) or tutor (REPEAT) line, newest = 0; else -1


@dataclass
class ParrotCheck:
    """The lines one reply is checked against: `learner` and `tutor` newest first (the
    learner's current line first of all); `names` the learner gave (profile included)."""

    learner: list[str]
    tutor: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.names = {n for n in self.names | learner_names(self.learner) if n}
        self._learner = [words(line) for line in self.learner]
        self._learner_sentences = [[words(s) for s in _SENTENCE_END.split(line) if s.strip()]
                                   for line in self.learner]
        self._tutor = [words(s) for line in self.tutor for s in _SENTENCE_END.split(line) if s.strip()]
        self._said: list[list[str]] = []  # sentences of this reply already let through

    def check(self, sentence: str) -> Verdict | None:
        """Why `sentence` must not be spoken, or None when it may."""
        tokens = words(sentence)
        if not tokens:
            return None
        if self._claims_name(sentence):
            return Verdict(IDENTITY, -1)
        if _CANNED.search(sentence.replace("\u2019", "'")):
            return Verdict(CANNED, -1)
        # A quoted model sentence ('The correct sentence is: "I went ..."') is not the tutor speaking.
        spoken = set(words(_QUOTED.sub(" ", sentence)))
        first_person = bool(FIRST_PERSON & spoken)
        # "I will remember that your PIN is 4921" gives the learner's facts back to the learner.
        as_own = first_person and not SECOND_PERSON & spoken
        mine = content_words(tokens)
        for i, line in enumerate(self._learner):
            if first_person and longest_run(tokens, line) >= FIRST_PERSON_RUN:
                return Verdict(ECHO, i)
            if any(len(s) >= COPY_MIN and longest_run(tokens, s) >= COPY_SHARE * len(s)
                   for s in self._learner_sentences[i]):
                return Verdict(ECHO, i)  # said back unchanged; "the correct sentence is ..." changes it
            if as_own and _share(mine, content_words(line)):
                return Verdict(ECHO, i)
        if len(tokens) >= REPEAT_MIN_WORDS:
            for i, line in enumerate(self._tutor + self._said):
                if _same(tokens, line):
                    return Verdict(REPEAT, i)
        return None

    def may_lead(self, clause: str) -> bool:
        """A first clause may be said before the rest of its sentence is known
        (tutor/reply_stream.py): it passes `check`, and shares no run of COPY_MIN words with
        a learner line or an earlier tutor sentence - the whole sentence may yet turn out a
        copy ("He was not an ill-disposed young man," of the learner's longer sentence)."""
        if self.check(clause) is not None:
            return False
        tokens = words(clause)
        return all(longest_run(tokens, line) < COPY_MIN for line in self._learner + self._tutor + self._said)

    def accept(self, sentence: str) -> None:
        """`sentence` was spoken: a later sentence of the same reply must not say it again."""
        self._said.append(words(sentence))

    def _claims_name(self, sentence: str) -> bool:
        for name in self.names:
            n = re.escape(name)
            if re.search(rf"\b(?:my name is|my name's|I am|I'm|call me|this is) {n}\b", sentence, re.IGNORECASE):
                return True
        return False


def _share(mine: set[str], theirs: set[str]) -> bool:
    shared = mine & theirs
    return len(shared) >= MIN_SHARED and len(shared) >= CONTENT_SHARE * len(mine)


def _same(tokens: list[str], earlier: list[str]) -> bool:
    """The tutor's sentence says an earlier one again: nearly all of it, or a long stretch."""
    if not earlier:
        return False
    run = longest_run(tokens, earlier)
    return run >= REPEAT_RUN or run >= 0.8 * len(tokens)
