"""One turn's result and its stage clock."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from tutor_app.core.types import EmotionScore
from tutor_app.llm.errors import LLMAuthError, LLMUnavailableError


class StageClock:
    """Per-stage wall times in ms on the monotonic clock; `mark` ends the current stage."""

    def __init__(self, start: float | None = None) -> None:
        self.start = time.perf_counter() if start is None else start
        self._last = self.start
        self.timings: dict[str, float] = {}

    def mark(self, stage: str) -> float:
        now = time.perf_counter()
        self.timings[stage] = round((now - self._last) * 1000, 2)
        self._last = now
        return self.timings[stage]

    def since_start(self, name: str) -> float:
        self.timings[name] = round((time.perf_counter() - self.start) * 1000, 2)
        return self.timings[name]

    def skip(self) -> None:
        self._last = time.perf_counter()


# How the tutor model fared in a turn (TurnResult.problem): "fallback" the local model
# answered (a notice); "cut" the reply broke off after some words; "api-key" the key was
# missing or rejected; "unavailable" no answer in time or no connection; "llm" any other
# model failure. The last three are answered with a spoken apology that is never stored.
PROBLEMS = ("fallback", "cut", "api-key", "unavailable", "llm")


@dataclass
class TurnResult:
    user_text: str
    reply: str
    emotion: list[EmotionScore] = field(default_factory=list)  # top 3
    recalled: list[dict[str, Any]] = field(default_factory=list)  # {id, text, score, reason}
    stored: list[str] = field(default_factory=list)
    guardrail: str | None = None  # None | "checkin" | "crisis"
    timings_ms: dict[str, float] = field(default_factory=dict)
    transcript: str | None = None  # voice turns: what STT heard
    interrupted: bool = False
    retracted: bool = False  # a speculative turn the learner talked on through: nothing kept
    error: str | None = None  # one line when the tutor model failed this turn
    backend: str = ""
    problem: str | None = None  # None or one of PROBLEMS: how the tutor model fared this turn
    fallback: str | None = None  # why the local model answered instead ("fallback" problem)
    # A spoken turn the recogniser did not understand (tutor/heard.py): why; the reply is
    # the fixed NOT_HEARD line and nothing of the turn was stored.
    not_heard: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "user_text": self.user_text, "reply": self.reply,
            "emotion": [e.to_dict() for e in self.emotion], "recalled": self.recalled,
            "stored": self.stored, "guardrail": self.guardrail, "timings_ms": self.timings_ms,
        }
        if self.transcript is not None:
            out["transcript"] = self.transcript
        if self.interrupted:
            out["interrupted"] = True
        if self.error:
            out["error"] = self.error
        if self.backend:
            out["backend"] = self.backend
        if self.not_heard:
            out["not_understood"] = True
            out["not_understood_reason"] = self.not_heard
        return out


@dataclass
class Generated:
    """One streamed reply: what was said, and how the model fared."""

    text: str = ""
    interrupted: bool = False
    error: str | None = None  # one line for the learner / CLI
    problem: str | None = None  # one of PROBLEMS
    fallback: str | None = None  # why the local model answered ("fallback")
    backend: str = ""
    apology: bool = False  # `text` is the app's apology, not a tutor reply
    notice: str = ""  # said before the reply (the switch to the local model), never stored
    caught: int = 0  # sentences held back as parroting (tutor/parrot.py)


def problem_kind(exc: Exception) -> str:
    """Which of PROBLEMS a model error is, when no word of the reply came."""
    if isinstance(exc, LLMAuthError):
        return "api-key"
    if isinstance(exc, LLMUnavailableError):
        return "unavailable"
    return "llm"
