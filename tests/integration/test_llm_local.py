"""The local backend with the bundled SmolLM2-135M-Instruct on the CPU (real model)."""
from __future__ import annotations

import threading

import pytest

from tutor_app.core.cancel import CancelToken
from tutor_app.core.types import ChatMessage
from tutor_app.llm.errors import LLMBadJSONError
from tutor_app.llm.local_backend import LocalChatModel, LocalOptions, resolve_model_dir
from tutor_app.paths import default_models_dir
from tutor_app.registry.manifest import ModelRegistry

pytestmark = pytest.mark.slow

SYSTEM = [("You are a friendly English tutor. Answer in one short sentence.", True), ("The learner is happy.", False)]
HI = [ChatMessage("user", "Hello! How are you today?")]


@pytest.fixture(scope="module")
def model() -> LocalChatModel:
    registry = ModelRegistry.load(default_models_dir())
    folder = resolve_model_dir("smollm2-135m-instruct", registry)
    chat = LocalChatModel(folder, LocalOptions(max_new_tokens=6, json_max_new_tokens=16, device="cpu"))
    chat.load()
    return chat


def generation_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "local-llm-generate" and t.is_alive()]


def test_streams_a_short_greedy_reply(model):
    first = list(model.stream(SYSTEM, HI))
    assert first and all(isinstance(d, str) and d for d in first)
    assert "".join(first).strip()
    assert list(model.stream(SYSTEM, HI)) == first  # greedy: the same prompt, the same reply
    assert model.load()[2] == "cpu"
    assert not generation_threads()


def test_cancel_stops_generation(model):
    long = LocalChatModel(model.model_dir, LocalOptions(max_new_tokens=200, device="cpu"))
    long._loaded = model._loaded  # share the loaded weights: no second load
    token = CancelToken()
    got = []
    for delta in long.stream(SYSTEM, [ChatMessage("user", "Tell me a long story about a cat.")], token):
        got.append(delta)
        token.cancel()
    assert len(got) == 1
    assert not generation_threads()  # the worker ended at the next token, and was joined


def test_complete_json_returns_an_object_or_says_it_cannot(model):
    try:
        result = model.complete_json("Extract the learner's name.", [ChatMessage("user", "My name is Minji.")])
    except LLMBadJSONError as exc:
        assert "did not return a valid JSON object" in str(exc)
    else:
        assert isinstance(result, dict)


def test_prompt_uses_the_chat_template_and_drops_the_oldest_turns(model):
    from tutor_app.llm.local_backend import chat_prompt

    _, tokenizer, _ = model.load()
    history = [ChatMessage("user", f"old message number {i} " * 20) for i in range(10)]
    history.append(ChatMessage("user", "the latest question"))
    full = chat_prompt(tokenizer, SYSTEM, history)
    assert full.startswith("<|im_start|>system\nYou are a friendly English tutor.")
    assert "The learner is happy." in full and full.endswith("<|im_start|>assistant\n")
    short = chat_prompt(tokenizer, SYSTEM, history, max_prompt_tokens=120)
    assert "the latest question" in short and "old message number 0" not in short
    assert len(tokenizer(short, add_special_tokens=False)["input_ids"]) <= 120
