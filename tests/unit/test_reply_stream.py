"""A streamed reply goes through the parrot check before each sentence is released
(tutor/reply_stream.py), with a scripted model at the ChatModel seam."""
from __future__ import annotations

from tutor_app.core.cancel import CancelToken
from tutor_app.core.types import ChatMessage
from tutor_app.settings import TutorSettings
from tutor_app.tutor.prompts import PromptInputs
from tutor_app.tutor.reply_stream import generate, reply_request
from tutor_app.tutor.turn import StageClock

MINJI = "Hello, my name is Minji. I am office worker in Seoul."
SCHOOL = "I am go to school yesterday with my friend."


class ScriptedModel:
    """Answers each request with the next scripted reply, a word per delta."""

    name = "scripted"
    compact_prompt = True

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.requests: list[tuple[str, int]] = []  # (how it was asked, attempt)
        self.closed = 0

    def _words(self, how: str, system, messages, attempt: int):
        self.requests.append((how, attempt))
        reply = self.replies.pop(0)
        try:
            for word in reply.split(" "):
                yield word + " "
        finally:
            self.closed += 1

    def stream(self, system, messages, cancel=None):
        return self._words("stream", system, messages, 0)

    def sample(self, system, messages, cancel, attempt):
        return self._words("sample", system, messages, attempt)

    def complete_json(self, system, messages, schema=None):
        raise NotImplementedError


def run_turn(model, text, history=(), turn=0, compact=False):
    request = reply_request(PromptInputs(tutor=TutorSettings(), user_text=text, history=list(history)),
                            compact=compact, turn_index=turn)
    heard: list[str] = []
    gen = generate(lambda: model, request, heard.append, CancelToken(), StageClock())
    return gen, heard


def test_a_parroting_first_answer_is_replaced_by_a_second_sample():
    model = ScriptedModel("Hello, my name is Minji. I'm a professional office worker in Seoul.",
                          "Nice to meet you, Minji! What do you do at your office?")
    gen, heard = run_turn(model, MINJI)
    assert heard == ["Nice to meet you, Minji!", "What do you do at your office?"]
    assert gen.text == "Nice to meet you, Minji! What do you do at your office?" and gen.caught == 1
    assert model.requests == [("stream", 0), ("sample", 1)] and model.closed == 2  # the parrot was cut off
    assert not gen.apology


def test_when_every_sample_parrots_the_learner_hears_a_recast():
    model = ScriptedModel("I am go to school yesterday with my friend.", "Hello, I am go to school with my friend.")
    gen, heard = run_turn(model, SCHOOL)
    assert heard == [gen.text] and gen.text.startswith("Oh, you went to school yesterday with your friend?")
    assert gen.caught == 2 and "my friend" not in gen.text


def test_a_small_local_model_that_parrots_gets_the_fallback_at_once():
    model = ScriptedModel("Hello, my name is Minji. I'm a professional office worker in Seoul.", "unused")
    gen, heard = run_turn(model, MINJI, turn=1, compact=True)
    assert heard == ["Nice to meet you, Minji!", "Can you tell me more?"] and model.requests == [("stream", 0)]
    model = ScriptedModel("I like tennis too.", "unused")
    gen, heard = run_turn(model, "I like tennis too.", turn=1, compact=True)
    assert heard == ["Oh, really? Can you tell me more?"] and model.requests == [("stream", 0)]
    assert "Rules:" not in model_system(MINJI, compact=True)


def model_system(text, compact):
    return reply_request(PromptInputs(tutor=TutorSettings(), user_text=text), compact=compact,
                         turn_index=0).prompt.system


def test_a_later_parroting_sentence_is_dropped():
    model = ScriptedModel("Oh, you went to school yesterday? I'm an office worker in Seoul. What did you learn?")
    gen, heard = run_turn(model, SCHOOL, history=[ChatMessage("user", MINJI), ChatMessage("assistant", "Hi!")])
    assert heard == ["Oh, you went to school yesterday?", "What did you learn?"] and gen.caught == 1


