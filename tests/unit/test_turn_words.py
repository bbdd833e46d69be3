"""The words-so-far rule: can an early transcript be the end of a turn?"""
from __future__ import annotations

import pytest

from tutor_app.speech.turn_words import FINISHED, SENTENCE, UNCLEAR, UNFINISHED, judge_words

# Fragments a learner stops on while looking for a word, as Whisper writes them: often
# with a full stop (which must not fool the rule), sometimes with "...".
FRAGMENTS = [
    "Next month I am planning to",
    "Next month I am planning to.",
    "Next month I am planning 2.",  # Whisper's "to" before a pause, as a number
    "I'm going 2.",
    "I'm waiting 4.",
    "Next month I am planning too.",
    "Next month I am planning",
    "I want",
    "I want to talk about",
    "Yesterday I went to the.",
    "I bought a",
    "I think the most important thing is",
    "My favourite food is.",
    "The reason I study English is",
    "Last weekend my friends and I.",
    "I like it but",
    "I was late because.",
    "I went there with",
    "It is one of",
    "I usually go to work by.",
    "When I was a child I lived in.",
    "In my free time I like",
    "She told me that.",
    "I think that",
    "My company is going to",
    "I'm",
    "It's",
    "Um.",
    "I went to, uh",
    "I went to the market, um",
    "My brother and",
    "I met my",
    "He hoped there would be stew for",
    "I live in Seoul and",
    "So I was thinking,",
    "I am not sure, but I think",
    "I'm really interested in pla-",
    "I went to the...",
    "Well...",
    # A sentence opened by a wh-word, with no question mark, waits for its verb.
    "Where I wanna child I live in",  # Whisper's "When I was a child I lived in" before a pause
    "What I mean is",
    "What I was thinking about.",
]

COMPLETE_SENTENCES = [
    "I live in Seoul.",
    "My name is Minji.",
    "I went hiking with my friends last weekend.",
    "I work as a nurse at a big hospital.",
    "I had kimchi stew for lunch.",
    "I am really looking forward to my trip.",
]

CLEARLY_FINISHED = [
    "Yes.",
    "Seoul.",
    "No.",
    "Pizza!",
    "Yes, I did.",
    "No, I don't.",
    "Yes, I am.",
    "Yes it is.",
    "I can't.",
    "Of course I do.",
    "Of course.",
    "Thank you.",
    "I think so.",
    "Hmm, I think so.",
    "I don't know.",
    "Me too.",
    "Yeah, definitely.",
    "Where are you from?",
    "What do you usually do on weekends?",
    "Could you speak a little more slowly?",
    "What is it like?",
    "Do you like it?",
]


@pytest.mark.parametrize("text", FRAGMENTS)
def test_fragments_are_unfinished_whatever_the_punctuation(text):
    verdict = judge_words(text)
    assert verdict.state == UNFINISHED, (text, verdict)
    assert verdict.unfinished and not verdict.finished
    assert verdict.reason


@pytest.mark.parametrize("text", COMPLETE_SENTENCES)
def test_complete_sentences_are_not_vetoed(text):
    verdict = judge_words(text)
    assert verdict.state == SENTENCE, (text, verdict)


@pytest.mark.parametrize("text", CLEARLY_FINISHED)
def test_short_answers_and_questions_are_clearly_finished(text):
    verdict = judge_words(text)
    assert verdict.state == FINISHED, (text, verdict)


@pytest.mark.parametrize("text", [
    "I know what it is.",       # wh-clause: may end on "is"
    "Where are you from?",      # a question: the wh-word opens it
    "What are you looking at?",
    "That's what I was thinking about.",
    "Who did you go with?",     # stranded preposition in a question
    "So do I.",                 # inverted subject
    "He is taller than I.",
    "And so on.",
    "What do you want?",
    "Take as much as you want.",
    "It was a friend of his.",
    "2.",                       # an answer with a number
    "We have 3 cats.",
    "The meeting is at 4.",
    "I'm going too.",
])
def test_endings_that_look_like_fragments_but_are_not(text):
    assert judge_words(text).state != UNFINISHED, text


@pytest.mark.parametrize("text", ["I gave up.", "I like that.", "It's really", "I don't think I can, so",
                                  "I am", "I will."])  # "I am." answers, or stops to think
def test_ambiguous_endings_leave_it_to_the_audio(text):
    assert judge_words(text).state in (UNCLEAR, UNFINISHED)
    assert judge_words(text).state != FINISHED


def test_ambiguous_last_word_is_unclear_not_unfinished():
    assert judge_words("I gave up.").state == UNCLEAR
    assert judge_words("I like that.").state == UNCLEAR


def test_empty_or_punctuation_only_transcripts_are_unclear():
    for text in ("", "   ", "...?", "."):
        verdict = judge_words(text)
        assert verdict.state in (UNCLEAR, UNFINISHED)
        assert verdict.state != FINISHED
    assert judge_words("").state == UNCLEAR


def test_curly_apostrophes_and_ellipsis_characters():
    assert judge_words("I\u2019m").state == UNFINISHED
    assert judge_words("I went to the market\u2026").state == UNFINISHED
    assert judge_words("No, I don\u2019t.").state == FINISHED


def test_only_the_last_sentence_counts():
    assert judge_words("I live in Seoul. And my").state == UNFINISHED
    assert judge_words("Um, let me think. Yes, I did.").state == FINISHED


def test_reason_names_the_rule_and_last_word():
    verdict = judge_words("Next month I am planning to.")
    assert verdict.reason == "ends on a preposition"
    assert verdict.last_word == "to"
    assert judge_words("I went to the...").reason == "trails off (...)"


@pytest.mark.parametrize("text", ["I usually go to work, bye!", "We went there by car and then by bus, bye."])
def test_bye_after_a_phrase_is_left_to_the_audio(text):
    # Whisper writes a cut-off "... to work by" as "... to work, bye!": not a whole sentence.
    assert judge_words(text).state == UNCLEAR


@pytest.mark.parametrize("text", ["Okay, bye!", "See you tomorrow, bye.", "It was fun, bye bye!",
                                  "I have to go now, bye."])
def test_a_real_goodbye_is_not_doubted(text):
    assert judge_words(text).state != UNCLEAR
