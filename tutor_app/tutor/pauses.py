"""How long a live call waits for a learner who paused mid-sentence (the "thinking time").

By level by default (beginners get more), or the learner's own setting; and, unless
they turn it off, following their own pauses: the longest wait becomes their recent
within-turn p90 pause plus a margin, bounded so it never gets silly either way. The
pauses come from the call reports (`pauses` in each report, written at call end).
"""
from __future__ import annotations

import logging
from typing import Any

from tutor_app.tutor.turn_taking import TurnTakingOptions

log = logging.getLogger(__name__)

LEVEL_THINKING_MS = {"beginner": 3000, "intermediate": 2000, "advanced": 1500}
MIN_MS, MAX_MS = 500, 5000  # bounds of the setting and of the adapted value
MARGIN = 1.3  # wait this much longer than the learner's usual long pause
RECENT_CALLS = 5


def thinking_time_ms(level: str, setting_ms: int, past_p90_ms: list[float], adapt: bool) -> int:
    """The wait through an unfinished turn's pause. `setting_ms` 0 = by level;
    `past_p90_ms`: the p90 pause of each recent call (newest last)."""
    base = LEVEL_THINKING_MS.get(level, LEVEL_THINKING_MS["intermediate"])
    if setting_ms:
        base = setting_ms
    base = max(MIN_MS, min(MAX_MS, int(base)))
    if not adapt or not past_p90_ms:
        return base
    recent = sorted(past_p90_ms[-RECENT_CALLS:])
    typical = recent[len(recent) // 2] * MARGIN
    # Follow the learner, but never below 60 % of the chosen wait nor above the maximum.
    return int(max(0.6 * base, min(MAX_MS, max(base, typical))))


def recent_pause_p90s(memory: Any, limit: int = RECENT_CALLS) -> list[float]:
    """p90 pauses of the profile's last calls that recorded any (oldest first)."""
    try:
        calls = sorted(memory.calls(), key=lambda c: c.started_at.timestamp() if c.started_at else 0.0)
    except Exception as exc:  # noqa: BLE001 - no history is a fine answer
        log.debug("no pause history: %s", exc)
        return []
    values = [float(c.report["pauses"]["p90_ms"]) for c in calls
              if isinstance(c.report.get("pauses"), dict) and "p90_ms" in c.report["pauses"]]
    return values[-limit:]


def turn_taking_options(settings: Any, engine: Any = None) -> TurnTakingOptions:
    """The live call's turn-taking from the settings and the learner's past pauses."""
    speech = settings.speech
    memory = getattr(getattr(engine, "services", None), "memory", None)
    adapt = bool(getattr(speech, "adapt_thinking", True))
    past = recent_pause_p90s(memory) if adapt and memory is not None else []
    thinking = thinking_time_ms(settings.tutor.level, int(getattr(speech, "thinking_ms", 0) or 0), past, adapt)
    return TurnTakingOptions(thinking_ms=thinking, vad_silence_ms=speech.silence_ms)
