"""Word error rate and its normalisation."""
import pytest

from tutor_app.speech.wer import edit_distance, normalize_words, wer, wer_counts


def test_normalisation_ignores_case_punctuation_and_formatting():
    assert normalize_words("Mr. Dashwood, go forward 10 meters! Cold-hearted.") == [
        "mister", "dashwood", "go", "forward", "ten", "meters", "cold", "hearted"]


@pytest.mark.parametrize("ref, hyp, expected", [
    ("go forward ten meters", "Go forward 10 meters.", 0.0),
    ("and mister john dashwood", "And Mr. John Dashwood.", 0.0),
    ("a b c d", "a x c d", 0.25),  # substitution
    ("a b c d", "a c d", 0.25),  # deletion
    ("a b c d", "a b c d e", 0.25),  # insertion
    ("a b", "", 1.0),
    ("", "", 0.0),
    ("", "hello", 1.0),
])
def test_wer(ref, hyp, expected):
    assert wer(ref, hyp) == pytest.approx(expected)


def test_counts():
    result = wer_counts("he was not an ill disposed young man", "He was not an old-sposed young man.")
    assert (result.errors, result.reference_words) == (2, 8)


def test_edit_distance():
    assert edit_distance(list("kitten"), list("sitting")) == 3
