"""The tutor's speaking rate: by level, from the settings, and on request in the call.

A rate is a multiplier of the voice's own speed (1.0 = the voice as trained, 0.8 slower,
1.2 faster); PiperTts.set_rate turns it into Piper's length_scale. `speech.speaking_rate`
0 means "follow my level"; the values, bounds and `effective_rate` are speech/speaking_rate.py.

In a call, a learner turn such as "could you speak more slowly?" is a `RateRequest`
(`detect_rate_request`); `apply` gives the new rate. The live call does, per learner turn:

    request = detect_rate_request(text)
    if request:
        tts.set_rate(change_rate(settings, request))  # from the next sentence; saved for later calls

Only sentences addressed to the tutor count: "I run faster now" or "my teacher speaks
slowly" are not requests. Pure except `remember_rate`/`change_rate`, which save the
settings file (never the learner's words, which are not logged either).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tutor_app.speech.speaking_rate import clamp, effective_rate, level_rate

if TYPE_CHECKING:
    from tutor_app.settings import Settings

STEP = 0.15  # one "slower, please"
SMALL_STEP, BIG_STEP = 0.1, 0.25  # "a bit slower" / "much slower"

SLOWER, FASTER, NORMAL = "slower", "faster", "normal"


@dataclass(frozen=True)
class RateRequest:
    direction: str  # slower | faster | normal
    step: float = STEP  # how much (unused for normal)


def apply(current_rate: float, request: RateRequest, normal: float = 1.0) -> float:
    """The rate after `request`: a step slower or faster, bounded; `normal` for "speak normally"."""
    if request.direction == NORMAL:
        return clamp(normal)
    sign = -1.0 if request.direction == SLOWER else 1.0
    return clamp(current_rate + sign * request.step)


def remember_rate(settings: Settings, rate: float | None) -> None:
    """Keep `rate` as the learner's preference for later calls (None = back to "by level"):
    through the settings store, which saves the file and tells the open windows."""
    from tutor_app.settings_store import store_for

    value = 0.0 if rate is None else clamp(rate)
    store_for(settings).update(lambda s: setattr(s.speech, "speaking_rate", value))


def change_rate(settings: Settings, request: RateRequest) -> float:
    """Apply a request to the learner's current rate, remember it, return the new rate
    (for PiperTts.set_rate). "Speak normally" goes back to following the level."""
    level = settings.tutor.level
    current = effective_rate(level, settings.speech.speaking_rate)
    new = apply(current, request, normal=level_rate(level))
    remember_rate(settings, None if request.direction == NORMAL else new)
    return new


def speak_as_asked(tts: Any, level: str, text: str) -> tuple[float, float | None] | None:
    """A live call's learner turn: when `text` asks for another speed, the voice changes now
    (from the reply's first sentence). Returns (rate before, preference to keep: None =
    back to "by level") for `remember_rate` once the turn is really the learner's, or for
    undoing it when it was not; None when nothing was asked."""
    request = detect_rate_request(text)
    if request is None or not hasattr(tts, "set_rate"):
        return None
    before = float(tts.rate)
    new = apply(before, request, normal=level_rate(level))
    tts.set_rate(new)
    return before, (None if request.direction == NORMAL else new)


# -- detection ---------------------------------------------------------------------------
_SLOW = r"(?:more\s+)?(?:slowly|slower)|more\s+slow"
_FAST = r"(?:more\s+)?(?:quickly|faster|quicker|fast)|more\s+quickly"
_HOW = r"(?:(?:a\s+)?(?:little|bit|tiny\s+bit|lot)\s+(?:bit\s+)?|much\s+|way\s+|even\s+|slightly\s+)?"
_VERB = r"(?:speak|talk|say\s+(?:it|that|things)|read\s+(?:it|that)|go|repeat(?:\s+(?:it|that))?)(?:\s+again)?"
# Words that may surround a bare "slower, please" without making it about something else.
_FILLERS = frozenset("""
please pls plz could can would will you your just a bit little tiny lot much way even slightly more
um uh oh hey ok okay sorry excuse me teacher tutor again maybe speak talk go it that yes no mm
""".split())
_BARE = {"slower": SLOWER, "slowly": SLOWER, "slow": SLOWER, "faster": FASTER, "quicker": FASTER,
         "quickly": FASTER}

_PATTERNS: list[tuple[re.Pattern[str], str]] = []


def _add(direction: str, *patterns: str) -> None:
    for p in patterns:
        _PATTERNS.append((re.compile(p), direction))


_LEAD = r"^(?:(?:please|ok|okay|um|uh|oh|hey|sorry|teacher|tutor|but|so|and|then|now)\s+)*"
_ASK = (r"(?:(?:could|can|would|will)\s+you|(?:like|want|need)\s+you\s+to|you\s+(?:can|could|should|may))"
        r"\s+(?:please\s+)?")
_NOT_THAN = r"\b(?!\s+than\b)"  # "can you go faster than a car?" compares, it does not ask
_YOU_SPEAK = r"\byou(?:\s+are|'re|re)?\s+(?:speaking|talking|going|speak|talk|go)\s+"
_SO_MUCH = r"(?:a\s+(?:bit|little)\s+|way\s+|much\s+|really\s+)?"
_IT_IS = (r"^(?:you\s+are\s+|you're\s+|youre\s+|it's\s+|its\s+|it\s+is\s+|that's\s+|thats\s+|that\s+is\s+"
          r"|that\s+was\s+|this\s+is\s+)?")
_TOO_FOR_ME = r"(?:\s+for\s+me)?(?:\s+please)?$"  # the whole sentence: "(that was) too fast (for me)"
for _dir, _word in ((SLOWER, _SLOW), (FASTER, _FAST)):
    _add(_dir,
         # could you speak more slowly / I'd like you to talk a bit faster / you can go faster
         rf"\b{_ASK}(?:try\s+to\s+)?{_VERB}\s+{_HOW}(?:{_word}){_NOT_THAN}",
         # (please) speak more slowly (please): an imperative at the start of a sentence
         rf"{_LEAD}{_VERB}\s+{_HOW}(?:{_word}){_NOT_THAN}")
_add(SLOWER,
     rf"{_LEAD}slow\s+down\b", rf"\b{_ASK}slow\s+down\b",
     r"^(?:not|no)\s+so\s+fast(?:\s+please)?$",
     rf"{_YOU_SPEAK}{_SO_MUCH}(?:too|so)\s+(?:fast|quickly)\b",  # you're talking too fast
     rf"{_IT_IS}{_SO_MUCH}too\s+fast{_TOO_FOR_ME}",
     r"\byour\s+(?:speech|voice|speed|speaking)\s+is\s+too\s+fast\b")
_add(FASTER,
     rf"{_LEAD}speed\s+up\b", rf"\b{_ASK}speed\s+up\b",
     rf"{_YOU_SPEAK}{_SO_MUCH}(?:too|so)\s+(?:slow|slowly)\b",
     rf"{_IT_IS}{_SO_MUCH}too\s+slow{_TOO_FOR_ME}")
_add(NORMAL,
     rf"(?:{_LEAD}|\b{_ASK}){_VERB}\s+(?:normally|at\s+(?:a\s+|your\s+)?normal\s+(?:speed|pace|rate))\b",
     r"^(?:please\s+)?(?:back\s+to\s+)?(?:your\s+)?normal\s+(?:speed|pace)(?:\s+please)?$")

# Korean: 천천히/느리게 (slowly), 빨리/빠르게 (fast); a request needs a verb of speaking or
# 주세요, or the sentence is the adverb alone ("천천히요", "좀 더 빨리").
_KO_ASK = (r"\s*(?:좀\s*)?(?:(?:말씀|말|얘기|이야기|읽어)?\s*(?:해|하)?\s*(?:주세요|주실|주시|줘|줄래|주면|부탁)"
           r"|(?:말씀|말|얘기|이야기)\s*하세요)")
_KO_WHO = r"(?:(?:말이|말씀이|말하는\s*게|말\s*속도가|속도가)\s*|^)(?:좀\s*|조금\s*)?너무\s*"
_KO_ALONE = r"^(?:좀|조금|더|좀\s*더|조금\s*더)?\s*"
_KO = [
    (re.compile(r"(?:천천히|느리게)" + _KO_ASK), SLOWER),
    (re.compile(_KO_ALONE + r"(?:천천히|느리게)\s*(?:요|주세요)?$"), SLOWER),
    (re.compile(_KO_WHO + r"빨라(?:요|서)?"), SLOWER),
    (re.compile(r"(?:빨리|빠르게)" + _KO_ASK), FASTER),
    (re.compile(_KO_ALONE + r"(?:빨리|빠르게)\s*(?:요|주세요)?$"), FASTER),
    (re.compile(_KO_WHO + r"느려(?:요|서)?"), FASTER),
    (re.compile(r"(?:보통|원래|평소)\s*속도로"), NORMAL),
]


def detect_rate_request(text: str) -> RateRequest | None:
    """A request to the tutor to speak slower, faster or normally, or None.

    Sentence by sentence (a request may follow other words: "Sorry. Could you speak more
    slowly?"); the last request in the turn wins."""
    found: RateRequest | None = None
    for sentence in re.split(r"[.!?。\n]+", (text or "").strip()):
        request = _sentence_request(sentence)
        if request is not None:
            found = request
    return found


def _sentence_request(sentence: str) -> RateRequest | None:
    plain = sentence.strip()
    if not plain:
        return None
    if re.search(r"[\uac00-\ud7a3]", plain):
        plain = re.sub(r"\s+", " ", re.sub(r"[,~…·]", " ", plain)).strip()
        for pattern, direction in _KO:
            if pattern.search(plain):
                return RateRequest(direction, _ko_step(plain))
        return None
    low = re.sub(r"[’`]", "'", plain.lower())
    low = re.sub(r"[^a-z' ]+", " ", low)
    low = re.sub(r"\s+", " ", low).strip()
    for pattern, direction in _PATTERNS:
        match = pattern.search(low)
        if match:
            return RateRequest(direction, _step(match.group(0)))
    # "Slower, please." / "A bit faster!": nothing but the rate word and politeness.
    words = low.split()
    rate_words = [w for w in words if w in _BARE]
    if len(rate_words) == 1 and len(words) <= 6 and all(w in _FILLERS or w in _BARE for w in words):
        direction = _BARE[rate_words[0]]
        if rate_words[0] == "slow" and "slow" == words[-1] and "more" not in words:
            return None  # "slow" alone is an adjective ("it was slow"), not a request
        return RateRequest(direction, _step(low))
    return None


def _step(phrase: str) -> float:
    if re.search(r"\b(?:a\s+(?:little|tiny)\s+bit|a\s+(?:little|bit)|slightly|little\s+bit|tiny)\b", phrase):
        return SMALL_STEP
    if re.search(r"\b(?:much|a\s+lot|way|really)\b", phrase):
        return BIG_STEP
    return STEP


def _ko_step(phrase: str) -> float:
    if re.search(r"조금|약간|살짝", phrase):
        return SMALL_STEP
    if re.search(r"훨씬|많이|너무", phrase):
        return BIG_STEP
    return STEP
