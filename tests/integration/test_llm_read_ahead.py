"""The next turn's prompt read ahead while the learner answers (llm/read_ahead.py), on real
llama.cpp with the bundled SmolLM2-135M GGUF, greedy: after a read ahead a turn evaluates
only its own line (llama.cpp's own counters), a wrong guess changes no reply, and the
engine's guess is the prompt its next turn really sends - on and off the record, across the
small model's stepped history window."""
from __future__ import annotations

from pathlib import Path

import pytest

from tutor_app.core.types import ChatMessage
from tutor_app.llm.factory import resolve_gguf
from tutor_app.llm.llama_backend import LlamaChatModel, LlamaOptions
from tutor_app.paths import default_models_dir
from tutor_app.registry.manifest import ModelRegistry
from tutor_app.settings import TutorSettings
from tutor_app.tutor.engine import NEXT_LINE
from tutor_app.tutor.prompts import Prompt, PromptInputs, build_compact_prompt

pytestmark = pytest.mark.slow

LINES = ["Hi! My name is Minji and I work at a bank.", "Yesterday I go to the cinema with my friend.",
         "The movie was very interest and a little scary.", "After the movie we eat spicy noodles."]
TEMPLATE_TOKENS = 8  # the chat template's end of the line and the assistant's opening


@pytest.fixture(scope="module")
def gguf() -> Path:
    return resolve_gguf("smollm2-135m-instruct", ModelRegistry.load(default_models_dir()))


def _model(gguf: Path) -> LlamaChatModel:
    return LlamaChatModel(gguf, LlamaOptions(max_tokens=12, device="cpu"))


def _prompt(text: str, history: list[ChatMessage], turn: int) -> Prompt:
    return build_compact_prompt(PromptInputs(tutor=TutorSettings(), user_text=text, history=history), turn=turn)


def _reply(model: LlamaChatModel, prompt: Prompt) -> str:
    return "".join(model.stream(prompt.system_parts, prompt.messages))


def _tokens(model: LlamaChatModel, text: str) -> int:
    return len(model.load().tokenize(text.encode("utf-8"), add_bos=False))


def test_after_a_read_ahead_a_turn_evaluates_only_its_line(gguf):
    model, fresh = _model(gguf), _model(gguf)
    try:
        history: list[ChatMessage] = []
        for turn, line in enumerate(LINES):
            if turn:
                ahead = _prompt(NEXT_LINE, history, turn)
                model.read_ahead(ahead.system_parts, ahead.messages)
                assert model.wait_read_ahead(60)
            prompt = _prompt(line, history, turn)
            reply = _reply(model, prompt)
            stats = model.last_prompt
            assert stats is not None
            if turn:  # the history (and, on even turns, its new window) was read ahead
                assert stats.evaluated <= _tokens(model, line) + TEMPLATE_TOKENS, (turn, stats)
            assert reply == _reply(fresh, prompt)  # the same words as a model that read it all
            history += [ChatMessage("user", line), ChatMessage("assistant", reply.strip() or "Tell me more.")]
    finally:
        model.close()
        fresh.close()


def test_a_wrong_guess_costs_time_and_changes_no_reply(gguf):
    model, fresh = _model(gguf), _model(gguf)
    try:
        guess = _prompt(NEXT_LINE, [ChatMessage("user", "I like tea."), ChatMessage("assistant", "Oh, why?")], 1)
        model.read_ahead(guess.system_parts, guess.messages)
        assert model.wait_read_ahead(60)
        prompt = _prompt(LINES[1], [ChatMessage("user", LINES[0]), ChatMessage("assistant", "Nice to meet you!")], 1)
        assert _reply(model, prompt) == _reply(fresh, prompt)
        stats = model.last_prompt
        assert stats is not None and stats.evaluated > _tokens(model, LINES[1]) + TEMPLATE_TOKENS  # read itself
    finally:
        model.close()
        fresh.close()


@pytest.mark.parametrize("off_record", [False, True])
def test_the_engine_reads_ahead_the_prompt_its_next_turn_sends(data_dir, off_record):
    """A call's turns on the app's own local model: after the first, each evaluates only its
    line - the engine guessed the window (the stored one, or the call's own off the record)
    and the small model's stepped window right."""
    from tutor_app.app import App
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings

    app = App(Settings.load(AppPaths.resolve(data_dir), llm_backend="local"))
    try:
        call = app.engine.start_call("ahead", off_record=off_record)
        model = app.engine.services.chat_model()
        assert isinstance(model, LlamaChatModel)
        for turn, line in enumerate(LINES):
            call.turn(line)
            stats = model.last_prompt
            assert stats is not None
            if turn:
                assert stats.evaluated <= _tokens(model, line) + TEMPLATE_TOKENS, (turn, stats)
            assert model.wait_read_ahead(60)
    finally:
        app.close()


