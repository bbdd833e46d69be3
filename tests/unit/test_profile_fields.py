"""The one profile field schema (memory/profile/fields.py) drives extraction, merge,
the profile view, recall's newer-wins rule and the memory panel alike."""
from __future__ import annotations

from dataclasses import fields as dc_fields
from datetime import datetime, timedelta, timezone

from tutor_app.memory.profile.fields import FIELDS, SINGLE_CATEGORIES
from tutor_app.memory.profile.view import profile_view
from tutor_app.memory.storage.models import Memory
from tutor_app.tutor.extract_rules import LIST_FIELDS, SINGLE_FIELDS, ExtractedFacts
from tutor_app.ui.memory_source import profile_entries

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _mem(i: int, text: str, category: str, superseded_by: str = "", value: str = "") -> Memory:
    return Memory(id=f"m{i}", profile="p", text=text, category=category, superseded_by=superseded_by,
                  meta={"value": value} if value else {}, created_at=T0 + timedelta(minutes=i))


def test_one_schema_for_extraction_and_recall():
    assert SINGLE_FIELDS == ("name", "occupation")
    assert LIST_FIELDS == ("interests", "learning_goals", "preferences", "mentioned_facts")
    assert [f.name for f in dc_fields(ExtractedFacts)] == [f.key for f in FIELDS]
    assert SINGLE_CATEGORIES == {"name", "occupation"}


def test_view_and_panel_agree_on_single_values():
    rows = [_mem(1, "Occupation: student", "occupation", superseded_by="m2", value="student"),
            _mem(2, "Occupation: nurse", "occupation", value="nurse"),
            _mem(3, "Interest: hiking", "interest", value="hiking"),
            _mem(4, "I have a cat", "")]
    view = profile_view(rows)
    assert list(view) == [f.key for f in FIELDS] + ["history", "other"]
    assert view["occupation"] == "nurse" and view["history"] == {"name": [], "occupation": ["student"]}
    assert view["interests"] == ["hiking"] and view["other"] == ["I have a cat"]
    entries = profile_entries(rows)
    assert [e.field for e in entries] == ["Name", "Occupation", "Interests", "Goals", "Preferences", "Facts"]
    occupation = entries[1]
    assert occupation.values == ["Occupation: nurse"] and occupation.history == ["Occupation: student"]
