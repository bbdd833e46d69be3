"""The opening line of a spoken call (tutor/greeting.py): from the profile, by level, no model."""
from __future__ import annotations

from tutor_app.settings import TutorSettings
from tutor_app.tutor.greeting import compose, learner_name


def test_by_name_when_the_profile_knows_it():
    assert compose({"name": "Minji"}, TutorSettings()) == \
        "Hi Minji! Good to hear you. What would you like to talk about today?"
    assert compose({"name": "Minji Kim"}, TutorSettings(), returning=True) == \
        "Hi Minji! Good to hear from you again. What would you like to talk about today?"


def test_generic_without_a_name_and_by_level():
    assert compose({"name": None}, TutorSettings()) == \
        "Hi! I'm your English tutor. What would you like to talk about today?"
    assert compose({}, TutorSettings(level="beginner")).endswith("What do you want to talk about today?")
    assert compose({}, TutorSettings(level="advanced"), returning=True) == \
        "Hi! Great to hear from you again. What's on your mind today?"


def test_a_value_that_is_no_name_is_not_read_out():
    assert learner_name({"name": "42"}) == ""
    assert learner_name({"name": "Jean-Luc"}) == "Jean-Luc"
    assert learner_name({"name": "x" * 40}) == ""
    assert compose({"name": "123"}, TutorSettings()).startswith("Hi! I'm your English tutor.")


def test_only_one_short_question_of_the_model_is_said():
    from tutor_app.tutor.greeting_followup import usable

    assert usable(" How did the job interview go? ") == "How did the job interview go?"
    assert usable("NONE") == ""
    assert usable("Hello! How are you today?") == ""  # a second greeting
    assert usable("Hi, how was the trip?") == ""
    assert usable("You had an interview. How did it go?") == ""  # more than the question
    assert usable("Tell me about your interview.") == ""  # no question
