"""Follow-up or new topic (seed 002)? Explicit resets clear the carried context; short
or follow-up-worded questions keep the previous turn's recalled memories; otherwise the
embedding similarity to the previous question decides (settings.memory.followup_similarity).
"""
from __future__ import annotations

import re
from typing import Any

from tutor_app.memory.retrieval.rewrite import FOLLOWUP_WORDING, SHORT_CHARS

_RESET = re.compile(
    r"\b(?:new\s+topic|change\s+(?:the\s+)?(?:topic|subject)|(?:let'?s|can\s+we|could\s+we)\s+talk\s+about\s+"
    r"(?:something|anything)\s+(?:else|different)|something\s+(?:else|different)\s+(?:now|please)|"
    r"different\s+topic|forget\s+(?:about\s+)?(?:that|it)|moving\s+on|start\s+over)\b|다른\s*(?:얘기|이야기|주제)|새\s*주제|주제\s*(?:를\s*)?바꾸",
    re.IGNORECASE,
)


class FollowupDecision(str):
    """The kind ("reset" | "followup" | "new" | "first"), a str so `d == "followup"`
    works, with why (`reason`: reset_phrase | short | followup_phrase | similar |
    dissimilar | no_previous) and the similarity when it decided."""

    reason: str
    similarity: float | None

    def __new__(cls, kind: str, reason: str, similarity: float | None = None) -> "FollowupDecision":
        obj = super().__new__(cls, kind)
        obj.reason, obj.similarity = reason, similarity
        return obj

    @property
    def kind(self) -> str:
        return str(self)

    @property
    def keep_context(self) -> bool:
        return self.kind == "followup"


def is_reset(question: str) -> bool:
    return bool(_RESET.search(question))


def classify(question: str, previous: str | None, query_vector: Any = None, previous_vector: Any = None,
             threshold: float = 0.5, similarity: float | None = None) -> FollowupDecision:
    """Rules first; then the cosine of the two questions (given as `similarity`, or
    computed from the two vectors). Without either, an undecided question is new."""
    if similarity is None and query_vector is not None and previous_vector is not None:
        try:
            similarity = float(query_vector @ previous_vector)
        except (TypeError, ValueError):
            similarity = None
    if is_reset(question):
        return FollowupDecision("reset", "reset_phrase")
    if not previous:
        return FollowupDecision("first", "no_previous")
    q = question.strip()
    if len(q) < SHORT_CHARS:
        return FollowupDecision("followup", "short")
    if FOLLOWUP_WORDING.search(q):
        return FollowupDecision("followup", "followup_phrase")
    if similarity is None:
        return FollowupDecision("new", "dissimilar")
    if similarity >= threshold:
        return FollowupDecision("followup", "similar", similarity)
    return FollowupDecision("new", "dissimilar", similarity)


def classify_with(embedder: Any, question: str, previous: str | None, threshold: float = 0.5,
                  question_vector: Any = None, previous_vector: Any = None) -> FollowupDecision:
    """classify(), embedding only when the rules do not decide."""
    quick = classify(question, previous, threshold=threshold)
    if quick.kind != "new" or not previous:
        return quick
    try:
        qv = question_vector if question_vector is not None else embedder.embed_one(question)
        pv = previous_vector if previous_vector is not None else embedder.embed_one(previous)
        sim = float(qv @ pv)
    except Exception:  # noqa: BLE001 - without embeddings, treat as a new topic
        return quick
    return classify(question, previous, threshold=threshold, similarity=sim)
