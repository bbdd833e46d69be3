"""The learning loop around one call: a plan when it starts, reviews and new items when
it ends. Both are idempotent, so a call finished again by recovery counts once."""
from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tutor_app.practice.outcome import Outcome, judge_all
from tutor_app.practice.plan import due_items, plan_text
from tutor_app.practice.ports import PracticeBook

log = logging.getLogger(__name__)


@dataclass
class PracticeResult:
    """What a call did to the learner's practice items (part of the call outcome)."""

    reviewed: list[Outcome] = field(default_factory=list)
    added: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"reviewed": [{"id": o.item_id, "outcome": o.outcome} for o in self.reviewed], "added": self.added}


def start_plan(store: PracticeBook, session_id: str) -> str:
    """Plan the call (the items due now), remember the plan with the call, and return the
    prompt block. A resumed session keeps the plan it started with."""
    items = store.planned(session_id)
    if not items:
        items = due_items(store.items(), store.now())
        if items:
            store.mark_planned(session_id, items)
    return plan_text(items)


def after_call(store: PracticeBook, session_id: str, corrections: Sequence[Any], new_words: Sequence[str],
               learner_lines: Sequence[str]) -> PracticeResult:
    """Judge the planned items on what the learner said, then keep the call's new mistakes
    and words (new items are not judged on the call they came from)."""
    result = PracticeResult()
    planned = store.planned(session_id)
    result.reviewed = judge_all(planned, list(learner_lines))
    if planned:
        store.record(session_id, result.reviewed)
    result.added = len(store.add_from_call(session_id, corrections, new_words, learner_lines))
    log.info("practice after call %s: %d reviewed, %d new", session_id, len(result.reviewed), result.added)
    return result
