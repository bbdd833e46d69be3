"""Help in Korean during a call (tutor/korean_help.py): which turns are help requests, what
the built-in answers say without the model, and the prompt rule a cloud model gets."""
from __future__ import annotations

import re

import pytest

from tutor_app.core.types import ChatMessage
from tutor_app.settings import TutorSettings
from tutor_app.tutor.korean_help import (
    AGAIN,
    FASTER,
    HOW_TO_SAY,
    KOREAN,
    NOT_UNDERSTOOD,
    PROMPT_RULE,
    SLOWER,
    answer,
    built_in_help,
    help_request,
    lookup,
)
from tutor_app.tutor.korean_phrases import TABLE, phrases
from tutor_app.tutor.parrot import ParrotCheck
from tutor_app.tutor.prompts import PromptInputs, build_compact_prompt, build_prompt

LAST = "Oh, you went to Busan? That sounds fun. So, what did you do there?"


@pytest.mark.parametrize("text, kind, english", [
    ("출장은 영어로 뭐예요?", HOW_TO_SAY, "business trip"),
    ("선생님, 여권을 영어로 어떻게 말해요?", HOW_TO_SAY, "passport"),
    ("영어로 출장이 뭐예요?", HOW_TO_SAY, "business trip"),
    ("회식 영어로?", HOW_TO_SAY, "team dinner"),
    ("제가 다음 주에 출장을 가는데 출장은 영어로 뭐라고 해요?", HOW_TO_SAY, "business trip"),
    ("배고파요는 영어로 뭐예요?", HOW_TO_SAY, "hungry"),
    ("How do you say 출장 in English?", HOW_TO_SAY, "business trip"),
    ("야근 in English?", HOW_TO_SAY, "work overtime"),
])
def test_how_do_i_say_gives_the_phrase_an_example_and_an_invitation(text, kind, english):
    request = help_request(text)
    assert request is not None and request[0] == kind
    reply = answer(*request, LAST, "daily")
    assert reply.sentences[0] == f'In English, we say "{english}".'
    assert reply.sentences[1].startswith('For example: "') and english.split()[0] in reply.sentences[1].lower()
    assert reply.sentences[2] == f'Can you say "{english}"?'
    assert not re.search(r"[\uac00-\ud7a3]", reply.reply)  # the tutor's voice is English


def test_this_and_an_unknown_word_get_honest_answers():
    this = answer(*help_request("이거 영어로 뭐라고 해요?"), LAST, "daily")
    assert 'what "this" is' in this.reply and "describe it in English" in this.reply
    assert help_request("영어로 뭐라고 해요?") == (HOW_TO_SAY, "이거")
    unknown = answer(*help_request("김치찌개는 영어로 뭐예요?"), LAST, "daily")
    assert "offline" in unknown.sentences[0] and unknown.reply.endswith("?")
    assert "describe it in English" in unknown.reply


@pytest.mark.parametrize("text, kind", [
    ("천천히 말해 주세요", SLOWER), ("좀 더 빨리 말해 주세요", FASTER), ("Could you speak more slowly?", SLOWER),
    ("다시 말해 주세요", AGAIN), ("한 번 더요", AGAIN), ("Sorry?", AGAIN), ("Can you say that again?", AGAIN),
    ("이해가 안 돼요", NOT_UNDERSTOOD), ("못 알아들었어요. 다시 말해 주세요.", NOT_UNDERSTOOD),
    ("무슨 뜻이에요?", NOT_UNDERSTOOD), ("I don't understand.", NOT_UNDERSTOOD), ("What do you mean?", NOT_UNDERSTOOD),
    ("죄송해요. 다시 말해 주세요.", AGAIN),
    ("저는 회사원이에요.", KOREAN), ("영어로 말하고 싶어요", KOREAN),
])
def test_the_other_requests(text, kind):
    assert help_request(text) == (kind, "")


