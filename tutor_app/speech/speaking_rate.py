"""The tutor's speaking rate as a value: a multiplier of the voice's own speed (1.0 = the
voice as trained, 0.8 slower, 1.2 faster), by level or from the settings. The voice
(tts.py) starts at `effective_rate`; requests in a call and keeping the preference are the
tutor's (tutor/rate.py)."""
from __future__ import annotations

LEVEL_RATE = {"beginner": 0.85, "intermediate": 1.0, "advanced": 1.05}
MIN_RATE, MAX_RATE = 0.6, 1.5


def level_rate(level: str) -> float:
    return LEVEL_RATE.get(level, 1.0)


def effective_rate(level: str, setting: float) -> float:
    """The rate to speak at: the setting, or the level's when it is 0 (by level)."""
    if not setting:
        return level_rate(level)
    return clamp(setting)


def clamp(rate: float) -> float:
    return round(max(MIN_RATE, min(MAX_RATE, float(rate))), 2)
