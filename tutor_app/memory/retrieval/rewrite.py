"""Short follow-up questions ("what about her?") do not stand alone as a search query:
recall then searches with the previous question's words in front (seed 002 wording).
The turn's follow-up decision (tutor/turn_memory/followup.py) uses the same cues."""
from __future__ import annotations

import re

SHORT_CHARS = 30  # seed 002: len < 30 counts as a follow-up hint

FOLLOWUP_WORDING = re.compile(
    r"^\s*(?:and|but|so|also|then|what\s+about|how\s+about|why|really|tell\s+me\s+more|more|what\s+else|"
    r"which\s+one|is\s+(?:it|that|she|he)|was\s+(?:it|that)|did\s+(?:it|she|he|they))\b|"
    r"\b(?:it|that|this|those|these|them|her|him|there|the\s+same)\b\s*\??\s*$|그거|그럼|그래서|더\s*알려",
    re.IGNORECASE,
)
_PRONOUN = re.compile(r"\b(?:it|that|this|those|them|her|him|she|he|they|there)\b", re.IGNORECASE)


def needs_context(question: str) -> bool:
    """Too short or pronoun-led to stand alone as a search query."""
    q = question.strip()
    return bool(q) and (bool(FOLLOWUP_WORDING.search(q)) or (len(q) < SHORT_CHARS and bool(_PRONOUN.search(q))))


def rewrite(query: str, context: str) -> str:
    """Short, pronoun-led follow-ups borrow the previous question's words."""
    if not context:
        return query
    return f"{context} {query}" if needs_context(query) else query
