from tutor_app.core.types import EmotionScore, top_emotion
from tutor_app.tutor.turn_memory.gate import decide, has_save_trigger, is_question, temp_memo


def E(**scores):
    return sorted((EmotionScore(k, v) for k, v in scores.items()), key=lambda e: -e.score)


def test_strong_joy_is_stored():
    d = decide("I got the job today!", E(joy=0.82, neutral=0.1))
    assert d.store and d.reason == "emotion" and d.emotion.label == "joy"
    assert d.source == "gate"


def test_exactly_threshold_is_stored_just_below_is_not():
    assert decide("I passed my exam.", E(joy=0.6)).store
    assert not decide("I passed my exam.", E(joy=0.59)).store


def test_neutral_is_never_the_storing_emotion():
    d = decide("I had rice for lunch.", E(neutral=0.95, joy=0.03))
    assert not d.store and d.reason == "weak"
    assert top_emotion(E(neutral=0.95, joy=0.03), neutral_ok=False).label == "joy"


def test_no_emotions_at_all():
    assert not decide("I had rice for lunch.", []).store
    assert not decide("I had rice for lunch.", None).store


def test_triggers_english_and_korean():
    for text in ("Remember that I love lattes.", "please don't forget my exam is on Friday",
                 "Keep in mind I'm vegetarian.", "Note that I moved to Busan.",
                 "기억해줘 나는 커피를 좋아해", "이거 저장해 줘: 내 생일은 3월 3일", "기억해 나 고양이 있어"):
        d = decide(text, E(neutral=0.9))
        assert d.store and d.reason == "trigger" and d.source == "trigger", text


def test_questions_are_not_stored_even_when_emotional_or_with_remember():
    for text in ("What's my name?", "Do you remember my name?", "Why is everything so hard?",
                 "where do I live", "내 이름 기억나?"):
        d = decide(text, E(sadness=0.9))
        assert not d.store and d.reason == "question", text
    assert is_question("Do you like coffee?")
    assert not has_save_trigger("Do you remember what I said?")


def test_trigger_statement_ending_in_question_mark_is_still_a_statement():
    assert decide("Remember that my exam is on Friday, okay?", E(neutral=0.9)).store


def test_temp_memo_goes_to_short_term_only():
    d = decide("Temp memo: the room number is 4021", E(joy=0.9))
    assert not d.store and d.reason == "temp_memo" and d.temp_memo == "the room number is 4021"
    d = decide("Just for this call, call me Captain.", E(neutral=0.9))
    assert d.reason == "temp_memo" and d.temp_memo == "call me Captain."
    assert temp_memo("I like temp work") == ""


def test_empty():
    assert decide("   ", E(joy=0.9)).reason == "empty"
