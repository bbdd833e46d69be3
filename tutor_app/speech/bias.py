"""The names Whisper should expect from this learner: a short bias list for speech recognition.

Whisper tiny.en turns names it has never seen into common words ("Haneul" -> "he",
"Kongi" -> "I can't do it"). The app already knows most of them: the learner's profile
and memories ("My best friend is called Haneul"). `bias_terms` picks the proper nouns and
uncommon terms out of them - names only, never whole memories, so nothing private can be
"heard" that the learner did not say - bounded (most important first), and from one
profile only (it sees only that profile's memories). `WhisperStt.transcribe(audio,
bias=...)` hands the list to Whisper as hotwords, then puts near misses of its names
right (`snap_names`); a transcript that only reads the list back (prompted Whisper's
failure on non-speech, `echoes_list`) is decoded again without it.

The list is a memory read: build it once per call (`build_bias`), not per turn.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

log = logging.getLogger(__name__)

# Bounds of the list, whatever the profile's size. A long list costs plain speech words:
# with a 20-call profile (`tutor-app bench names`) 20 names / 147 characters as hotwords
# made Whisper drop a plain sentence's first words ("When I was a student" -> "Stoodent",
# plain WER 3.26 % -> 3.96-4.20 %); 16 or 12 names cost nothing (3.03 %) and brought back
# as many names (30 of 45, vs 8 without a list): the shorter list is kept.
MAX_TERMS = 12
MAX_CHARS = 100  # the joined list
MAX_NEW_WORDS = 4  # new words of past calls come last and never crowd out names
SNAP_RATIO = 0.85  # "Hanul"/"Haneul" 0.91, "Buckhansan"/"Bukhansan" 0.95; "Mingi"/"Minji" 0.8 stays
_SEPARATOR = ", "

# Capitalised, but not a name Whisper needs help with: pronoun, calendar, languages and
# nationalities the learner talks about anyway, titles, common acronyms (a "PIN" or "ID" in
# a memory is not a name), the labels of the app's own profile memories ("Name: ...").
COMMON_CAPITALISED = frozenset("""
i i'm i've i'd i'll im ive
monday tuesday wednesday thursday friday saturday sunday
january february march april may june july august september october november december
christmas easter
english korean korea japanese japan chinese china american america british french german spanish
european asian western eastern
mr mrs ms miss dr sir madam mom mum dad
ok okay tv pc id pin am pm usa us uk eu ai it hr ceo ps vs etc ux ui
god internet
name occupation interest learning goal preference fact note
""".split())
# Common nouns that are capitalised inside a place or company name ("Lotte World", "Han
# River", "Severance Hospital"): Whisper knows these words; the name around them is the part
# worth listing.
COMMON_NOUNS = frozenset("""
world river lake mountain mount hill island beach sea ocean bay valley forest garden
street road avenue station airport bridge tower square plaza market mall center centre
hospital clinic school university college academy institute library museum gallery palace
temple church hall hotel cafe café restaurant bar bank office company group team club
city town village district province state north south east west new old big little great
nurse doctor teacher student designer engineer manager developer
""".split())

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|[\n\r]+|:\s+")
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class BiasList:
    """Terms for Whisper, most important first."""

    terms: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.terms)

    def __len__(self) -> int:
        return len(self.terms)

    @property
    def text(self) -> str:
        """The terms as one line: 'Haneul, Kongi, Hongdae'."""
        return _SEPARATOR.join(self.terms)


def _common(word: str) -> bool:
    from tutor_app.memory.retrieval.lexical import STOPWORDS

    w = word.lower()
    return w in COMMON_CAPITALISED or w in COMMON_NOUNS or w in STOPWORDS


def _clean(token: str) -> str:
    token = token.replace("’", "'").strip("'-")
    if token.lower().endswith("'s"):
        token = token[:-2]
    return token


def _is_capitalised(token: str) -> bool:
    return token[:1].isupper()


def names_in(text: str) -> list[str]:
    """Proper nouns of a sentence or paragraph: capitalised words that do not open a
    sentence (those are capitalised anyway, names or not), no digits, no common words."""
    out: list[str] = []
    for sentence in _SENTENCE_END.split(text or ""):
        words = [_clean(w) for w in _WORD.findall(sentence)]
        for word in words[1:]:
            if (len(word) >= 2 and _is_capitalised(word) and not _common(word)
                    and not _DIGIT.search(word) and word not in out):
                out.append(word)
    return out


def value_names(value: str) -> list[str]:
    """Names in a profile value that is itself a name or a short phrase ("Minji",
    "UX designer at Naver"): every capitalised, uncommon word, the first one included."""
    out = []
    for raw in _WORD.findall(value or ""):
        word = _clean(raw)
        if len(word) >= 2 and _is_capitalised(word) and not _common(word) and not _DIGIT.search(word):
            out.append(word)
    return out


def _single_term(value: Any) -> str | None:
    """A new word or short phrase from a call report, or None."""
    if not isinstance(value, str):
        return None
    term = " ".join(value.split()).strip(" .,;:!?\"'")
    if not term or len(term) > 30 or len(term.split()) > 3 or _DIGIT.search(term):
        return None
    if all(_common(w) for w in term.split()):
        return None
    return term


def _when(memory: Any) -> datetime:
    """When the learner last said or was reminded of it: creation or the latest recall (not
    `updated_at`, which an import or a maintenance rewrite sets for every memory at once)."""
    raw = [getattr(memory, a, None) for a in ("accessed_at", "created_at")]
    stamps = [s if s.tzinfo else s.replace(tzinfo=timezone.utc) for s in raw if isinstance(s, datetime)]
    return max(stamps) if stamps else datetime.min.replace(tzinfo=timezone.utc)


def _day(memory: Any) -> int:
    """The memory's day: one call's memories share it, so importance orders within a call."""
    return _when(memory).date().toordinal()


def bias_terms(profile: dict[str, Any] | None, memories: Sequence[Any] = (),
               new_words: Iterable[str] = (), max_terms: int = MAX_TERMS,
               max_chars: int = MAX_CHARS) -> BiasList:
    """The bias list from a profile view (memory/profile/view.py `profile_view`), the profile's
    current memories (objects with text, importance and times) and new words of past calls
    (most recent first). Order: the learner's own name, their occupation's names, then the
    names in memories newest day first (most important first within a day), then new
    words; cut at `max_terms` terms and `max_chars` characters."""
    profile = profile or {}
    candidates: list[str] = []
    name = profile.get("name")
    if isinstance(name, str):
        candidates += value_names(name)
    occupation = profile.get("occupation")
    if isinstance(occupation, str):
        candidates += value_names(occupation)
    ranked = sorted((m for m in memories if getattr(m, "current", True)),
                    key=lambda m: (-_day(m), -float(getattr(m, "importance", 0.5) or 0.0),
                                   -_when(m).timestamp()))
    for memory in ranked:
        candidates += names_in(str(getattr(memory, "text", "") or ""))
    words = [t for t in (_single_term(w) for w in new_words) if t]
    candidates += words[:MAX_NEW_WORDS]

    terms: list[str] = []
    seen: set[str] = set()
    used = 0
    for term in candidates:
        key = term.lower()
        if key in seen:
            continue
        cost = len(term) + (len(_SEPARATOR) if terms else 0)
        if len(terms) >= max_terms:
            break
        if used + cost > max_chars:
            continue  # a shorter term further on may still fit
        seen.add(key)
        terms.append(term)
        used += cost
    return BiasList(tuple(terms))


def build_bias(memory: Any) -> BiasList:
    """The bias list of the profile `memory` (a ProfileMemory) is bound to. One read of its
    memories and calls; a failure gives an empty list (recognition then works as before)."""
    if memory is None:
        return BiasList()
    try:
        from tutor_app.memory.profile.view import profile_view

        current = memory.list(include_superseded=False)
        new_words: list[str] = []
        for call in reversed(memory.calls()):  # the most recent call first
            words = (call.report or {}).get("new_words") or []
            new_words += [w for w in words if isinstance(w, str)]
        view = profile_view(current)
        if not view.get("name") and _profile_name(getattr(memory, "profile", "")):
            # The first call knows no name yet, but the learner usually named the profile
            # after themselves: "My name is Minji" must not be stored as "Mingi".
            view = {**view, "name": _profile_name(memory.profile)}
        return bias_terms(view, current, new_words)
    except Exception as exc:  # noqa: BLE001 - a missing bias list must never stop a call
        log.warning("could not build the speech bias list: %s", type(exc).__name__)
        return BiasList()


def _profile_name(profile: str) -> str:
    """A profile name that looks like a person's name ("minji" -> "Minji"), else ""."""
    name = (profile or "").strip()
    if not re.fullmatch(r"[A-Za-z][A-Za-z'-]{1,19}", name) or _common(name) or name.lower() in ("default", "test"):
        return ""
    return name[:1].upper() + name[1:]


