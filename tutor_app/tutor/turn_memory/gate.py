"""The memory gate (seed 001, thresholds fixed): does a learner utterance go to
long-term memory? Yes when its strongest non-neutral emotion scores >= 0.6, or when it
carries a save trigger ("remember that ...", "기억해줘"); never for questions, which
ask for a memory rather than state one. Temporary memos stay in short-term memory.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tutor_app.core.types import EmotionScore, top_emotion
from tutor_app.memory.retrieval.recall import STRONG_EMOTION  # the same bar brings such memories back

_TRIGGER = re.compile(
    r"\b(?:please\s+)?(?:remember|memorize|memorise|don'?t\s+forget|do\s+not\s+forget|never\s+forget|"
    r"keep\s+in\s+mind|bear\s+in\s+mind|note\s+that|make\s+a\s+note|take\s+note|save\s+(?:this|that))\b"
    r"|기억\s*해|저장\s*해|잊지\s*마",
    re.IGNORECASE,
)
# Asking ABOUT memory is not a request to store: "do you remember ...", "remember when ...?"
_RECALL_ASK = re.compile(r"\b(?:do|did|can|could|would)\s+you\s+(?:still\s+)?remember\b|기억\s*나", re.IGNORECASE)
_TEMP = re.compile(
    r"^\s*(?:temp(?:orary)?\s*memo|temporary\s+note|quick\s+memo|just\s+for\s+(?:this|the)\s+(?:call|session|conversation)"
    r"|for\s+this\s+call\s+only|임시\s*메모)\b[\s:,.-]*",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^\s*(?:what|who|whom|whose|when|where|why|how|which|do|does|did|is|are|am|was|were|can|could|would|"
    r"will|shall|should|have|has|had|may|might)\b",
    re.IGNORECASE,
)
_TRIGGER_PREFIX = re.compile(
    r"^\s*(?:(?:please|hey|okay|ok|so|and)[\s,]+)*(?:remember|memorize|memorise|don'?t\s+forget|do\s+not\s+forget|"
    r"never\s+forget|keep\s+in\s+mind|bear\s+in\s+mind|note\s+that|make\s+a\s+note|take\s+note)"
    r"(?:\s+(?:that|this|of))?[\s:,.-]*",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class GateDecision:
    store: bool  # to long-term memory
    reason: str  # "emotion" | "trigger" | "question" | "temp_memo" | "weak" | "empty"
    emotion: EmotionScore | None = None  # strongest non-neutral emotion, if any
    temp_memo: str = ""  # the memo text when reason == "temp_memo"

    @property
    def source(self) -> str:
        return "trigger" if self.reason == "trigger" else "gate"


def has_save_trigger(text: str) -> bool:
    return bool(_TRIGGER.search(text)) and not _RECALL_ASK.search(text)


def is_question(text: str) -> bool:
    t = text.strip()
    if not t:
        return False
    # A trigger sentence ("remember that my exam is Friday, ok?") is a statement.
    if _TRIGGER_PREFIX.match(t):
        return False
    if t.endswith("?") or t.endswith("？"):
        return True
    return bool(_QUESTION_START.match(t)) and len(t.split()) <= 12 and not t.endswith(".")


def temp_memo(text: str) -> str:
    """The memo body of a "temp memo: ..." / "just for this call ..." utterance, else ''."""
    m = _TEMP.match(text)
    if not m:
        return ""
    return text[m.end():].strip() or text.strip()


def decide(text: str, emotions: Sequence[EmotionScore] | None = None) -> GateDecision:
    top = top_emotion(emotions, neutral_ok=False)
    if not text or not text.strip():
        return GateDecision(False, "empty", top)
    memo = temp_memo(text)
    if memo:
        return GateDecision(False, "temp_memo", top, memo)
    if is_question(text) or _RECALL_ASK.search(text):
        return GateDecision(False, "question", top)
    if has_save_trigger(text):
        return GateDecision(True, "trigger", top)
    if top is not None and top.score >= STRONG_EMOTION:
        return GateDecision(True, "emotion", top)
    return GateDecision(False, "weak", top)


def memory_text(text: str) -> str:
    """The text to store: verbatim (memory text is data; we never rewrite what was said)."""
    return text.strip()
