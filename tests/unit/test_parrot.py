"""The parrot check (tutor/parrot.py) and the honest short answers (tutor/recast.py)."""
from __future__ import annotations

import pytest

from tutor_app.tutor.parrot import CANNED, ECHO, IDENTITY, REPEAT, ParrotCheck, learner_names
from tutor_app.tutor.recast import fallback_reply, recast, repair

MINJI = "Hello, my name is Minji. I am office worker in Seoul."
SCHOOL = "I am go to school yesterday with my friend."


@pytest.mark.parametrize("sentence, kind", [
    ("Hello, my name is Minji.", IDENTITY),  # the learner's name in the tutor's mouth
    ("I'm Minji!", IDENTITY),
    ("I'm a professional office worker in Seoul.", ECHO),  # the learner's facts as the tutor's own
    ("I am office worker in Seoul.", ECHO),
    ("I am go to school yesterday with my friend.", ECHO),
])
def test_the_learner_said_as_the_tutor_is_caught(sentence, kind):
    verdict = ParrotCheck([SCHOOL, MINJI]).check(sentence)
    assert verdict is not None and verdict.kind == kind


@pytest.mark.parametrize("sentence", [
    "Oh, you went to school yesterday with your friend?",  # a recast
    "What did you do there?",
    "Nice to meet you, Minji!",
    "Tell me about your friend at school.",
    "I love Seoul too. How long have you lived there?",
    'The correct sentence is: "I went to school yesterday with my friend."',
    "Okay, I will remember that your friend went to school.",
])
def test_a_tutor_reply_about_the_learner_passes(sentence):
    assert ParrotCheck([SCHOOL, MINJI]).check(sentence) is None


def test_a_learner_sentence_said_back_unchanged_is_an_echo_in_any_person():
    check = ParrotCheck(["There is many people in the subway every morning."])
    assert check.check("There is many people in the subway every morning!").kind == ECHO
    assert check.check("There are many people in the subway every morning.") is None  # a correction


def test_an_earlier_learner_line_counts_too():
    verdict = ParrotCheck(["What is my name?", MINJI]).check("My name is Minji, and I work in Seoul.")
    assert verdict is not None and verdict.kind == IDENTITY
    verdict = ParrotCheck(["What is my name?", MINJI]).check("I'm an office worker in Seoul.")
    assert verdict is not None and (verdict.kind, verdict.line) == (ECHO, 1)


def test_the_tutors_own_previous_reply_is_not_said_again():
    previous = "Hello there! I am happy to help you practise your English today. What would you like to talk about?"
    check = ParrotCheck(["I like tennis."], tutor=[previous])
    assert check.check("I am happy to help you practise your English today.").kind == REPEAT
    assert check.check("What about you?") is None  # short questions may come back
    assert check.check("Tennis is a great sport. How often do you play?") is None
    check.accept("That is so nice!")
    assert check.check("That is so nice!") is None  # short: allowed
    check.accept("How often do you play it with your friends?")
    assert check.check("How often do you play it with your friends?").kind == REPEAT


def test_a_chat_assistants_stock_line_is_not_a_tutor_reply():
    check = ParrotCheck(["I bought new phone last week."])
    for line in ("I'm sorry for your loss, but I don't have any information about the phone.",
                 "I'm sorry, I can't help you with that.", "I don\u2019t have the ability to speak in English.",
                 "The learner made a mistake in the sentence."):
        assert check.check(line).kind == CANNED
    assert check.check("Oh, you bought a new phone? Which one?") is None


def test_names_the_learner_gave():
    assert learner_names([MINJI, "Call me Jun.", "I'm Korean.", "I'm tired."]) == {"Minji", "Jun"}


def test_recast_fixes_only_what_the_rules_are_sure_of():
    assert recast(SCHOOL) == "Oh, you went to school yesterday with your friend?"
    assert recast("Last weekend I watch a movie with my husband.") == \
        "Oh, last weekend you watched a movie with your husband?"
    assert recast("My sister like coffee very much.") == "Oh, your sister likes coffee very much?"
    assert recast("She have two children.") == "Oh, she has two children?"
    # said back, "was" changes with "I" alone ("it were good" is the tutor's own error)
    assert recast("Yesterday I eat kimchi stew with my family, and it was good.") == \
        "Oh, yesterday you ate kimchi stew with your family, and it was good?"
    assert repair("Yesterday I was tired, so I went home early.", "Yesterday I was tired, so I go home early.") \
        == "Oh, yesterday you were tired, so you went home early?"
    for fine_or_unsure in ("I went to school yesterday.", "My sister likes coffee.", "I was born at 1995.",
                           "I have meeting in the Monday.", "I have been to Jeju Island last summer.", "He don't like spicy food.", "What is my name?"):
        assert recast(fine_or_unsure) is None


def test_fallback_is_a_recast_or_a_varied_follow_up():
    assert fallback_reply(SCHOOL, 1) == "Oh, you went to school yesterday with your friend? Can you tell me more?"
    plain = {fallback_reply("I like tennis.", turn) for turn in range(3)}
    assert len(plain) == 3 and all(line.endswith(("?", ".")) for line in plain)


def test_an_echo_that_fixes_the_learner_becomes_a_recast():
    assert repair("Yesterday, I ate kimchi stew with my family.", "Yesterday I eat kimchi stew with my family.") \
        == "Oh, yesterday, you ate kimchi stew with your family?"
    assert repair("I'm an office worker in Seoul.", MINJI) == "Oh, you're an office worker in Seoul?"
    # unchanged, or with words of the model's own added: not a fix
    assert repair("I'm go to school yesterday with my friend.", SCHOOL) is None
    assert repair("I'm a professional office worker in Seoul.", MINJI) is None


def test_a_first_clause_may_lead_only_when_no_run_of_it_is_copied():
    check = ParrotCheck(learner=["He was not an ill-disposed young man, unless to be rather cold hearted."],
                        tutor=["That is a great way to describe him."])
    assert check.check("He was not an ill-disposed young man,") is None  # a part: no copy as a sentence
    assert not check.may_lead("He was not an ill-disposed young man,")  # but it may become one
    assert not check.may_lead("That is a great way to put it,")  # the start of the last reply again
    assert check.may_lead("That sounds like a hard person to live with,")
