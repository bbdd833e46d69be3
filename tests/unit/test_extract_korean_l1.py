"""The rule floor understands how Korean learners say things about themselves (dropped
articles, "I teach math", "My hobby is play guitar", "I like to watching movies") and
stores nothing for questions, negations, hypotheticals or other people's facts. The
statements and their expected fields are a data file (tests/data/korean_l1_statements.tsv)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tutor_app.core.types import ChatMessage
from tutor_app.tutor.extract_rules import extract_by_rules

DATA = Path(__file__).resolve().parents[1] / "data" / "korean_l1_statements.tsv"


def _rows() -> list[tuple[str, str, str]]:
    rows = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            sentence, field, value = line.split("\t")
            rows.append((sentence, field, value))
    return rows


ROWS = _rows()
POSITIVE = [r for r in ROWS if r[1] != "-"]
NEGATIVE = [r[0] for r in ROWS if r[1] == "-"]


def said(*lines: str) -> list[ChatMessage]:
    out = []
    for line in lines:
        out += [ChatMessage("user", line), ChatMessage("assistant", "Oh really? My name is Tutor, I'm a teacher.")]
    return out


def test_the_list_is_big_enough():
    assert len(POSITIVE) >= 60 and len(NEGATIVE) >= 20
    assert {f for _s, f, _v in POSITIVE} == {"name", "occupation", "interests", "learning_goals", "preferences",
                                              "mentioned_facts"}


@pytest.mark.parametrize("sentence,field,value", POSITIVE, ids=[r[0][:40] for r in POSITIVE])
def test_each_statement_fills_its_field(sentence, field, value):
    got = extract_by_rules(said(sentence)).to_dict()[field]
    assert (value in got) if isinstance(got, list) else got == value, (sentence, got)


@pytest.mark.parametrize("sentence", NEGATIVE, ids=[s[:40] for s in NEGATIVE])
def test_nothing_is_invented(sentence):
    facts = extract_by_rules(said(sentence))
    assert facts.is_empty(), (sentence, facts.to_dict())


def test_a_whole_call_in_learner_english():
    facts = extract_by_rules(said(
        "Hello, my name is Kim Minji.", "I am office worker. I work in IT company in Pangyo.",
        "My hobby is play tennis and I like to watching dramas.",
        "I'd like to get better at giving presentations, because my boss is American.",
        "My sister is a doctor but I am not doctor.", "If I were rich, I would travel every month.",
        "Do you like tennis?", "Please correct my mistakes."))
    assert facts.name == "Kim Minji" and facts.occupation == "office worker"
    assert facts.interests == ["playing tennis", "watching dramas"]
    assert facts.learning_goals == ["get better at giving presentations"]
    assert facts.preferences == ["correct my mistakes"]
    assert facts.mentioned_facts == ["works in IT company"]
