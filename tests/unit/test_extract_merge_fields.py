"""Model output and the rule floor are merged field by field: a model's empty or misfiled
field never hides what the rules found in the learner's own (Korean-L1) English."""
from __future__ import annotations

from tests.unit.test_llm_extract_floor import EMPTY, Answer, call
from tutor_app.tutor.extract import extract_facts

CALL = call("My name is Kim Minji.", "I am office worker. I work in IT company.",
            "My hobby is play tennis.", "I want to be able to talk with clients from America.")


def test_a_misfiled_model_answer_does_not_hide_the_rules():
    # A small model puts the job under interests and leaves the other fields empty.
    result = extract_facts(Answer(dict(EMPTY, interests=["office worker", "tennis"])), CALL)
    facts = result.facts
    assert (facts.name, facts.occupation) == ("Kim Minji", "office worker")
    assert facts.interests == ["playing tennis"]  # the job is not an interest; tennis in the learner's words
    assert facts.learning_goals == ["talk with clients from America"]
    assert facts.mentioned_facts == ["works in IT company"]


def test_a_model_title_the_rules_know_is_kept_from_a_local_model():
    result = extract_facts(Answer(dict(EMPTY, occupation="company employee")),
                           call("I am company employee at Hyundai.", "I like tennis.", "Bye."))
    assert result.model_facts.occupation == "company employee"  # grounded: a title the learner said
    assert result.facts.occupation == "company employee"


def test_claudes_fields_stand_and_the_rules_fill_only_what_it_left_empty():
    model = Answer(dict(EMPTY, occupation="IT office worker", interests=["tennis"]),
                   name="anthropic:claude-haiku-4-5")
    facts = extract_facts(model, CALL).facts
    assert facts.occupation == "IT office worker"  # the model's value stands
    assert facts.name == "Kim Minji" and facts.learning_goals == ["talk with clients from America"]
    assert facts.interests == ["playing tennis"]  # the same item in the learner's more precise words
