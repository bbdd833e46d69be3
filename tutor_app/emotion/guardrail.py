"""The care guardrail: a caring check-in after repeated distress, a safe reply on crisis language.

API for the tutor engine (one `Guardrail` per call/session, fed every learner turn):

    guard = Guardrail.from_settings(settings.emotion)
    decision = guard.check(text, scores)   # scores: the turn's EmotionScores (or {label, score} dicts)
    decision.kind          # None | "checkin" | "crisis"
    decision.instruction   # checkin: add to this turn's system prompt; else None
    decision.reply         # crisis: say exactly this, do NOT call the LLM; else None
    decision.use_for_tutoring  # False on crisis: no correction, no memory, no vocabulary

Rules
- crisis (settings.emotion.crisis_enabled): self-harm or suicide language in English or
  Korean ("kill myself", "want to die", "end my life", "suicidal", "self-harm",
  죽고 싶다, 자살, 자해, 살고 싶지 않아, 목숨을 끊, 극단적 선택, ...). Text only, so it
  works even when the emotion scores are weak. Crisis wins over check-in.
- checkin (settings.emotion.checkin_enabled): a distress label (sadness, grief, fear,
  nervousness, disappointment, remorse) scores >= 0.6 in at least 2 of the learner's last
  3 turns, this one included. Every such turn is marked; the first of a run gets the full
  check-in instruction, later ones a shorter "stay gentle, don't repeat yourself" one.

Idioms handled (no crisis): "I could die of laughter", "dying of/from laughter,
embarrassment, boredom, ...", "I'm dying to see it", "this traffic is killing me",
"you're killing me", "killing it", "to die for", "I nearly killed myself laughing",
"die-hard", career/political/fashion suicide, "Suicide Squad", suicide bomber/doors,
negated statements ("I don't want to die", "I'm not suicidal", "I would never kill
myself"), and Korean hyperbole such as 배고파 죽겠다, 웃겨 죽겠어, 좋아 죽겠다 and 자살골
(own goal). Not handled: sarcasm or hyperbole spelled as a plain statement ("ugh, I
want to die, Monday again", "I'll kill myself if I fail this test" without a
laughing/joking cue) is treated as crisis on purpose -- a false alarm costs one caring
message, a miss costs far more; indirect hints without those words ("what's the point of
anything") are left to the check-in rule.
"""
from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

DISTRESS_LABELS: tuple[str, ...] = ("sadness", "grief", "fear", "nervousness", "disappointment", "remorse")
STRONG = 0.6
WINDOW = 3
NEEDED = 2

CHECKIN_INSTRUCTION = (
    "Care check-in: the learner has sounded {feeling} in several recent turns. In this reply, "
    "first acknowledge how they seem to feel, warmly and in simple words. Gently suggest taking "
    "a rest, and mention that talking with someone they trust, or with a professional, can help. "
    "Do not lecture, diagnose or correct their English in this reply; keep it short and let them "
    "decide whether to keep practising."
)
CHECKIN_FOLLOWUP = (
    "Care: the learner still sounds {feeling}. Stay gentle and patient, keep the reply short, "
    "do not correct their English now, and do not repeat your earlier suggestion word for word."
)
CRISIS_REPLY = (
    "I'm really sorry you're feeling this way, and I'm glad you told me. You matter, and you "
    "don't have to go through this alone. If you might act on these thoughts or you are in danger, "
    "please call your local emergency number right now (119 in Korea, 911 in the US, 999 in the UK, "
    "112 in Europe). You can also talk to a crisis line at any time: 109 in Korea, 988 in the US "
    "(call or text), 116 123 for Samaritans in the UK and Ireland, or find a line for your country "
    "at findahelpline.com. If you can, please reach out to someone you trust today. "
    "We can pause our English practice; I'm here with you."
)
CRISIS_REPLY_KO = (
    "지금 많이 힘드시군요. 말해 주셔서 고맙습니다. 혼자 견디지 않으셔도 됩니다. "
    "위험하다고 느껴지면 지금 바로 119에 전화하시고, 24시간 자살예방상담전화 109로 언제든 이야기할 수 있어요."
)

# --- crisis language --------------------------------------------------------------------
_EN_CRISIS = [
    r"\bkill(?:ing|ed)?\s+my\s*self\b",
    r"\b(?:want|wanna|going|gonna|ready|trying|try|plan(?:ning)?|decided)\s+(?:to\s+)?die\b",
    r"\bwish\s+i\s+(?:was|were)\s+dead\b",
    r"\bwish\s+i\s+(?:had\s+)?never\s+(?:been\s+)?born\b",
    r"\bbetter\s+off\s+dead\b",
    r"\b(?:end|ending|take|taking)\s+my\s+(?:own\s+)?life\b",
    r"\bend(?:ing)?\s+it\s+all\b",
    r"\bsuicid(?:e|al)\b",
    r"\bself[\s-]?harm(?:ing)?\b",
    r"\b(?:hurt|harm|cut|cutting|hang|hanging|hurting|harming)\s+my\s*self\b",
    r"\b(?:don'?t|do\s+not)\s+want\s+to\s+(?:live|be\s+alive|exist)\b",
    r"\bno\s+(?:reason|point)\s+(?:to|in)\s+(?:live|living|going\s+on)\b",
    r"\bnot\s+worth\s+living\b",
    r"\b(?:can'?t|cannot)\s+go\s+on\s+(?:living|anymore|any\s+more)\b",
    r"\boverdos(?:e|ing)\b",
]
_KO_CRISIS = [
    r"죽고\s*싶",
    r"죽어\s*버리고\s*싶",
    r"자살(?!\s*골)",
    r"자해",
    r"살고\s*싶지\s*않",
    r"살기\s*싫",
    r"목숨\s*을?\s*끊",
    r"극단\s*적\s*(?:인\s*)?선택",
    r"사라지고\s*싶",
    r"뛰어\s*내리고\s*싶",
]
_CRISIS = re.compile("|".join(f"(?:{p})" for p in _EN_CRISIS + _KO_CRISIS), re.IGNORECASE)

