"""How long a live call waits for a learner who paused mid-sentence (the "thinking time").

The base wait is by level (LEVEL_THINKING_MS: beginners get more) or the learner's own
setting (`speech.thinking_ms`, 500-5000 ms; 0 = by level). Unless they turn it off
(`speech.adapt_thinking`), the wait then follows their own pauses: MARGIN x the median of
the p90 within-turn pause of their last RECENT_CALLS calls, never below 60 % of the base
(a fluent learner gets answered sooner, but not recklessly) and never above MAX_MS. The
recorded pauses are those the learner came back from, so they are all shorter than the
wait of their call: the margin lets the wait grow for a learner who keeps using most of it.

Each call's pauses are kept as `PauseStats` under `pauses` in its report (tutor/report.py);
`recent_pause_stats` reads them back at call start.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from tutor_app.tutor.turn_taking import TurnTakingOptions

log = logging.getLogger(__name__)

LEVEL_THINKING_MS = {"beginner": 3000, "intermediate": 2000, "advanced": 1500}
MIN_MS, MAX_MS = 500, 5000  # bounds of the setting and of the adapted value
FLOOR = 0.6  # the adapted wait never goes below this share of the base wait
MARGIN = 1.3  # wait this much longer than the learner's usual long pause
RECENT_CALLS = 5
MIN_PAUSES = 3  # fewer pauses than this over the recent calls: too little to follow


@dataclass(frozen=True)
class PauseStats:
    """A learner's within-turn pauses in one call."""

    count: int = 0
    median_ms: float = 0.0
    p90_ms: float = 0.0

    @classmethod
    def from_pauses(cls, pauses_ms: list[float]) -> "PauseStats":
        if not pauses_ms:
            return cls()
        ordered = sorted(float(p) for p in pauses_ms)
        return cls(len(ordered), round(_percentile(ordered, 0.5), 1), round(_percentile(ordered, 0.9), 1))

    def to_dict(self) -> dict[str, float]:
        return {"count": self.count, "median_ms": self.median_ms, "p90_ms": self.p90_ms}

    @classmethod
    def from_dict(cls, data: Any) -> "PauseStats":
        """ValueError for anything that is not a stored PauseStats (a hand-edited or old report)."""
        try:
            stats = cls(int(data["count"]), float(data["median_ms"]), float(data["p90_ms"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not pause stats: {exc}") from None
        if stats.count < 0 or stats.median_ms < 0 or stats.p90_ms < stats.median_ms:
            raise ValueError("not pause stats: negative or unordered values")
        return stats


def _percentile(ordered: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default), without numpy."""
    pos = q * (len(ordered) - 1)
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def base_thinking_ms(level: str, setting_ms: int) -> int:
    """The wait before any adaptation: the setting, or the level's when it is 0."""
    base = setting_ms or LEVEL_THINKING_MS.get(level, LEVEL_THINKING_MS["intermediate"])
    return max(MIN_MS, min(MAX_MS, int(base)))


def thinking_time_ms(level: str, setting_ms: int, past_calls: list[PauseStats], adapt: bool) -> int:
    """The wait through an unfinished turn's pause. `setting_ms` 0 = by level;
    `past_calls`: the pause stats of recent calls (newest last)."""
    base = base_thinking_ms(level, setting_ms)
    recent = [s for s in past_calls[-RECENT_CALLS:] if s.count > 0]
    if not adapt or sum(s.count for s in recent) < MIN_PAUSES:
        return base
    p90s = sorted(s.p90_ms for s in recent)
    typical = _percentile(p90s, 0.5) * MARGIN
    return int(round(max(FLOOR * base, min(MAX_MS, typical))))


def recent_pause_stats(memory: Any, limit: int = RECENT_CALLS) -> list[PauseStats]:
    """Pause stats of the profile's last `limit` calls that recorded them, oldest first
    (`memory`: the profile's MemoryStore; its calls() are that profile's only)."""
    try:
        calls = memory.calls()
    except Exception as exc:  # noqa: BLE001 - no history is a fine answer
        log.debug("no pause history: %s", exc)
        return []
    calls = sorted(calls, key=lambda c: c.started_at.timestamp() if c.started_at else 0.0)
    out: list[PauseStats] = []
    for call in calls:
        data = call.report.get("pauses") if isinstance(call.report, dict) else None
        if not data:
            continue  # a typed call, or one from before pauses were kept
        try:
            out.append(PauseStats.from_dict(data))
        except ValueError as exc:
            log.debug("call %s: %s", call.id, exc)
    return out[-limit:] if limit > 0 else []


def turn_taking_options(settings: Any, engine: Any = None) -> TurnTakingOptions:
    """The live call's turn-taking from the settings and the learner's past pauses."""
    speech = settings.speech
    memory = getattr(getattr(engine, "services", None), "memory", None)
    adapt = bool(getattr(speech, "adapt_thinking", True))
    past = recent_pause_stats(memory) if adapt and memory is not None else []
    thinking = thinking_time_ms(settings.tutor.level, int(getattr(speech, "thinking_ms", 0) or 0), past, adapt)
    return TurnTakingOptions(thinking_ms=thinking, vad_silence_ms=speech.silence_ms)
