"""`decide`: the audio probability and the words so far, combined."""
from __future__ import annotations

import dataclasses

import pytest

from tutor_app.speech.end_of_turn import EndOfTurnOptions, Verdict, decide

# (audio probability, transcript, complete?, a word in the reason)
TABLE = [
    # Unfinished words veto, whatever the audio says (falling tone on "... to").
    (0.95, "Next month I am planning to.", False, "preposition"),
    (0.99, "My friends and I", False, "subject"),
    (0.90, "I went to the...", False, "trails off"),
    (None, "I want to talk about", False, "preposition"),
    # Audio over the threshold ends the turn unless the words veto.
    (0.80, "I live in Seoul.", True, "audio"),
    (0.80, None, True, "audio"),
    (0.50, "I gave up.", True, "audio"),
    (0.70, "", True, "audio"),
    # Audio under the threshold: only clearly finished words end the turn.
    (0.10, "Yes, I did.", True, "short answer"),
    (0.20, "Seoul.", True, "one-word"),
    (0.30, "Where are you from?", True, "question"),
    (0.20, "I went hiking with my friends last weekend", False, "full sentence"),
    (0.20, "I gave up.", False, "may go on"),
    (0.49, None, False, "no words yet"),
    (0.00, "   ", False, "no words yet"),
    # No audio model: the words decide; nothing at all: the VAD rule.
    (None, "I live in Seoul.", True, "no audio model"),
    (None, "I gave up.", True, "no audio model"),
    (None, None, True, "VAD only"),
    (None, "", True, "VAD only"),
]


@pytest.mark.parametrize("audio, transcript, complete, reason_part", TABLE)
def test_decide_table(audio, transcript, complete, reason_part):
    verdict = decide(audio, transcript)
    assert isinstance(verdict, Verdict)
    assert verdict.complete is complete, verdict
    assert reason_part in verdict.reason, verdict.reason
    assert verdict.audio_probability == audio


def test_signals_present_are_reported():
    assert decide(0.7, "Yes.").signals == "audio+words"
    assert decide(0.7, None).signals == "audio"
    assert decide(None, "Yes.").signals == "words"
    assert decide(None, None).signals == "none"
    assert decide(0.2, "Yes.").words.state == "finished"


def test_threshold_is_an_option():
    strict = EndOfTurnOptions(threshold=0.9)
    assert decide(0.8, "I gave up.", strict).complete is False
    assert decide(0.9, "I gave up.", strict).complete is True
    assert decide(0.8, "I gave up.").complete is True


def test_trusting_full_sentences_ends_them_despite_low_audio():
    trusting = EndOfTurnOptions(trust_sentences=True)
    assert decide(0.2, "I went hiking with my friends last weekend", trusting).complete is True
    assert decide(0.2, "I went hiking with my friends last weekend").complete is False
    # Still never over unfinished words.
    assert decide(0.2, "I went hiking with my", trusting).complete is False


def test_a_full_sentence_the_audio_doubts_is_likely_not_complete():
    doubted = decide(0.2, "I went hiking with my friends last weekend")
    assert (doubted.complete, doubted.likely) == (False, True)  # a shorter wait ends it
    assert decide(0.2, "I went hiking with my").likely is False  # unfinished words wait the full time
    assert decide(0.2, None).likely is False  # no words: the audio alone is not enough
    assert decide(0.2, "really").likely is False  # unclear words
    assert decide(0.9, "I went hiking.").likely is False  # complete already
    assert decide(0.10, "Yes, I did.", EndOfTurnOptions(min_audio_for_words=0.15)).likely is True


def test_a_finished_clause_ends_the_turn_whatever_the_audio_when_trusted():
    """With `trust_clauses` (the default), a whole-looking sentence Whisper closed with a
    full stop is finished; "..." or a comma, too few words, or words that cannot end a turn
    are not - nor the "2." Whisper wrote for a "to" before a thinking pause. Off, it is
    only likely."""
    trust = EndOfTurnOptions()
    assert not decide(0.05, "Next month I am planning 2.", trust).complete
    assert not decide(0.05, "Next month I am planning 2.", trust).likely  # unfinished: the thinking time
    untrusted = decide(0.05, "I went hiking with my friends last weekend.", EndOfTurnOptions(trust_clauses=False))
    assert not untrusted.complete and untrusted.likely
    clause = decide(0.05, "I went hiking with my friends last weekend.", trust)
    assert clause.complete and "finished clause" in clause.reason
    assert decide(0.05, "I went hiking with my friends last weekend!", trust).complete
    assert not decide(0.05, "I went hiking with my friends last weekend...", trust).complete
    assert not decide(0.05, "I went hiking with my friends last weekend,", trust).complete
    assert not decide(0.05, "She told me that.", trust).complete  # opens a clause
    assert not decide(0.05, "I usually go to work, bye!", trust).complete  # a cut-off "by"
    assert not decide(0.05, "Now it is.", trust).complete  # too short to trust (likely)
    floor = EndOfTurnOptions(trust_clauses=True, clause_min_audio=0.1)
    assert decide(0.05, "I went hiking with my friends last weekend.", floor).likely


def test_audio_floor_for_finished_words():
    floored = EndOfTurnOptions(min_audio_for_words=0.15)
    assert decide(0.10, "Yes, I did.", floored).complete is False
    assert decide(0.20, "Yes, I did.", floored).complete is True


def test_options_and_verdicts_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        EndOfTurnOptions().threshold = 0.1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        decide(0.9, None).complete = False  # type: ignore[misc]


def test_reason_never_quotes_the_learner():
    secret = "my password is hunter2 and"
    verdict = decide(0.9, secret)
    assert "hunter2" not in verdict.reason and "password" not in verdict.reason
