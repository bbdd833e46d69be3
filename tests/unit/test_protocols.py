"""The seams (core/protocols.py and the packages' ports.py) hold: each real class still has every member its
Protocol names, with a call signature the engine side can use. mypy is the main check
(app.py hands the real classes to the typed EngineServices); this is the quick guard,
on the class objects only: no model, voice or database is loaded."""
from __future__ import annotations

import inspect
from typing import Any

import pytest

from tutor_app.core import protocols as P
from tutor_app.memory.ports import MemoryStore
from tutor_app.practice.ports import PracticeBook
from tutor_app.speech.ports import SpeechToText, TurnJudge

_PROTOCOL_NOISE = {"_is_protocol", "_is_runtime_protocol", "__protocol_attrs__", "__non_callable_proto_members__"}


def protocol_members(proto: type) -> dict[str, Any]:
    """Name -> the Protocol's own definition (function, property, or None for a data
    member known only by its annotation)."""
    members: dict[str, Any] = {}
    for klass in reversed(proto.__mro__):
        if klass in (object,) or not getattr(klass, "_is_protocol", False) or klass.__module__ == "typing":
            continue
        for name in getattr(klass, "__annotations__", {}):
            members.setdefault(name, None)
        for name, value in vars(klass).items():
            if name in _PROTOCOL_NOISE or (name.startswith("_") and name != "__call__"):
                continue
            members[name] = value
    return members


def _has_data_member(cls: type, name: str) -> bool:
    """A data member: a class attribute, an annotation, or set as `self.name = ...`."""
    for klass in cls.__mro__:
        if klass is object:
            continue
        if name in vars(klass) or name in getattr(klass, "__annotations__", {}):
            return True
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        if f"self.{name} =" in source or f"self.{name}: " in source:
            return True
    return False


def signature_problems(expected: Any, got: Any) -> list[str]:
    """Why `got` cannot be called the way the Protocol's `expected` may be called."""
    want = list(inspect.signature(expected).parameters.values())[1:]  # without self
    have_all = list(inspect.signature(got).parameters.values())[1:]
    have = {p.name: p for p in have_all}
    var_kw = any(p.kind is p.VAR_KEYWORD for p in have_all)
    positional = [p.name for p in have_all if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    problems = []
    for i, p in enumerate(want):
        if p.kind is p.VAR_KEYWORD:
            if not var_kw:
                problems.append("takes no **kwargs")
            continue
        q = have.get(p.name)
        if q is None:
            if not (var_kw and p.kind is p.KEYWORD_ONLY):
                problems.append(f"has no parameter '{p.name}'")
            continue
        if p.kind is p.POSITIONAL_OR_KEYWORD and (i >= len(positional) or positional[i] != p.name):
            problems.append(f"'{p.name}' is not positional parameter {i + 1}")
        if p.default is not p.empty and q.default is q.empty:
            problems.append(f"'{p.name}' has no default")
    named = {p.name for p in want}
    for q in have_all:
        if q.default is q.empty and q.kind not in (q.VAR_POSITIONAL, q.VAR_KEYWORD) and q.name not in named:
            problems.append(f"needs '{q.name}', which the seam never passes")
    return problems


def seam_problems(cls: type, proto: type) -> list[str]:
    problems = []
    for name, expected in protocol_members(proto).items():
        if expected is None:  # a data member
            if not _has_data_member(cls, name):
                problems.append(f"{name}: missing")
            continue
        got = inspect.getattr_static(cls, name, None)
        if got is None:
            problems.append(f"{name}: missing")
        elif isinstance(expected, property):
            if not isinstance(got, property) and not _has_data_member(cls, name):
                problems.append(f"{name}: not a property")
        elif not callable(got):
            problems.append(f"{name}: not a method")
        else:
            problems += [f"{name}: {p}" for p in signature_problems(expected, got)]
    return problems


def _real(module: str, name: str) -> type:
    import importlib

    return getattr(importlib.import_module(module), name)


SEAMS = [
    ("tutor_app.memory.storage.store", "ProfileMemory", MemoryStore),
    ("tutor_app.practice.store", "PracticeStore", PracticeBook),
    ("tutor_app.speech.stt", "WhisperStt", SpeechToText),
    ("tutor_app.speech.tts", "PiperTts", P.TextToSpeech),
    ("tutor_app.llm.anthropic_backend", "AnthropicChatModel", P.ChatModel),
    ("tutor_app.llm.llama_backend", "LlamaChatModel", P.ChatModel),
    ("tutor_app.llm.llama_backend", "LlamaChatModel", P.ReadsAhead),
    ("tutor_app.llm.openai_server", "OpenAIServerChatModel", P.ChatModel),
    ("tutor_app.llm.fallback", "FallbackChatModel", P.ChatModel),
    ("tutor_app.emotion.builtin", "BuiltinScorer", P.EmotionScorer),
    ("tutor_app.emotion.hf", "TransformersScorer", P.EmotionScorer),
    ("tutor_app.memory.embedder", "SentenceEmbedder", P.Embedder),
    ("tutor_app.call.listen.judge", "EndOfTurnJudge", TurnJudge),
]


@pytest.mark.parametrize(("module", "name", "proto"), SEAMS, ids=[f"{n}-{p.__name__}" for _, n, p in SEAMS])
def test_real_class_satisfies_its_seam(module: str, name: str, proto: type) -> None:
    assert protocol_members(proto), f"{proto.__name__} names no members"
    problems = seam_problems(_real(module, name), proto)
    assert not problems, f"{name} does not satisfy {proto.__name__}:\n" + "\n".join(problems)


def test_memory_store_names_what_the_engine_side_calls() -> None:
    """The seam was once missing most of these: the engine, session memory and call end
    call them on `services.memory`."""
    used = {"profile", "embedder", "add", "recall", "index", "add_message", "session_messages",
            "record_call", "calls", "update_call", "on_forget", "profile_view"}
    assert used <= set(protocol_members(MemoryStore))


def test_the_guard_can_fail() -> None:
    class Partial:
        name = "partial"

        def stream(self, system: str, messages: list, cancel: Any, extra: int) -> Any: ...

    problems = seam_problems(Partial, P.ChatModel)
    assert "complete_json: missing" in problems
    assert "stream: 'cancel' has no default" in problems
    assert "stream: needs 'extra', which the seam never passes" in problems
    assert seam_problems(type("NoName", (), {}), P.Embedder)[:2] == ["name: missing", "dim: missing"]