# A match followed by a laughing/joking cue is the idiom, not a crisis.
_IDIOM_AFTER = re.compile(
    r"^\W{0,3}(?:of|from|with|laughing|from\s+laughing)?\s*"
    r"(?:laugh\w*|lol|lmao|haha\w*|embarrass\w*|boredom|bored|shame|cuteness|curiosity|"
    r"happiness|excitement|jealousy|envy|cringe|hunger)\b",
    re.IGNORECASE,
)
# Compounds where "suicide" is not about the speaker.
_SUICIDE_COMPOUND = re.compile(
    r"(?:career|political|social|fashion|commercial|electoral)\s+suicide|suicide\s+(?:squad|doors?|bomb\w*|mission|"
    r"run|king|pact\s+movie)",
    re.IGNORECASE,
)
_NEGATION_BEFORE = re.compile(r"(?:\bnot|n't|\bnever|\bno\s+longer)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def _normalise(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("`", "'")
    return re.sub(r"\s+", " ", text).strip()


def crisis_phrase(text: str | None) -> str | None:
    """The self-harm / suicide phrase found in `text`, or None (idioms and negations skipped)."""
    t = _normalise(text or "")
    if not t:
        return None
    masked = _SUICIDE_COMPOUND.sub(lambda m: " " * len(m.group(0)), t)
    for m in _CRISIS.finditer(masked):
        phrase = m.group(0)
        if _IDIOM_AFTER.match(masked[m.end():]):
            continue
        ascii_phrase = not _HANGUL.search(phrase)
        # "I don't want to die" / "I'm not suicidal" / "never kill myself" are not crisis language,
        # except patterns that carry their own negation ("don't want to live").
        if ascii_phrase and not re.match(r"(?:don|do|can|no|not)", phrase, re.IGNORECASE) \
                and _NEGATION_BEFORE.search(masked[max(0, m.start() - 30):m.start()]):
            continue
        return phrase
    return None


# --- the per-session guardrail -------------------------------------------------------------
@dataclass(frozen=True)
class GuardrailDecision:
    kind: str | None = None  # None | "checkin" | "crisis"
    instruction: str | None = None  # for the system prompt (checkin)
    reply: str | None = None  # the fixed reply (crisis): the LLM is not called
    emotion: str | None = None  # the distress label behind a check-in
    phrase: str | None = None  # the crisis phrase that matched

    @property
    def use_for_tutoring(self) -> bool:
        return self.kind != "crisis"


def _as_pairs(scores: Iterable[Any] | None) -> list[tuple[str, float]]:
    pairs = []
    for s in scores or ():
        if isinstance(s, Mapping):
            pairs.append((str(s.get("label")), float(s.get("score", 0.0))))
        else:
            pairs.append((str(s.label), float(s.score)))
    return pairs


class Guardrail:
    """Stateful per session: remembers whether each recent learner turn was strongly negative."""

    def __init__(self, checkin_enabled: bool = True, crisis_enabled: bool = True, threshold: float = STRONG,
                 window: int = WINDOW, needed: int = NEEDED,
                 distress_labels: Iterable[str] = DISTRESS_LABELS) -> None:
        self.checkin_enabled = checkin_enabled
        self.crisis_enabled = crisis_enabled
        self.threshold = threshold
        self.needed = needed
        self.distress_labels = frozenset(distress_labels)
        self._recent: deque[str | None] = deque(maxlen=window)  # distress label or None, per turn
        self._in_checkin = False

    @classmethod
    def from_settings(cls, emotion_settings: Any) -> "Guardrail":
        return cls(checkin_enabled=bool(getattr(emotion_settings, "checkin_enabled", True)),
                   crisis_enabled=bool(getattr(emotion_settings, "crisis_enabled", True)))

    def reset(self) -> None:
        self._recent.clear()
        self._in_checkin = False

    def distress(self, scores: Iterable[Any] | None) -> str | None:
        """The strongest distress label at or over the threshold, or None."""
        hits = [(v, lab) for lab, v in _as_pairs(scores) if lab in self.distress_labels and v >= self.threshold]
        return max(hits)[1] if hits else None

    def check(self, text: str, scores: Iterable[Any] | None = None) -> GuardrailDecision:
        """Record this learner turn and decide. Call once per learner turn, in order."""
        self._recent.append(self.distress(scores))
        if self.crisis_enabled:
            phrase = crisis_phrase(text)
            if phrase:
                reply = CRISIS_REPLY + (" " + CRISIS_REPLY_KO if _HANGUL.search(text or "") else "")
                return GuardrailDecision("crisis", reply=reply, phrase=phrase)
        if self.checkin_enabled:
            labels = [lab for lab in self._recent if lab]
            if len(labels) >= self.needed:
                feeling = self._recent[-1] or labels[-1]
                template = CHECKIN_FOLLOWUP if self._in_checkin else CHECKIN_INSTRUCTION
                self._in_checkin = True
                return GuardrailDecision("checkin", instruction=template.format(feeling=_adjective(feeling)),
                                         emotion=feeling)
        self._in_checkin = False
        return GuardrailDecision()


_ADJECTIVES = {"sadness": "sad", "grief": "grieving", "fear": "afraid", "nervousness": "nervous",
               "disappointment": "disappointed", "remorse": "regretful"}


def _adjective(label: str) -> str:
    return _ADJECTIVES.get(label, label)