@pytest.mark.parametrize("text", [
    "I am go to school yesterday.", "What is my name?", "Sorry.", "I don't understand my boss.",
    "I went to Busan. 다시 말해 주세요", "I live in 서울 with my family.", "My teacher speaks slowly.",
    "How do you say this in English?",
])
def test_the_learners_own_english_goes_to_the_model(text):
    assert help_request(text) is None


def test_the_answers_build_on_the_call():
    assert answer(SLOWER, "", LAST, "daily").sentences == (
        "Sure, I'll speak more slowly.", "Oh, you went to Busan?", "That sounds fun.", "So, what did you do there?")
    assert answer(AGAIN, "", LAST, "daily").sentences[1:] == ("Oh, you went to Busan?", "That sounds fun.",
                                                               "So, what did you do there?")
    assert answer(NOT_UNDERSTOOD, "", LAST, "daily").sentences == (
        "No problem, let me ask again.", "What did you do there?", "You can answer with just a few words.")
    long_question = "I wonder, if you could go anywhere in the world for a month, where would you go and why?"
    easier = answer(NOT_UNDERSTOOD, "", long_question, "travel")
    assert easier.sentences[1] == "Where do you want to travel?"
    assert answer(AGAIN, "", "", "daily").sentences == ("I haven't asked you anything yet.", "How are you today?")
    assert answer(FASTER, "", LAST, "daily").sentences[-1] == "What did you do there?"


@pytest.mark.parametrize("text", ["출장은 영어로 뭐예요?", "이거 영어로 뭐라고 해요?", "김치찌개는 영어로 뭐예요?",
                                  "저는 회사원이에요."])
def test_every_built_in_answer_passes_the_reply_gates(text):
    """What the learner hears must pass tutor/parrot.py like a model's reply would (not
    "again" and the like: saying the last line again is what was asked)."""
    check = ParrotCheck([text, "I went to Busan last week."], [LAST], {"Minji"})
    for sentence in answer(*help_request(text), LAST, "daily").sentences:
        assert check.check(sentence) is None, sentence
        check.accept(sentence)


def test_only_a_small_model_gets_the_built_in_answer_and_it_is_asked_only_for_a_request():
    asked = []

    def small() -> bool:
        asked.append(True)
        return True

    transcript = [ChatMessage("user", "I went to Busan."), ChatMessage("assistant", LAST)]
    assert built_in_help("I went to Busan last week.", transcript, "daily", small) is None
    assert not asked  # an ordinary turn never builds the model
    helped = built_in_help("다시 말해 주세요", transcript, "daily", small)
    assert helped is not None and helped.backend == "built-in:again" and LAST in helped.reply
    assert built_in_help("출장은 영어로 뭐예요?", transcript, "daily", lambda: False) is None  # Claude reads Korean


def test_the_phrase_table():
    table = phrases()
    entries = {id(p): p for p in table.values()}.values()
    assert len(entries) >= 150
    for entry in entries:
        example = entry.example
        assert example[-1] in ".!?" and not re.search(r"[.!?]\s", example), example  # one sentence
        said = set(re.findall(r"[a-z]+", example.lower()))
        for word in re.findall(r"[a-z]+", entry.english.lower()):
            assert len(word) < 3 or any(w.startswith(word[:4]) for w in said), (entry.english, example)
    forms = [f.strip() for line in TABLE.splitlines() if line.strip() and not line.startswith("#")
             for f in line.split("|")[0].split("/")]
    assert len(forms) == len({"".join(f.split()) for f in forms}), "a Korean form listed twice"
    assert lookup("출장을") is not None and lookup("오늘은") is not None and lookup("없는말") is None


def test_the_cloud_prompt_carries_the_rule_and_the_small_one_does_not():
    inputs = PromptInputs(tutor=TutorSettings(), user_text="출장은 영어로 뭐예요?")
    full = build_prompt(inputs)
    assert PROMPT_RULE in full.system_parts[0][0] and full.system_parts[0][1]  # stable, cached
    assert full.messages[-1].content == "출장은 영어로 뭐예요?"
    assert PROMPT_RULE not in build_compact_prompt(inputs).system
