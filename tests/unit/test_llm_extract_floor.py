"""Call-end extraction never comes back silently empty: the rule floor fills what the
model's answer leaves empty, a small local model's inventions are dropped, and the
schema passed to the model bounds its answer. The model here is a recorded answer (the
real 135M model runs in tests/integration/test_llm_llama.py)."""
from __future__ import annotations

import pytest

from tutor_app.core.types import ChatMessage
from tutor_app.tutor.extract import (
    EXTRACTION_PROMPT,
    EXTRACTION_SCHEMA,
    LOCAL_EXTRACTION_PROMPT,
    ExtractedFacts,
    extract_facts,
    ground,
    merge_floor,
)

EMPTY = {"name": "", "occupation": "", "interests": [], "learning_goals": [], "preferences": [],
         "mentioned_facts": []}


class Answer:
    """A chat model that gives one fixed JSON answer and records what it was asked."""

    def __init__(self, answer, name="llama.cpp:SmolLM2-135M-Instruct.Q4_1"):
        self.answer, self.name, self.asked = answer, name, []

    def complete_json(self, system, messages, schema=None):
        self.asked.append((system, messages, schema))
        return self.answer


def call(*learner: str) -> list[ChatMessage]:
    out = []
    for line in learner:
        out += [ChatMessage("user", line), ChatMessage("assistant", "Do you like swimming? Tell me more.")]
    return out


MINJI = call("Hi, my name is Minji.", "I'm a nurse at a big hospital.", "I love hiking with my friends.",
             "I want to pass the IELTS exam next year.")


def test_an_empty_model_answer_is_filled_by_the_rules():
    model = Answer(dict(EMPTY))
    result = extract_facts(model, MINJI)
    assert result.source == "rules" and result.model_facts.is_empty()
    assert result.facts.name == "Minji" and result.facts.occupation == "nurse"
    assert result.facts.interests == ["hiking"] and result.facts.learning_goals == ["pass the IELTS exam next year"]
    system, asked, schema = model.asked[0]
    assert schema is EXTRACTION_SCHEMA  # the local backend decodes under this schema
    assert system == LOCAL_EXTRACTION_PROMPT  # a small model gets the short form ...
    assert [m.role for m in asked] == ["user"] and "Do you like swimming" not in asked[0].content  # ... and only
    assert "Hi, my name is Minji. I'm a nurse" in asked[0].content  # the learner's own sentences


def test_a_partial_model_answer_is_completed_and_kept():
    model = Answer(dict(EMPTY, interests=["hiking with friends", "hiking in the mountains"], learning_goals=["IELTS"]))
    result = extract_facts(model, MINJI)
    assert result.source == "model+rules"
    # "mountains" was never said: that item is an invention; "hiking" from the rules is the same item
    assert result.facts.interests == ["hiking with friends"]
    # The same goal, said more precisely by the learner: replaced, not doubled.
    assert result.facts.learning_goals == ["pass the IELTS exam next year"]
    assert (result.facts.name, result.facts.occupation) == ("Minji", "nurse")


def test_a_local_models_inventions_and_copies_are_dropped():
    model = Answer(dict(EMPTY, name="Emily", occupation="astronaut", interests=["guitar", "swimming", "hiking"],
                        learning_goals=["Do you like swimming?", "pass the exam"],
                        mentioned_facts=["Do you like swimming? Tell me more"]))
    result = extract_facts(model, MINJI)
    assert result.facts.name == "Minji"  # never "Emily": the learner did not say it
    assert result.facts.occupation == "nurse"
    assert result.facts.interests == ["hiking"]  # guitar invented, swimming only the tutor's word
    assert result.facts.learning_goals == ["pass the IELTS exam next year"]  # the more precise same goal
    assert result.facts.mentioned_facts == []
    assert result.dropped >= 5


def test_claude_is_trusted_and_the_rules_only_fill_gaps():
    model = Answer(dict(EMPTY, name="Minji Kim", interests=["mountain walks"]), name="anthropic:claude-haiku-4-5")
    result = extract_facts(model, MINJI)
    assert model.asked[0][0].startswith(EXTRACTION_PROMPT)  # the whole call, with the tutor's lines
    assert result.facts.name == "Minji Kim"  # the model's value stands
    assert result.facts.occupation == "nurse"  # empty in the answer: from the rules
    assert result.facts.interests == ["mountain walks", "hiking"]


def test_a_fallback_answered_locally_is_checked():
    model = Answer(dict(EMPTY, name="Emily"), name="anthropic:claude-haiku-4-5")
    model.last_backend = "llama.cpp:SmolLM2-135M-Instruct.Q4_1"  # the cloud was down for this call
    assert extract_facts(model, MINJI).facts.name == "Minji"


