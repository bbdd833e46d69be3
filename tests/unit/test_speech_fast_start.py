"""Where a long first sentence is split for a faster first audio chunk."""
import pytest

from tutor_app.speech.tts import split_first_phrase


@pytest.mark.parametrize("text, expected", [
    ("Could you tell me a little more about your job interview yesterday?",
     ("Could you tell me a little more,", "about your job interview yesterday?")),
    ("That sounds great, and I think you did really well in the interview today.",
     ("That sounds great,", "and I think you did really well in the interview today.")),
    ("I would like to practise speaking English with you every single day. Okay?",
     ("I would like to practise speaking English,", "with you every single day. Okay?")),
])
def test_split(text, expected):
    assert split_first_phrase(text) == expected


@pytest.mark.parametrize("text", [
    "Hello there.",
    "How did the job interview go yesterday?",  # short: already fast
    "Absolutely wonderful extraordinary magnificent splendid marvellous fantastic superb stuff indeed.",
])
def test_no_split(text):
    assert split_first_phrase(text) is None


def test_split_keeps_every_word():
    text = "When you arrive at the airport, please call me and tell me how the flight was. Bye!"
    head, rest = split_first_phrase(text)
    assert (head + " " + rest).replace(",", "").split() == text.replace(",", "").split()
