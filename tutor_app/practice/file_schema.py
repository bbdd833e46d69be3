"""The practice file checked against its schema when read (issue #33).

`[1, 2]`, an item whose `turn` is a string or whose card cannot be read, plans that are
not lists of ids: each is a fault of the file like a torn one. `checked` returns what is
in good order and what was not, and store.py sets the file aside and keeps the rest.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from tutor_app.practice.items import MISTAKE, WORD, PracticeItem, Review

_TEXT_FIELDS = ("said", "better", "why", "type", "session_id", "created_at")


def checked(raw: Any, version: int) -> tuple[list[PracticeItem], dict[str, list[str]], int, list[str]]:
    """(items, plans, version, problems) of a parsed practice file; `version` is the one a
    file without its own gets. Problems name what was dropped (an empty list: sound)."""
    if not isinstance(raw, dict):
        return [], {}, version, [f"not a practice file: a JSON {type(raw).__name__}"]
    problems: list[str] = []
    raw_items = raw.get("items", [])
    if not isinstance(raw_items, list):
        problems.append("items")
        raw_items = []
    items = []
    bad_items = 0
    for row in raw_items:
        item = _item(row)
        if item is None:
            bad_items += 1
        else:
            items.append(item)
    if bad_items:
        problems.append(f"{bad_items} item{'s' if bad_items != 1 else ''}")
    raw_plans = raw.get("plans") or {}
    plans: dict[str, list[str]] = {}
    if not isinstance(raw_plans, dict):
        problems.append("plans")
    else:
        for session_id, ids in raw_plans.items():
            if isinstance(ids, list) and all(isinstance(i, str) for i in ids):
                plans[str(session_id)] = list(ids)
            else:
                problems.append(f"the plan of {str(session_id)[:40]}")
    found = raw.get("version", 1)
    if not isinstance(found, int) or isinstance(found, bool):
        problems.append("version")
        found = 1  # checked against the gates again: a wrong version is never trusted as new
    return items, plans, found, problems


def _item(row: Any) -> PracticeItem | None:
    """One item, or None when a field has the wrong type."""
    if not isinstance(row, dict):
        return None
    ident, kind = row.get("id"), row.get("kind", MISTAKE)
    if not (isinstance(ident, str) and ident and kind in (MISTAKE, WORD)):
        return None
    texts = {key: row.get(key, "") for key in _TEXT_FIELDS}
    if not all(isinstance(value, str) for value in texts.values()) or not texts["said"]:
        return None
    turn = row.get("turn", -1)
    card = row.get("card") or {}
    reviews = row.get("reviews", [])
    if (not isinstance(turn, int) or isinstance(turn, bool) or not isinstance(card, dict)
            or not isinstance(reviews, list) or not all(_review_ok(r) for r in reviews) or not _card_ok(card)):
        return None
    return PracticeItem(ident, str(kind), texts["said"], texts["better"], texts["why"], texts["type"],
                        texts["session_id"], turn, texts["created_at"], dict(card),
                        [Review.from_dict(r) for r in reviews])


def _review_ok(raw: Any) -> bool:
    return isinstance(raw, dict) and all(isinstance(raw.get(k, ""), str) for k in ("at", "session_id", "outcome",
                                                                                  "line"))


def _card_ok(card: dict[str, Any]) -> bool:
    """An FSRS card the schedule can read (or none yet)."""
    if not card:
        return True
    from tutor_app.practice import schedule

    try:
        from fsrs import Card

        Card.from_dict(card)  # type: ignore[arg-type]
        schedule.due_at(card)
        schedule.stability(card)
        if card.get("last_review"):  # a date the schedule reads
            datetime.fromisoformat(str(card["last_review"]))
    except (TypeError, ValueError, KeyError, AttributeError, OverflowError):
        return False
    return True