def test_a_failed_read_ahead_costs_the_turn_nothing(data_dir, monkeypatch):
    from tutor_app.app import App
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings

    app = App(Settings.load(AppPaths.resolve(data_dir), llm_backend="local"))
    try:
        call = app.engine.start_call("ahead-fails")
        model = app.engine.services.chat_model()

        def refuse(system, messages):
            raise RuntimeError("llama.cpp refused")

        monkeypatch.setattr(model, "read_ahead", refuse)
        first = call.turn(LINES[0])
        second = call.turn(LINES[1])
        assert first.reply and second.reply and not second.error
        assert [t.user_text for t in call.turns] == LINES[:2]  # both kept
    finally:
        app.close()


def test_closing_the_app_ends_the_read_ahead_and_frees_the_model(data_dir):
    """A one-shot `call --input` exits right after its turn, while the read ahead reads: the
    app closes the model first, or the interpreter freed llama.cpp under the read ahead's
    thread (a segmentation fault at exit, 1 run in ~4)."""
    from tutor_app.app import App
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings

    app = App(Settings.load(AppPaths.resolve(data_dir), llm_backend="local"))
    call = app.engine.start_call("closing", off_record=True)
    model = app.engine.services.chat_model()
    assert isinstance(model, LlamaChatModel)
    call.turn(LINES[0])
    call.turn(LINES[1])  # a read ahead starts as each turn ends
    app.close()
    assert model.wait_read_ahead(0)  # ended when close() returned: no wait
    assert model._llama is None  # freed by the app, not by the interpreter at exit


def test_a_read_ahead_after_the_call_end_extraction_restores_the_start(gguf):
    """The extraction filled the context with another prompt: the read ahead takes the
    saved stable start back (llm/prefix_cache.py) and reads only the history after it."""
    from tutor_app.llm.prefix_cache import eval_counter
    from tutor_app.tutor import extract

    model = _model(gguf)
    try:
        history = [ChatMessage("user", LINES[0]), ChatMessage("assistant", "Nice to meet you, Minji!")]
        first = _prompt(LINES[0], [], 0)
        _reply(model, first)
        stable = model.last_prompt.stable_tokens if model.last_prompt else 0
        system, request = extract.extraction_request(history)
        model.complete_json(system, request, schema=extract.EXTRACTION_SCHEMA)
        ahead = _prompt(NEXT_LINE, history, 1)
        before = eval_counter(model.load())
        model.read_ahead(ahead.system_parts, ahead.messages)
        assert model.wait_read_ahead(60)
        read = eval_counter(model.load()) - before
        prompt = _prompt(LINES[1], history, 1)
        _reply(model, prompt)
        stats = model.last_prompt
        assert stable > 50 and stats is not None
        assert read <= stats.prompt_tokens - stable  # the start came back from the snapshot
        assert stats.evaluated <= _tokens(model, LINES[1]) + TEMPLATE_TOKENS
    finally:
        model.close()


def test_a_request_reads_its_prompt_on_the_cores_the_machine_has_free(gguf):
    """`Hardware.prompt_threads` is asked per request (all cores while the machine is quiet):
    the turn's line is read on them; a read ahead, beside the call's audio, on the plan's."""
    import dataclasses

    import llama_cpp

    from tutor_app.llm.offload import Hardware

    free = [2]
    hw = dataclasses.replace(Hardware.this_machine(), cpu_threads=lambda: 1, prompt_threads=lambda: free[0])
    model = LlamaChatModel(gguf, LlamaOptions(max_tokens=4, device="cpu"), hardware=hw)
    try:
        first = _prompt(LINES[0], [], 0)
        _reply(model, first)
        ctx = model.load().ctx
        assert (llama_cpp.llama_n_threads(ctx), llama_cpp.llama_n_threads_batch(ctx)) == (1, 2)
        history = [ChatMessage("user", LINES[0]), ChatMessage("assistant", "Nice to meet you!")]
        ahead = _prompt(NEXT_LINE, history, 1)
        model.read_ahead(ahead.system_parts, ahead.messages)
        assert model.wait_read_ahead(60)
        assert llama_cpp.llama_n_threads_batch(ctx) == 1
        free[0] = 1  # the machine got busy
        _reply(model, _prompt(LINES[1], history, 1))
        assert llama_cpp.llama_n_threads_batch(ctx) == 1
    finally:
        model.close()
