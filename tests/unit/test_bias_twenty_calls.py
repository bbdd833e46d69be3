"""The speech bias list stays short and relevant as a profile grows over 20 calls: the
learner's name and job first, then the names of the latest calls, hard-bounded in terms and
characters, each once, no common words, nothing from weeks-old calls pushing out this
week's names."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import datetime

from tutor_app.bench.names import SENTENCES
from tutor_app.bench.names_profile import CALLS, fill_store, spoken_names
from tutor_app.speech.bias import COMMON_NOUNS, MAX_CHARS, MAX_TERMS, build_bias


@dataclass
class Mem:
    id: str
    text: str
    category: str
    importance: float
    meta: dict
    created_at: datetime
    accessed_at: datetime | None = None
    superseded_by: str = ""

    @property
    def current(self) -> bool:
        return not self.superseded_by


@dataclass
class Call:
    session_id: str
    started_at: datetime
    report: dict


@dataclass
class Store:
    """The slice of a ProfileMemory that fill_store and build_bias use."""

    profile: str = "minji"
    memories: list[Mem] = field(default_factory=list)
    records: list[Call] = field(default_factory=list)
    ids: itertools.count = field(default_factory=itertools.count)

    def add(self, text, *, category, importance, meta, source, session_id, created_at):
        mem = Mem(str(next(self.ids)), text, category, importance, meta, created_at)
        self.memories.append(mem)
        return mem

    def supersede(self, old_id, new_id):
        next(m for m in self.memories if m.id == old_id).superseded_by = new_id

    def record_call(self, session_id, started_at, ended_at=None, extracted=False, report=None):
        self.records.append(Call(session_id, started_at, report or {}))

    def calls(self):
        return sorted(self.records, key=lambda c: c.started_at)

    def list(self, include_superseded=True):
        return [m for m in self.memories if include_superseded or m.current]


def twenty_call_profile() -> Store:
    store = Store()
    fill_store(store)
    return store


def test_twenty_calls_hold_far_more_names_than_the_list_takes():
    assert len(CALLS) == 20 and len(spoken_names()) >= 2 * MAX_TERMS


def test_the_list_is_bounded_and_recent_first():
    bias = build_bias(twenty_call_profile())
    assert 0 < len(bias.terms) <= MAX_TERMS and len(bias.text) <= MAX_CHARS
    assert bias.terms[:2] == ("Minji", "Naver")  # the name, then the current job's company
    assert len({t.lower() for t in bias.terms}) == len(bias.terms)  # each once
    assert not {t.lower() for t in bias.terms} & COMMON_NOUNS
    assert not {"4921", "PIN", "Coupang"} & set(bias.terms)  # a secret; the superseded job
    # The last calls' names are in, newest first; the first calls' names (weeks old) are not.
    assert bias.terms[2:8] == ("Kakao", "Seojun", "Ilsan", "Mapo", "Bukhansan", "Minho"), bias.terms
    assert set(bias.terms) <= spoken_names() and set(bias.terms) < {n for _s, ns in SENTENCES for n in ns} | {
        "Seojun", "Wonho", "Baek", "Mangwon", "Toss"}
    assert not {"Yerin", "Gwangju", "Gyeongju", "Suwon", "Taeyang", "Sungmin", "Hongik"} & set(bias.terms)


def test_a_name_recalled_lately_comes_back_into_the_list():
    store = twenty_call_profile()
    assert "Yerin" not in build_bias(store).terms
    old = next(m for m in store.memories if "Yerin" in m.text)
    old.accessed_at = max(m.created_at for m in store.memories)  # recall touched it in the last call
    assert "Yerin" in build_bias(store).terms
