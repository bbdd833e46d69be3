"""THE learner profile schema (seed 000 fields): the one place that says which fields
exist, which hold one value (a newer value replaces the older one, kept as history) and
which a list, the memory category each is stored under, and how each is shown.

Extraction (tutor/extract_rules.py), merge, recall's newer-wins rule and the memory
panel (ui/memory_source.py) all read it from here.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProfileField:
    key: str  # the extraction / profile-view key: "name", "learning_goals"
    category: str  # the memory category merge stores it under: "name", "goal"
    title: str  # the heading in the memory panel
    single: bool  # one current value (newer wins) rather than a list
    template: str  # the memory text merge writes for a value
    importance: float  # of the memory merge writes
    prompt_label: str  # the label in the prompt's learner profile block
    shown_categories: tuple[str, ...] = ()  # categories the panel groups under `title`; () = (category,)

    @property
    def panel_categories(self) -> tuple[str, ...]:
        return self.shown_categories or (self.category,)


FIELDS: tuple[ProfileField, ...] = (
    ProfileField("name", "name", "Name", True, "Name: {}", 0.9, "Name"),
    ProfileField("occupation", "occupation", "Occupation", True, "Occupation: {}", 0.8, "Occupation",
                 ("occupation", "identity")),
    ProfileField("interests", "interest", "Interests", False, "Interest: {}", 0.7, "Interests"),
    ProfileField("learning_goals", "goal", "Goals", False, "Learning goal: {}", 0.8, "Learning goals"),
    ProfileField("preferences", "preference", "Preferences", False, "Preference: {}", 0.7, "Preferences"),
    ProfileField("mentioned_facts", "fact", "Facts", False, "{}", 0.6, "Other facts",
                 ("fact", "project", "schedule", "contact", "constraint")),
)

BY_KEY: dict[str, ProfileField] = {f.key: f for f in FIELDS}
BY_CATEGORY: dict[str, ProfileField] = {f.category: f for f in FIELDS}
SINGLE_KEYS: tuple[str, ...] = tuple(f.key for f in FIELDS if f.single)
LIST_KEYS: tuple[str, ...] = tuple(f.key for f in FIELDS if not f.single)
SINGLE_CATEGORIES: frozenset[str] = frozenset(f.category for f in FIELDS if f.single)
