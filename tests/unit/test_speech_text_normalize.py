"""Text the voice reads: numbers, money, times, ordinals, years, emoji, markup."""
import pytest

from tutor_app.speech.text_normalize import (
    normalize_for_speech,
    number_to_words,
    ordinal_words,
    year_words,
)


@pytest.mark.parametrize("n, words", [
    (0, "zero"), (7, "seven"), (13, "thirteen"), (20, "twenty"), (42, "forty two"),
    (100, "one hundred"), (305, "three hundred five"), (1000, "one thousand"),
    (21_000_001, "twenty one million one"), (-3, "minus three"),
])
def test_number_to_words(n, words):
    assert number_to_words(n) == words


@pytest.mark.parametrize("n, words", [
    (1, "first"), (2, "second"), (3, "third"), (4, "fourth"), (12, "twelfth"),
    (20, "twentieth"), (21, "twenty first"), (100, "one hundredth"),
])
def test_ordinals(n, words):
    assert ordinal_words(n) == words


@pytest.mark.parametrize("n, words", [
    (1999, "nineteen ninety nine"), (2005, "two thousand five"), (2024, "twenty twenty four"),
    (1900, "nineteen hundred"), (1905, "nineteen oh five"),
])
def test_years(n, words):
    assert year_words(n) == words


@pytest.mark.parametrize("text, spoken", [
    ("Let's meet at 3:30 pm tomorrow.", "Let's meet at three thirty p m tomorrow."),
    ("Call me at 7am or 10 PM. Thanks.", "Call me at seven a m or ten p m. Thanks."),
    ("The class is at 9:05 a.m. Be on time.", "The class is at nine oh five a m. Be on time."),
    ("It's 12:00.", "It's twelve o'clock."),
    ("It costs $5.", "It costs five dollars."),
    ("Only $1 or $5.50!", "Only one dollar or five dollars and fifty cents!"),
    ("We need ₩50,000 and €2m.", "We need fifty thousand won and two million euros."),
    ("Prices rose 25% (or 2.5%).", "Prices rose twenty five percent (or two point five percent)."),
    ("You came 1st, she was 22nd.", "You came first, she was twenty second."),
    ("Back in 1999 and the 1990s.", "Back in nineteen ninety nine and the nineteen nineties."),
    ("In 2024 I read 3 books.", "In twenty twenty four I read three books."),
    ("I have 1,000 words; pi is 3.14.", "I have one thousand words; pi is three point one four."),
    ("It was -5 degrees.", "It was minus five degrees."),
])
def test_numbers(text, spoken):
    assert normalize_for_speech(text) == spoken


@pytest.mark.parametrize("text, spoken", [
    ("Great job! 😀👍🏽 Keep going 🇰🇷", "Great job! Keep going"),
    ("I ❤️ English ✨", "I English"),
    ("**Bold**, *italic*, __under__ and `code`.", "Bold, italic, under and code."),
    ("# Title\n- item one\n* item two", "Title\nitem one\nitem two"),
    ("See [the docs](https://example.com/x) or https://example.com now.", "See the docs or now."),
    ("<b>Hi</b> &amp; <i>bye</i>", "Hi and bye"),
    ("```\nprint(1)\n```", "print(one)"),
    ("> quoted text", "quoted text"),
])
def test_markup_and_emoji(text, spoken):
    assert normalize_for_speech(text) == spoken


def test_nothing_speakable_gives_empty():
    assert normalize_for_speech("😀 🎉 **") == ""
    assert normalize_for_speech("   ") == ""


def test_deterministic():
    text = "At 3:30 pm I paid $5 for 25% more 😀 on the 1st of May 2024."
    assert normalize_for_speech(text) == normalize_for_speech(text)


def test_plain_text_untouched():
    text = "Hello, how was your day? I hope it went well."
    assert normalize_for_speech(text) == text
