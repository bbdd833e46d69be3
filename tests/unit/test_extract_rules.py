"""Rule-based call-end extraction (used when the model's JSON fails): the learner's own
plain statements only; questions, the tutor's lines and vague phrases give nothing."""
from __future__ import annotations

from tutor_app.core.types import ChatMessage
from tutor_app.tutor.extract_rules import extract_by_rules


def learner(*lines: str) -> list[ChatMessage]:
    out = []
    for line in lines:
        out += [ChatMessage("user", line), ChatMessage("assistant", "I see. My name is Tutor and I love grammar.")]
    return out


def test_plain_statements_fill_the_profile():
    facts = extract_by_rules(learner(
        "Hi, I'm Minji, nice to meet you.",
        "I'm a nurse at a small hospital in Daejeon.",
        "I really love hiking and I enjoy baking bread on weekends.",
        "My goal is to pass the OET exam. I want to work in Australia someday.",
        "Please correct me at the end.",
    ))
    assert facts.name == "Minji"
    assert facts.occupation == "nurse"
    assert facts.interests == ["hiking", "baking bread"]
    assert facts.learning_goals == ["pass the OET exam", "work in Australia someday"]
    assert facts.preferences == ["correct me at the end"]


def test_the_latest_single_value_wins():
    facts = extract_by_rules(learner("My name is Joon.", "I'm a teacher.", "Actually I work as a data analyst now."))
    assert (facts.name, facts.occupation) == ("Joon", "data analyst")


def test_questions_tutor_lines_and_vague_phrases_give_nothing():
    facts = extract_by_rules(learner(
        "Do you like coffee?", "What's my name?", "I like it.", "I'm Korean and I'm so tired today.",
        "Call me later maybe.", "I'm hungry.",
    ))
    assert facts.is_empty(), facts.to_dict()  # the tutor's "My name is Tutor" is not the learner's


def test_korean_or_empty_input_is_harmless():
    assert extract_by_rules([]).is_empty()
    assert extract_by_rules(learner("저는 민지예요. 간호사예요.", "   ")).is_empty()
