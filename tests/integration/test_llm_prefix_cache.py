"""The stable start of the tutor prompt stays evaluated in the local model (real llama.cpp,
the bundled SmolLM2-135M GGUF, greedy): a later turn, a second call after the call-end
extraction and a call-start prefill evaluate only what changed, read from the backend's
own counters (llama.cpp's); a change of settings evaluates the new start, and every reply
is the one a fresh model gives for the same prompt."""
from __future__ import annotations

from pathlib import Path

import pytest

from tutor_app.core.types import ChatMessage
from tutor_app.llm.factory import resolve_gguf
from tutor_app.llm.llama_backend import LlamaChatModel, LlamaOptions
from tutor_app.llm.prefix_cache import PromptStats
from tutor_app.paths import default_models_dir
from tutor_app.registry.manifest import ModelRegistry
from tutor_app.settings import TutorSettings
from tutor_app.tutor import extract
from tutor_app.tutor.prompts import Prompt, PromptInputs, build_compact_prompt, build_prompt, stable_system
from tutor_app.tutor.reply_stream import reply_request

pytestmark = pytest.mark.slow

LINES = ["Hi! My name is Minji and I work at a bank.", "Yesterday I go to the cinema with my friend."]


@pytest.fixture(scope="module")
def gguf() -> Path:
    return resolve_gguf("smollm2-135m-instruct", ModelRegistry.load(default_models_dir()))


def _model(gguf: Path, **options) -> LlamaChatModel:
    return LlamaChatModel(gguf, LlamaOptions(max_tokens=12, device="cpu", **options))


def _reply(model: LlamaChatModel, prompt: Prompt) -> tuple[str, PromptStats]:
    text = "".join(model.stream(prompt.system_parts, prompt.messages))
    assert model.last_prompt is not None
    return text, model.last_prompt


def _fresh_reply(gguf: Path, prompt: Prompt) -> str:
    """What a model with nothing cached answers to the same prompt."""
    model = _model(gguf)
    try:
        return "".join(model.stream(prompt.system_parts, prompt.messages))
    finally:
        model.close()


def _compact(text: str, history=(), tutor: TutorSettings | None = None) -> Prompt:
    return build_compact_prompt(PromptInputs(tutor=tutor or TutorSettings(), user_text=text, history=list(history)))


def test_a_later_turn_evaluates_only_what_follows_the_stable_start(gguf):
    model = _model(gguf)
    first = _compact(LINES[0])
    reply, one = _reply(model, first)
    assert one.stable_tokens > 50 and one.prompt_tokens > one.stable_tokens
    assert one.evaluated >= one.prompt_tokens - 1  # a fresh context reads it all (llama.cpp counts >= 1)
    second = _compact(LINES[1], [ChatMessage("user", LINES[0]), ChatMessage("assistant", reply)])
    reply_two, two = _reply(model, second)
    assert two.stable_tokens == one.stable_tokens and not two.restored
    assert two.evaluated <= two.prompt_tokens - two.stable_tokens  # the persona and rules were not read again
    assert two.evaluated < two.prompt_tokens // 3
    assert reply_two == _fresh_reply(gguf, second)


def test_an_odd_turn_reads_only_the_newest_exchange(gguf):
    """The small model's history window moves two exchanges at a time
    (prompts.compact_window): an odd turn's prompt begins with the whole prompt before it."""
    model = _model(gguf)
    history: list[ChatMessage] = []
    stats = []
    for turn, line in enumerate(LINES + ["The movie was very interest.", "After we eat noodles."]):
        request = reply_request(PromptInputs(tutor=TutorSettings(), user_text=line, history=list(history)),
                                compact=True, turn_index=turn)
        reply, used = _reply(model, request.prompt)
        stats.append(used)
        history += [ChatMessage("user", line), ChatMessage("assistant", reply.strip() or "Tell me more.")]
    for odd in (1, 3):
        assert stats[odd].evaluated <= stats[odd].prompt_tokens - stats[odd - 1].prompt_tokens + 1
    assert stats[2].evaluated <= stats[2].prompt_tokens - stats[2].stable_tokens  # an even turn: its history only


