"""Merging call-end extraction into memory (seed 000 rules, made lossless).

List fields are unioned without duplicates, near-duplicates included ("travel" /
"traveling", "AI" / "artificial intelligence"); a single-value field takes the newer
value and the older one stays as history (`superseded_by`), never silently lost.
Input is whatever the extraction model returned: wrong types are tolerated.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from tutor_app.errors import TutorError
from tutor_app.memory.profile.fields import BY_CATEGORY, BY_KEY, FIELDS, ProfileField
from tutor_app.memory.profile.view import value_of
from tutor_app.memory.storage.models import Memory
from tutor_app.memory.storage.schema import MAX_TEXT_BYTES

if TYPE_CHECKING:
    from tutor_app.memory.storage.ports import MergeStore

log = logging.getLogger(__name__)

NEAR_DUPLICATE = 0.78  # MiniLM: travel/traveling 0.94, AI/artificial intelligence 0.79, coffee/tea 0.62
_SPLIT = re.compile(r"\s*[,;\n]\s*|\s+and\s+")


@dataclass
class MergeResult:
    added: list[Memory] = field(default_factory=list)
    superseded: list[tuple[str, str]] = field(default_factory=list)  # (old id, new id)
    unchanged: list[str] = field(default_factory=list)  # values already known
    ignored: list[str] = field(default_factory=list)  # fields/values that could not be used

    def to_dict(self) -> dict[str, Any]:
        return {"added": [m.to_dict() for m in self.added],
                "superseded": [{"old": o, "new": n} for o, n in self.superseded],
                "unchanged": self.unchanged, "ignored": self.ignored}


def _values(raw: Any, single: bool) -> list[str]:
    """Clean strings from whatever the model produced (str, list, null, numbers, nesting)."""
    out: list[str] = []

    def walk(v: Any, top: bool = False) -> None:
        if v is None or isinstance(v, bool):
            return
        if isinstance(v, (int, float)):
            out.append(str(v))
        elif isinstance(v, str):
            # A list field given as one string ("AI, travel"): split it. Items of a real
            # list stay whole ("my sister and I went to Jeju").
            parts = _SPLIT.split(v) if top and not single else [v]
            out.extend(_unwrap(p) for p in parts)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        elif isinstance(v, dict):  # {"value": ...} shapes some models emit
            for key in ("value", "name", "text"):
                if key in v:
                    walk(v[key])
                    break
    walk(raw, top=True)
    good = []
    for s in out:
        if s and s.lower() not in ("none", "null", "n/a", "unknown", "") and len(s.encode()) < MAX_TEXT_BYTES - 64:
            good.append(s)
    return good[:1] if single else good


def _unwrap(text: str) -> str:
    """Trim spaces and a final period; drop quotes only when they wrap the whole value,
    so 'Kim "MJ"' keeps its own quotes."""
    t = text.strip().rstrip(".").strip()
    while len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'":
        t = t[1:-1].strip()
    return t


def _norm(s: str) -> str:
    from tutor_app.memory.retrieval.lexical import stem

    return " ".join(stem(w) for w in re.findall(r"\w+", s.lower()))


def merge_extracted(store: "MergeStore", extracted: Any, session_id: str = "") -> MergeResult:
    """Merge one call's extraction into the profile's memories."""
    import numpy as np

    result = MergeResult()
    if not isinstance(extracted, dict):
        result.ignored.append("extraction is not a JSON object")
        return result
    current = [m for m in store.list(include_superseded=False) if m.category in BY_CATEGORY]
    for key in extracted:
        if key not in BY_KEY:
            result.ignored.append(str(key))

    for spec in (f for f in FIELDS if f.single):
        fld, cat = spec.key, spec.category
        vals = _values(extracted.get(fld), single=True)
        if not vals:
            continue
        value = vals[0]
        existing = [m for m in current if m.category == cat]
        existing.sort(key=lambda m: cast(datetime, m.created_at))  # stored memories always have one
        latest = existing[-1] if existing else None
        if latest is not None and _norm(value_of(latest)) == _norm(value):
            result.unchanged.append(f"{fld}: {value}")
            continue
        new = _add(store, spec, value, session_id, result)
        if new is not None:
            for old in existing:  # every older current value becomes history of the new one
                store.supersede(old.id, new.id)
                result.superseded.append((old.id, new.id))

    for spec in (f for f in FIELDS if not f.single):
        fld, cat = spec.key, spec.category
        vals = _values(extracted.get(fld), single=False)
        if not vals:
            continue
        known = [value_of(m) for m in current if m.category == cat]
        known_vecs = store.embedder.embed(known) if known else None
        new_vecs = store.embedder.embed(vals)
        accepted: list[int] = []
        for i, value in enumerate(vals):
            n = _norm(value)
            dup = any(_norm(k) == n for k in known) or any(_norm(vals[j]) == n for j in accepted)
            if not dup and known_vecs is not None and len(known_vecs):
                dup = float(np.max(known_vecs @ new_vecs[i])) >= NEAR_DUPLICATE
            if not dup and accepted:
                dup = float(np.max(new_vecs[accepted] @ new_vecs[i])) >= NEAR_DUPLICATE
            if dup:
                result.unchanged.append(f"{fld}: {value}")
                continue
            accepted.append(i)
            _add(store, spec, value, session_id, result)
    return result


def _add(store: "MergeStore", spec: ProfileField, value: str, session_id: str, result: MergeResult) -> Memory | None:
    try:
        mem = store.add(spec.template.format(value), category=spec.category, memory_type="semantic",
                        importance=spec.importance, source="extraction", session_id=session_id,
                        meta={"field": spec.key, "value": value})
    except TutorError as exc:
        result.ignored.append(f"{spec.key}: {exc}")
        return None
    result.added.append(mem)
    return mem
