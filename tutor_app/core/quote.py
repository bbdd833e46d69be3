"""Text from the learner or from memory, quoted for a prompt: data, never instructions.
One JSON string literal on one line (quotes, backslashes, newlines and control
characters escaped; angle brackets too, so the text cannot close the block it sits in),
cut to `max_chars`. The prompts (tutor/) and the practice plan (practice/) both quote."""
from __future__ import annotations

import json
import re

MAX_CHARS = 400  # per memory in a prompt
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u2028\u2029]")


def quote(text: str, max_chars: int = MAX_CHARS) -> str:
    """A safe, single-line quoted form of `text`."""
    t = _CONTROL.sub(" ", text)
    if len(t) > max_chars:
        t = t[: max_chars - 1] + "…"
    q = json.dumps(t, ensure_ascii=False)
    return q.replace("<", "\\u003c").replace(">", "\\u003e")
