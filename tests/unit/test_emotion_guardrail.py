"""The care guardrail: scripted score sequences, crisis phrases (English, Korean), idioms."""
from __future__ import annotations

import pytest

from tutor_app.core.types import EMOTION_LABELS, EmotionScore
from tutor_app.emotion.guardrail import CRISIS_REPLY, Guardrail, GuardrailDecision, crisis_phrase
from tutor_app.settings import EmotionSettings


def scores(**strong: float) -> list[EmotionScore]:
    """All 28 labels: the given ones at their value, neutral 0.3, the rest 0.01, highest first."""
    values = {lab: 0.01 for lab in EMOTION_LABELS}
    values["neutral"] = 0.3
    values.update(strong)
    return sorted((EmotionScore(k, v) for k, v in values.items()), key=lambda s: -s.score)


SAD = scores(sadness=0.82)
FEAR = scores(fear=0.7)
CALM = scores(neutral=0.9)
JOY = scores(joy=0.9)
WEAK_SAD = scores(sadness=0.55)


def run(guard: Guardrail, turns) -> list[str | None]:
    return [guard.check("I had a long day at work.", s).kind for s in turns]


# --- check-in ----------------------------------------------------------------------------
@pytest.mark.parametrize("turns, expected", [
    ([SAD, CALM, SAD], [None, None, "checkin"]),
    ([SAD, SAD], [None, "checkin"]),
    ([SAD, FEAR], [None, "checkin"]),  # two different distress labels count together
    ([SAD, CALM, CALM, SAD], [None, None, None, None]),  # only 1 of the last 3
    ([CALM, SAD, JOY, CALM, SAD], [None, None, None, None, None]),
    ([WEAK_SAD, WEAK_SAD, WEAK_SAD], [None, None, None]),  # below 0.6 is not strong
    ([JOY, JOY, JOY], [None, None, None]),
    ([scores(anger=0.9), scores(anger=0.9)], [None, None]),  # anger is not distress
    ([scores(sadness=0.6), scores(grief=0.6)], [None, "checkin"]),  # 0.6 inclusive
])
def test_checkin_needs_two_strong_distress_turns_in_the_last_three(turns, expected):
    assert run(Guardrail(), turns) == expected


def test_checkin_decision_carries_a_caring_instruction_and_no_reply():
    guard = Guardrail()
    guard.check("I feel so down lately.", SAD)
    decision = guard.check("Everything is hard and I'm tired.", SAD)
    assert decision.kind == "checkin"
    assert decision.reply is None
    assert decision.use_for_tutoring
    assert decision.emotion == "sadness"
    text = decision.instruction.lower()
    assert "acknowledge" in text and "rest" in text
    assert "someone they trust" in text and "professional" in text
    assert "do not lecture" in text


def test_a_continued_checkin_changes_its_instruction_instead_of_repeating_it():
    guard = Guardrail()
    kinds = [guard.check("sad", SAD) for _ in range(3)]
    assert [d.kind for d in kinds] == [None, "checkin", "checkin"]
    assert kinds[1].instruction != kinds[2].instruction
    assert "word for word" in kinds[2].instruction


def test_scores_may_be_plain_dicts():
    guard = Guardrail()
    turn = [{"label": "nervousness", "score": 0.75}, {"label": "neutral", "score": 0.2}]
    assert [guard.check("x", turn).kind for _ in range(2)] == [None, "checkin"]


def test_reset_forgets_the_previous_turns():
    guard = Guardrail()
    guard.check("x", SAD)
    guard.reset()
    assert guard.check("x", SAD).kind is None


def test_checkin_can_be_disabled_from_settings():
    guard = Guardrail.from_settings(EmotionSettings(checkin_enabled=False))
    assert run(guard, [SAD, SAD, SAD]) == [None, None, None]


def test_missing_scores_count_as_calm():
    guard = Guardrail()
    assert [guard.check("hello", None).kind, guard.check("", []).kind] == [None, None]


# --- crisis ------------------------------------------------------------------------------
CRISIS_EN = [
    "I want to kill myself",
    "Honestly I just want to die.",
    "i wanna die",
    "I've been thinking about suicide a lot",
    "I feel suicidal",
    "I don't want to live anymore",
    "I'm going to end my life",
    "Sometimes I want to end it all",
    "I have been hurting myself again",
    "Everyone would be better off if I was dead. I wish I were dead.",
    "I keep thinking about killing myself",
    "I KILL MYSELF",  # case does not matter
    "I don\u2019t want to be alive",  # curly apostrophe
]
CRISIS_KO = [
    "죽고 싶다",
    "요즘 너무 힘들어서 죽고싶어요",
    "자살 생각이 자꾸 들어",
    "살고 싶지 않아",
    "자해를 했어요",
    "목숨을 끊고 싶어",
    "그냥 사라지고 싶어",
]
IDIOMS = [
    "I could die of laughter",
    "this traffic is killing me",
    "You're killing me, haha",
    "She's killing it at work",
    "I'm dying to see that movie",
    "This cake is to die for",
    "I nearly killed myself laughing",
    "I'm dying of boredom in this class",
    "I want to die of embarrassment",
    "I don't want to die",
    "I'm not suicidal, just really tired",
    "I would never kill myself",
    "Quitting now would be career suicide",
    "We watched Suicide Squad last night",
    "My dad is a die-hard baseball fan",
    "배고파 죽겠다",
    "웃겨 죽겠어",
    "좋아 죽겠네",
    "손흥민이 자살골을 넣었어",
]


@pytest.mark.parametrize("text", CRISIS_EN + CRISIS_KO)
def test_crisis_language_is_detected_in_english_and_korean(text):
    assert crisis_phrase(text)
    decision = Guardrail().check(text, CALM)  # even with calm scores: text alone decides
    assert decision.kind == "crisis"
    assert decision.reply and decision.reply.startswith(CRISIS_REPLY[:40])
    assert decision.instruction is None
    assert not decision.use_for_tutoring


@pytest.mark.parametrize("text", IDIOMS)
def test_idioms_and_negations_are_not_crisis(text):
    assert crisis_phrase(text) is None
    assert Guardrail().check(text, JOY).kind is None


def test_crisis_reply_offers_help_resources():
    reply = Guardrail().check("I want to die", SAD).reply
    for resource in ("119", "109", "988", "findahelpline.com", "someone you trust"):
        assert resource in reply


def test_korean_crisis_gets_a_korean_line_too():
    reply = Guardrail().check("죽고 싶다", SAD).reply
    assert "109" in reply and "자살예방상담전화" in reply
    assert "자살예방상담전화" not in Guardrail().check("I want to die", SAD).reply


def test_crisis_wins_over_checkin():
    guard = Guardrail()
    guard.check("I'm so sad", SAD)
    assert guard.check("I want to kill myself", SAD).kind == "crisis"


def test_crisis_can_be_disabled_and_then_only_the_checkin_rule_applies():
    guard = Guardrail.from_settings(EmotionSettings(crisis_enabled=False))
    assert guard.check("I want to die", SAD).kind is None
    assert guard.check("I want to die", SAD).kind == "checkin"


def test_plain_sentences_pass():
    guard = Guardrail()
    for text in ("I love my new job!", "", "   ", "🙂🙂🙂", "x" * 20000, "오늘 날씨 좋다"):
        assert guard.check(text, CALM) == GuardrailDecision()