def test_a_second_call_restores_the_start_the_extraction_pushed_out(gguf):
    model = _model(gguf)
    reply, _ = _reply(model, _compact(LINES[0]))
    call = [ChatMessage("user", LINES[0]), ChatMessage("assistant", reply), ChatMessage("user", LINES[1]),
            ChatMessage("assistant", "Oh, you went to the cinema?")]
    system, request = extract.extraction_request(call)
    model.complete_json(system, request, schema=extract.EXTRACTION_SCHEMA)  # the call-end extraction
    assert model.last_prompt is not None and model.last_prompt.stable_tokens == 0  # nothing of it is kept
    # The next call, same settings, same learner (the extraction keeps her name in the profile).
    next_call = build_compact_prompt(PromptInputs(tutor=TutorSettings(), user_text="Hello again! I am tired today.",
                                                  profile={"name": "Minji"}))
    reply_two, stats = _reply(model, next_call)
    assert stats.restored
    assert stats.evaluated <= stats.prompt_tokens - stats.stable_tokens
    assert reply_two == _fresh_reply(gguf, next_call)


def test_a_prefill_when_the_call_starts_leaves_the_first_turn_its_own_part(gguf):
    model = _model(gguf)
    tutor = TutorSettings(accent="uk")
    warm = model.prefill(stable_system(PromptInputs(tutor=tutor, user_text="", profile={"name": "Minji"}),
                                       compact=True))
    assert warm.stable_tokens > 50 and warm.evaluated >= warm.stable_tokens - 1 and not warm.restored
    assert model.prefill(stable_system(PromptInputs(tutor=tutor, user_text="", profile={"name": "Minji"}),
                                       compact=True)).evaluated == 0  # already there
    prompt = build_compact_prompt(PromptInputs(tutor=tutor, user_text=LINES[1], profile={"name": "Minji"}))
    reply, stats = _reply(model, prompt)
    assert stats.stable_tokens == warm.stable_tokens
    assert stats.evaluated <= stats.prompt_tokens - stats.stable_tokens
    assert reply == _fresh_reply(gguf, prompt)


def test_new_settings_evaluate_a_new_start_and_the_reply_follows_the_new_prompt(gguf):
    model = _model(gguf)
    beginner = TutorSettings(level="beginner", topic="daily")
    business = TutorSettings(level="advanced", topic="business")

    def full(tutor: TutorSettings) -> Prompt:
        return build_prompt(PromptInputs(tutor=tutor, user_text="I have a meeting tomorrow."))

    first, one = _reply(model, full(beginner))
    changed, two = _reply(model, full(business))
    # The level sits near the start: the rest of the persona and all the rules are read again.
    assert not two.restored and two.evaluated > two.stable_tokens - 40
    assert changed == _fresh_reply(gguf, full(business))
    back, three = _reply(model, full(beginner))  # the first settings' start was kept
    assert three.restored and three.evaluated <= three.prompt_tokens - three.stable_tokens
    assert back == first


def test_a_chat_format_llama_cpp_renders_differently_turns_the_cache_off(gguf):
    model = _model(gguf, chat_format="llama-2")  # not the GGUF's own template
    prompt = _compact(LINES[0])
    reply, _ = _reply(model, prompt)
    again, stats = _reply(model, prompt)
    assert reply == again and reply.strip()
    assert stats.stable_tokens == 0 and not stats.restored  # no snapshot taken of a prompt it cannot render


def test_a_call_warm_up_prefills_the_engines_local_model(data_dir):
    """The live call's warm-up step (call/warmup.py -> Conversation.prefill_prompt) puts the
    call's own prompt start into the engine's local model: the first turn reads only its part."""
    from tutor_app.app import App
    from tutor_app.call.warmup import _prefill
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings

    app = App(Settings.load(AppPaths.resolve(data_dir), llm_backend="local"))
    try:
        call = app.engine.start_call("warm")
        _prefill(call)
        model = app.engine.services.chat_model()
        call.turn(LINES[0])
        stats = model.last_prompt
        assert stats is not None and stats.stable_tokens > 50
        # Without the prefill a first turn reads the whole prompt (evaluated == prompt_tokens).
        assert stats.evaluated < stats.stable_tokens  # most of the start was already read
    finally:
        app.close()
