"""Loading and warming up every model a live call needs before its first turn, so the
first reply is as quick as the rest. A failure here is only logged: the first real use
reports it properly."""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from tutor_app.startup import run_steps, warm_service


def warm_up(loop: Any) -> None:
    """`loop`: the CallLoop (its STT, speaker, judge and session)."""
    services = getattr(getattr(loop.session, "engine", None), "services", None)
    steps = [("speech recognition", lambda: loop.stt if loop.capture is not None else None),
             ("speech synthesis", lambda: loop.speaker.tts if loop.speaker.player is not None else None),
             ("end of turn", lambda: loop.judge),
             ("tutor model", lambda: _chat_model(services)),
             ("memory", lambda: getattr(services, "memory", None)),  # the embedder: seconds
             ("tutor prompt", lambda: _prefill(loop.session)),  # a local model reads the prompt's start
             ("emotion", lambda: getattr(services, "emotion", None))]
    run_steps([(name, partial(_warm, name, get)) for name, get in steps], traceback=False)


def _warm(name: str, get: Callable[[], Any]) -> None:
    service = get()
    if callable(getattr(service, "warm_up", None)):
        warm_service(service)
    elif name == "emotion" and service is not None:
        service.score("Hello.")  # no warm_up: one short text loads and runs it


def _chat_model(services: Any) -> Any:
    """The engine's tutor model (its first use imports the SDK and connects: seconds)."""
    factory = getattr(services, "chat_model", None)
    return factory() if callable(factory) else None


def _prefill(session: Any) -> None:
    prefill = getattr(session, "prefill_prompt", None)
    if callable(prefill):
        prefill()
