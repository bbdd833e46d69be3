"""The call report: duration, speaking time, words per minute, corrections, new words and
the emotion timeline. Pure computation over the call's turns; the corrections and word
list come from the tutor model's review (tutor/review.py) when it could give one."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from tutor_app.tutor.fluency import call_fluency
from tutor_app.tutor.pause_stats import PauseStats

WORDS_PER_SECOND_SPOKEN = 2.5  # ~150 wpm: estimate for typed turns (no audio to measure)
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


@dataclass
class TurnRecord:
    """What the report needs from one turn."""

    at: float  # seconds since the epoch
    user_text: str
    reply: str
    speech_seconds: float | None = None  # measured from audio; None for typed turns
    emotion_label: str = "neutral"
    emotion_score: float = 0.0
    fluency: Any = None  # tutor/fluency.TurnFluency of a spoken turn (word timings), else None
    kept: bool = True  # said while memory was on (settings.memory_on); the report leaves the rest out


@dataclass
class Correction:
    original: str
    better: str
    why: str = ""
    type: str = ""  # tense | article | preposition | agreement | word choice | word order | other
    why_ko: str = ""  # the same in Korean, when the learner asked for it (tutor/explain_ko.py)


@dataclass
class CallReport:
    session_id: str
    started_at: float
    ended_at: float
    turns: int
    duration_seconds: float
    speaking_seconds: float
    speaking_estimated: bool
    words: int
    words_per_minute: float
    corrections: list[Correction] = field(default_factory=list)
    new_words: list[str] = field(default_factory=list)
    emotion_timeline: list[dict[str, Any]] = field(default_factory=list)
    review_source: str = "none"  # model | local-model (a small model on this machine) | heuristic | none
    # The learner's within-turn pauses (PauseStats.to_dict, call/pauses.py): {} for a call
    # without a microphone, count 0 for a live call without pauses.
    pauses: dict[str, float] = field(default_factory=dict)
    # Rate, runs, pause ratio and the words the recogniser was unsure of (tutor/fluency.py);
    # {} when no turn was spoken or the call was rebuilt without its word timings.
    fluency: dict[str, Any] = field(default_factory=dict)
    # Turns said while memory was paused: counted here, nothing else of them is in the report.
    paused_turns: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CallReport":
        data = dict(data)
        fields = set(Correction.__dataclass_fields__)
        data["corrections"] = [Correction(**{k: v for k, v in c.items() if k in fields})
                               for c in data.get("corrections", [])]
        return cls(**data)


def pause_stats(pauses_ms: list[float] | None) -> dict[str, float]:
    """count, median and p90 (ms) of the learner's within-turn pauses; {} when not measured."""
    if pauses_ms is None:
        return {}
    return PauseStats.from_pauses(list(pauses_ms)).to_dict()


def words_in(text: str) -> list[str]:
    return _WORD.findall(text)


def build_report(session_id: str, started_at: float, ended_at: float, turns: list[TurnRecord],
                 corrections: list[Correction] | None = None,
                 new_words: list[str] | None = None, review_source: str = "none",
                 pauses_ms: list[float] | None = None) -> CallReport:
    """The report of the turns said while memory was on (`TurnRecord.kept`); the others are
    only counted: what the learner said with memory paused is not kept, not even as a word list."""
    paused = sum(1 for t in turns if not t.kept)
    turns = [t for t in turns if t.kept]
    words = sum(len(words_in(t.user_text)) for t in turns)
    measured = [t.speech_seconds for t in turns if t.speech_seconds is not None]
    estimated = len(measured) < len(turns)
    speaking = sum(measured) + sum(
        len(words_in(t.user_text)) / WORDS_PER_SECOND_SPOKEN for t in turns if t.speech_seconds is None
    )
    wpm = words / (speaking / 60.0) if speaking > 0 else 0.0
    if new_words is None:
        new_words, review_source = heuristic_new_words(turns), "heuristic"
    timeline = [
        {"t": round(t.at - started_at, 1), "label": t.emotion_label, "score": round(t.emotion_score, 3)}
        for t in turns
    ]
    return CallReport(
        session_id=session_id, started_at=started_at, ended_at=ended_at, turns=len(turns),
        duration_seconds=round(max(0.0, ended_at - started_at), 1),
        speaking_seconds=round(speaking, 1), speaking_estimated=estimated, words=words,
        words_per_minute=round(wpm, 1), corrections=list(corrections or []),
        new_words=list(new_words), emotion_timeline=timeline, review_source=review_source,
        pauses=pause_stats(pauses_ms), fluency=call_fluency(t.fluency for t in turns), paused_turns=paused,
    )


def heuristic_new_words(turns: list[TurnRecord], limit: int = 5) -> list[str]:
    """Longer words the tutor used that the learner did not: a rough stand-in when the
    model gave no vocabulary list (the report says which source it used)."""
    learner = {w.lower() for t in turns for w in words_in(t.user_text)}
    seen: dict[str, int] = {}
    for t in turns:
        for w in words_in(t.reply):
            lw = w.lower()
            if len(lw) >= 7 and lw not in learner and "'" not in lw:
                seen[lw] = seen.get(lw, 0) + 1
    ranked = sorted(seen, key=lambda w: (-seen[w], w))
    return ranked[:limit]
