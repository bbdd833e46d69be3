"""Speaking rate: requests in a learner's turn (and what is not one), steps and bounds, the
rate by level, and the preference kept in the settings file."""
from __future__ import annotations

import pytest

from tutor_app.paths import AppPaths
from tutor_app.settings import Settings
from tutor_app.speech.speaking_rate import MAX_RATE, MIN_RATE, effective_rate
from tutor_app.tutor.rate import (
    BIG_STEP,
    FASTER,
    NORMAL,
    SLOWER,
    SMALL_STEP,
    STEP,
    RateRequest,
    apply,
    change_rate,
    detect_rate_request,
)


@pytest.mark.parametrize("text", [
    "Could you speak more slowly?",
    "could you please speak more slowly",
    "Can you talk slower, please?",
    "Slower please.",
    "Slower!",
    "More slowly, please.",
    "Please speak slowly.",
    "Speak more slowly please",
    "You speak too fast.",
    "You go too fast.",
    "You're talking too fast for me.",
    "Sorry, you are speaking so fast.",
    "That was too fast.",
    "Too fast!",
    "It's a bit too fast for me.",
    "Slow down, please.",
    "Can you slow down a little?",
    "Not so fast, please.",
    "I'd like you to speak more slowly.",
    "Sorry. I didn't catch that. Could you say it again more slowly?",
    "Um, could you go slower?",
    "Your speech is too fast.",
    "천천히 말해 주세요",
    "좀 더 천천히 말씀해 주시겠어요?",
    "천천히요",
    "말이 너무 빨라요",
    "너무 빨라요",
])
def test_slower_requests(text):
    request = detect_rate_request(text)
    assert request is not None and request.direction == SLOWER, text


@pytest.mark.parametrize("text", [
    "A bit faster, please.",
    "Faster please!",
    "Could you speak a little faster?",
    "Can you talk more quickly?",
    "You can speak faster, I understand you.",
    "You speak too slowly.",
    "You're talking so slowly.",
    "Speed up, please.",
    "It's too slow for me.",
    "빨리",
    "좀 더 빨리 말해 주세요",
    "말이 너무 느려요",
])
def test_faster_requests(text):
    request = detect_rate_request(text)
    assert request is not None and request.direction == FASTER, text


@pytest.mark.parametrize("text", [
    "Speak normally, please.",
    "Could you talk at a normal speed again?",
    "Normal speed please.",
    "Back to your normal speed.",
    "보통 속도로 말해 주세요",
])
def test_normal_requests(text):
    request = detect_rate_request(text)
    assert request is not None and request.direction == NORMAL, text


@pytest.mark.parametrize("text", [
    "I run faster now.",
    "My teacher speaks slowly.",
    "I speak English slowly.",
    "I want to speak faster.",
    "Could you tell me how to speak faster?",
    "Can you go faster than a car?",
    "Slowly, I learned to cook.",
    "The economy will slow down next year.",
    "I need to speed up my work.",
    "The train was too fast.",
    "It was slow.",
    "Could you speak up?",
    "Could you speak louder?",
    "Could you repeat that?",
    "I speak normally at work.",
    "Do you speak slowly to children?",
    "My computer is faster than yours.",
    "We walked slowly along the river and talked about our plans.",
    "천천히 걸었어요",
    "저는 천천히 말했어요",
    "빨리 가야 해요",
    "시간이 너무 빨라요",
    "",
    "   ",
])
def test_not_requests(text):
    assert detect_rate_request(text) is None, text


def test_how_much_sets_the_step():
    assert detect_rate_request("A little bit slower, please").step == SMALL_STEP
    assert detect_rate_request("Could you speak a bit more slowly?").step == SMALL_STEP
    assert detect_rate_request("Slower, please").step == STEP
    assert detect_rate_request("Much slower, please").step == BIG_STEP
    assert detect_rate_request("조금 천천히 말해 주세요").step == SMALL_STEP


def test_last_request_in_a_turn_wins():
    assert detect_rate_request("Slower please. Oh no, faster please!").direction == FASTER


def test_apply_steps_and_bounds():
    assert apply(1.0, RateRequest(SLOWER)) == pytest.approx(1.0 - STEP)
    assert apply(1.0, RateRequest(FASTER, SMALL_STEP)) == pytest.approx(1.0 + SMALL_STEP)
    rate = 1.0
    for _ in range(20):  # asking again and again never leaves the bounds
        rate = apply(rate, RateRequest(SLOWER, BIG_STEP))
    assert rate == MIN_RATE
    for _ in range(20):
        rate = apply(rate, RateRequest(FASTER, BIG_STEP))
    assert rate == MAX_RATE
    assert apply(0.7, RateRequest(NORMAL), normal=0.85) == 0.85


def test_rate_by_level_and_explicit():
    assert effective_rate("beginner", 0.0) < effective_rate("intermediate", 0.0) == 1.0 < effective_rate("advanced", 0.0)
    assert effective_rate("beginner", 1.2) == 1.2
    assert effective_rate("unknown-level", 0.0) == 1.0
    assert effective_rate("intermediate", 9.0) == MAX_RATE


def test_change_rate_is_kept_for_later_calls(tmp_path, monkeypatch):
    monkeypatch.delenv("TUTOR_APP_PROFILE", raising=False)
    paths = AppPaths.resolve(tmp_path)
    settings = Settings.load(paths)
    settings.tutor.level = "beginner"
    new = change_rate(settings, detect_rate_request("Could you speak more slowly?"))
    assert new == pytest.approx(0.85 - STEP)  # a step below the beginner's 0.85
    assert Settings.load(paths).speech.speaking_rate == pytest.approx(new)
    assert change_rate(settings, detect_rate_request("slower please")) == MIN_RATE  # 0.55: bounded
    # "speak normally" goes back to following the level (0 in the file)
    assert change_rate(settings, detect_rate_request("Speak normally, please")) == 0.85
    assert Settings.load(paths).speech.speaking_rate == 0.0