def echoes_list(text: str, bias: BiasList | None) -> bool:
    """Whether a transcript looks like the bias list read back (prompted Whisper's known
    failure on non-speech): three or more of its terms and hardly another word."""
    if not bias or not text:
        return False
    words = [_clean(w).lower() for w in _WORD.findall(text)]
    terms = {w.lower() for t in bias.terms for w in t.split()}
    hits = [w for w in words if w in terms]
    return len(set(hits)) >= 3 and len(hits) >= 0.8 * len(words)


def snap_names(text: str, bias: BiasList | None) -> str:
    """Near misses of a listed name put right ("Buckhansan" -> "Bukhansan", "Hanul" ->
    "Haneul"): a capitalised word that is not a common word, starts with the same letter as
    a one-word term and is spelt within SNAP_RATIO of it. Whisper capitalises what it took
    for a name, so common words ("handle", "Honda" is not close enough) are left alone."""
    if not bias or not text:
        return text
    from difflib import SequenceMatcher

    names = {t.lower(): t for t in bias.terms if " " not in t and t[:1].isupper()}

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        base, tail = (word[:-2], word[-2:]) if word.lower().endswith(("'s", "’s")) else (word, "")
        key = base.replace("-", "").lower()
        if not _is_capitalised(base) or _common(base) or len(key) < 4:
            return word
        if key in names:
            return names[key] + tail  # "Hong-dae" -> "Hongdae"
        best, score = None, SNAP_RATIO
        for lower, term in names.items():
            if lower[0] == key[0]:
                ratio = SequenceMatcher(None, key, lower).ratio()
                if ratio >= score:
                    best, score = term, ratio
        return best + tail if best else word

    return _WORD.sub(fix, text)


def transcribe_with(stt: Any, audio: Any, bias: BiasList | None) -> Any:
    """`stt.transcribe(audio, bias=bias)` when there is a list; a plain call otherwise, so
    any SpeechToText (one without the `bias` argument too) still works without names."""
    if bias:
        return stt.transcribe(audio, bias=bias)
    return stt.transcribe(audio)
