"""Time words in a question ("yesterday", "last week", "on Monday") -> a window of
creation times to prefer. Memories are stamped; questions days later refer to them
by when they were said."""
from __future__ import annotations

import re
from datetime import datetime

_DAY = 86400.0
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_REL = re.compile(
    r"\b(today|this morning|tonight|yesterday|the day before yesterday|last night|last week|this week|"
    r"last weekend|this weekend|last month|this month|recently|lately|last time|the other day|"
    r"a few days ago|(\d+|two|three|four|five|six|seven) days ago|last (monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)|on (monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b",
    re.IGNORECASE,
)
_NUM = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


def window(query: str, now: datetime) -> tuple[float, float] | None:
    """(start, end) epoch seconds the question points at, or None."""
    m = _REL.search(query)
    if not m:
        return None
    phrase = m.group(1).lower()
    t = now.timestamp()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
    if phrase in ("today", "this morning", "tonight"):
        return midnight, t + 1
    if phrase in ("yesterday", "last night"):
        return midnight - _DAY, midnight + 6 * 3600
    if phrase == "the day before yesterday":
        return midnight - 2 * _DAY, midnight - _DAY
    if phrase in ("this week",):
        return midnight - now.weekday() * _DAY, t + 1
    if phrase in ("last week",):
        return midnight - (now.weekday() + 7) * _DAY, midnight - now.weekday() * _DAY + _DAY
    if phrase in ("last weekend", "this weekend"):
        back = (now.weekday() - 5) % 7 or 7 if phrase == "last weekend" else (now.weekday() - 5) % 7
        start = midnight - back * _DAY
        return start, start + 2 * _DAY
    if phrase in ("last month", "this month"):
        return t - 35 * _DAY, t + 1
    if phrase in ("recently", "lately", "last time", "the other day", "a few days ago"):
        return t - 7 * _DAY, t + 1
    if phrase.endswith("days ago"):
        word = phrase.split()[0]
        n = int(word) if word.isdigit() else _NUM.get(word, 3)
        return midnight - n * _DAY, midnight - (n - 1) * _DAY + 6 * 3600
    day = m.group(3) or m.group(4)
    if day:
        back = (now.weekday() - _WEEKDAYS.index(day.lower())) % 7 or 7
        start = midnight - back * _DAY
        return start, start + _DAY
    return None
