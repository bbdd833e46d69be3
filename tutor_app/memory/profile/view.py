"""The learner profile as the memories show it (seed 000 fields, profile/fields.py):
the newest value of a single-value field wins, older ones are its history."""
from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from tutor_app.memory.profile.fields import BY_CATEGORY, FIELDS, SINGLE_KEYS
from tutor_app.memory.storage.models import Memory


def value_of(m: Memory) -> str:
    """The field value a merged memory holds (its text for other memories)."""
    v = m.meta.get("value") if isinstance(m.meta, dict) else None
    return v if isinstance(v, str) and v else m.text


def profile_view(memories: list[Memory]) -> dict[str, Any]:
    """Memories grouped as the learner profile (seed 000 fields), newest value wins;
    older single values are listed under `history`, other memories under `other`."""
    view: dict[str, Any] = {f.key: None if f.single else [] for f in FIELDS}
    history: dict[str, list[str]] = {key: [] for key in SINGLE_KEYS}
    other: list[str] = []
    view["history"], view["other"] = history, other
    ordered = sorted(memories, key=lambda m: cast(datetime, m.created_at))  # stored: always set
    for m in ordered:
        fld = BY_CATEGORY.get(m.category)
        value = value_of(m)
        if fld is None:
            if m.current:
                other.append(m.text)
        elif fld.single:
            if m.current:
                if view[fld.key] is not None:
                    history[fld.key].append(view[fld.key])
                view[fld.key] = value
            else:
                history[fld.key].append(value)
        elif m.current and value not in view[fld.key]:
            view[fld.key].append(value)
    return view
