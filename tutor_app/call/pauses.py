"""How long a live call waits for a learner who paused mid-sentence (the "thinking time").

The base wait is by level (LEVEL_THINKING_MS: beginners get more) or the learner's own
setting (`speech.thinking_ms`, 500-5000 ms; 0 = by level). Unless they turn it off
(`speech.adapt_thinking`), the wait then follows their own pauses: MARGIN x the median of
the p90 within-turn pause of their last RECENT_CALLS calls, never below 60 % of the base
(a fluent learner gets answered sooner, but not recklessly) and never above MAX_MS. The
recorded pauses are those the learner came back from, so they are all shorter than the
wait of their call: the margin lets the wait grow for a learner who keeps using most of it.

Each call's pauses are kept as `PauseStats` under `pauses` in its report (tutor/report.py, tutor/pause_stats.py);
`recent_pause_stats` reads them back at call start.
"""
from __future__ import annotations

import logging
from typing import Any

from tutor_app.call.listen.turn_taking import TurnTakingOptions
from tutor_app.tutor.pause_stats import PauseStats, percentile

log = logging.getLogger(__name__)

LEVEL_THINKING_MS = {"beginner": 3000, "intermediate": 2000, "advanced": 1500}
MIN_MS, MAX_MS = 500, 5000  # bounds of the setting and of the adapted value
FLOOR = 0.6  # the adapted wait never goes below this share of the base wait
MARGIN = 1.3  # wait this much longer than the learner's usual long pause
RECENT_CALLS = 5
MIN_PAUSES = 3  # fewer pauses than this over the recent calls: too little to follow


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
    typical = percentile(p90s, 0.5) * MARGIN
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