def test_a_small_model_does_not_say_its_last_reply_again():
    last = "That sounds like a wonderful day with your friends in the park."
    history = [ChatMessage("user", "I went to the park."), ChatMessage("assistant", last)]
    gen, heard = run_turn(ScriptedModel(last), "We ate kimbap.", history=history, turn=2, compact=True)
    assert heard == ["I see. What happened next?"] and gen.caught == 1
    # a cloud model may open two turns alike (its replies are not the parroting kind)
    gen, heard = run_turn(ScriptedModel(last), "We ate kimbap.", history=history)
    assert heard == [last] and gen.caught == 0


def test_an_echo_that_corrects_the_learner_is_said_back_as_a_recast():
    model = ScriptedModel("Yesterday, I ate kimchi stew with my family. The sentence is correct now.")
    gen, heard = run_turn(model, "Yesterday I eat kimchi stew with my family.", turn=0)
    assert heard == ["Oh, yesterday, you ate kimchi stew with your family?", "Tell me more about that."]
    assert len(model.requests) == 1


def test_a_cloud_model_gets_the_full_prompt_and_the_same_check():
    request = reply_request(PromptInputs(tutor=TutorSettings(), user_text=MINJI), compact=False, turn_index=0)
    assert "Rules:" in request.prompt.system and "Rules:" not in request.retry_prompt.system
    assert request.check is not None and request.check.check("My name is Minji.") is not None


def test_a_small_model_leads_with_the_recast_the_rules_are_sure_of():
    model = ScriptedModel("That's a great way to start. What kind of school do you attend?")
    gen, heard = run_turn(model, SCHOOL, turn=0, compact=True)
    assert heard == ["Oh, you went to school yesterday with your friend?", "That's a great way to start.",
                     "What kind of school do you attend?"]
    parrot = ScriptedModel("I am go to school yesterday with my friend.")
    gen, heard = run_turn(parrot, SCHOOL, turn=0, compact=True)
    assert heard == ["Oh, you went to school yesterday with your friend?", "Tell me more about that."]


def test_a_small_model_is_not_asked_the_learners_name():
    model = ScriptedModel("My name is Emily.")
    history = [ChatMessage("user", MINJI), ChatMessage("assistant", "Nice to meet you!")]
    gen, heard = run_turn(model, "What is my name?", history=history, compact=True)
    assert heard == ["Your name is Minji."] and model.requests == []
    gen, heard = run_turn(model, "What's my name?", compact=True)
    assert heard == ["I don't know your name yet. What is it?"]


def test_a_small_models_long_first_sentence_is_heard_from_its_first_clause():
    reply = ("That sounds like a really lovely weekend, and I am glad the weather was kind to you. "
             "What did you eat there? Did you take photos? Was it busy?")
    gen, heard = run_turn(ScriptedModel(reply), "I went hiking in the mountains.", turn=1, compact=True)
    assert heard == ["That sounds like a really lovely weekend,", "and I am glad the weather was kind to you.",
                     "What did you eat there?", "Did you take photos?"]  # three sentences: the clause is no sentence
    assert gen.text == ("That sounds like a really lovely weekend, and I am glad the weather was kind to you. "
                        "What did you eat there? Did you take photos?")
    # a cloud model writes fast: its sentences stay whole
    gen, heard = run_turn(ScriptedModel(reply), "I went hiking in the mountains.", turn=1)
    assert heard[0] == "That sounds like a really lovely weekend, and I am glad the weather was kind to you."


def test_a_first_clause_that_parrots_is_not_said_alone():
    # The clause alone would be an echo: the whole sentence is checked as before (a recast).
    model = ScriptedModel("Yesterday I ate kimchi stew with my family, and it was good. Nice.")
    gen, heard = run_turn(model, "Yesterday I eat kimchi stew with my family, and it was good.", turn=1, compact=True)
    assert not any(h.startswith("Yesterday I ate") for h in heard), heard
    assert heard[0].startswith("Oh, yesterday you ate kimchi stew with your family"), heard


def test_a_first_clause_copied_from_a_longer_learner_sentence_is_not_said_alone():
    # The clause is only part of the learner's sentence (it passes the sentence check), but
    # the whole sentence is a copy: judged whole, the sample is dropped for the fallback.
    line = "He was not an ill-disposed young man, unless to be rather cold hearted is to be ill-disposed."
    model = ScriptedModel(line + " The correct grammar is fine.")
    gen, heard = run_turn(model, line, turn=1, compact=True)
    assert not any("ill-disposed" in h for h in heard), heard
    assert gen.caught == 1