def test_other_peoples_names_and_non_jobs_are_not_the_learners():
    lines = call("I went to the market with my friend Sora.", "My boss Daniel asked me to stay late.",
                 "I'm so tired, Minsu and I worked all day.", "I love gardening.")
    result = extract_facts(Answer(dict(EMPTY, name="Sora", occupation="Gardening")), lines)
    assert result.facts.name == "" and result.facts.occupation == ""
    for name in ("Daniel", "Minsu"):
        assert extract_facts(Answer(dict(EMPTY, name=name)), lines).facts.name == ""
    intro = call("Um, hello. The name's Jiwoo.", "I teach kids, I'm an elementary school teacher.", "Ok.", "Bye.")
    found = extract_facts(Answer(dict(EMPTY, name="Jiwoo", occupation="Elementary School Teacher")), intro).facts
    assert (found.name, found.occupation.lower()) == ("Jiwoo", "elementary school teacher")


def test_nothing_said_stays_empty():
    result = extract_facts(Answer(dict(EMPTY)), call("Hello.", "It is raining today.", "Yes.", "Bye."))
    assert result.facts.is_empty()


def test_a_broken_answer_is_an_error_for_the_caller():
    with pytest.raises(ValueError):
        extract_facts(Answer(["not", "an", "object"]), MINJI)


def test_ground_and_merge_directly():
    facts, dropped = ground(ExtractedFacts(name="Joon", occupation="software developer",
                                           interests=["cooking", "cooking Korean food", "chess"]),
                            "I'm Joon. I develop software. I cook Korean food on weekends.")
    assert (facts.name, facts.occupation, facts.interests, dropped) == ("Joon", "software developer",
                                                                        ["cooking"], 2)
    merged, filled = merge_floor(ExtractedFacts(interests=["cooking"]),
                                 ExtractedFacts(name="Joon", interests=["cooking Korean food", "yoga"]))
    assert merged.name == "Joon" and merged.interests == ["cooking Korean food", "yoga"]
    assert filled == ["name", "interests"]


def test_the_schema_bounds_every_field():
    props = EXTRACTION_SCHEMA["properties"]
    assert set(EXTRACTION_SCHEMA["required"]) == set(props) == set(EMPTY)
    assert all(p.get("maxLength") for k, p in props.items() if p["type"] == "string")
    assert all(p["maxItems"] <= 5 and "pattern" in p["items"] for p in props.values() if p["type"] == "array")


@pytest.mark.parametrize("line, field, value", [
    ("Everyone calls me Daniel.", "name", "Daniel"),
    ("I'm Joon, nice to meet you.", "name", "Joon"),
    ("Good morning, I'm Hana.", "name", "Hana"),
    ("Hi, I'm Minji and I work as a nurse.", "name", "Minji"),
    ("This is Kevin speaking.", "name", "Kevin"),
    ("My job is sales manager at a car company.", "occupation", "sales manager"),
    ("I'm really into photography.", "interests", ["photography"]),
    ("Gardening is my favourite hobby.", "interests", ["Gardening"]),
    ("I'm a big fan of jazz music.", "interests", ["jazz music"]),
    ("My dream is to open my own restaurant.", "learning_goals", ["open my own restaurant"]),
    ("I go by Sam at work.", "name", "Sam"),
    ("The name's Bora.", "name", "Bora"),
    ("Nice to meet you, I'm Minho.", "name", "Minho"),
    ("I'm working as a data scientist for a hospital.", "occupation", "data scientist"),
    ("I'm passionate about cycling.", "interests", ["cycling"]),
    ("I like to go camping with my kids.", "interests", ["camping"]),
    ("Baking bread is what I love.", "interests", ["Baking bread"]),
    ("I'd love to read novels in English.", "learning_goals", ["read novels in English"]),
    ("I'm hoping to get a job in Sydney.", "learning_goals", ["get a job in Sydney"]),
    ("I'm studying for the TOEFL.", "learning_goals", ["the TOEFL"]),
])
def test_the_rules_read_varied_phrasings(line, field, value):
    from tutor_app.tutor.extract_rules import extract_by_rules

    assert getattr(extract_by_rules([ChatMessage("user", line)]), field) == value


@pytest.mark.parametrize("line", ["I'm Korean.", "I'm Fine, thanks.", "I'm Sorry!", "Call me maybe?",
                                  "Is jazz my favourite hobby?", "I want to eat pizza tonight.",
                                  "Seoul here is cold.", "I'd like to go home now."])
def test_the_rules_do_not_take_these_for_facts(line):
    from tutor_app.tutor.extract_rules import extract_by_rules

    assert extract_by_rules([ChatMessage("user", line)]).is_empty()
