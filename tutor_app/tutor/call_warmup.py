"""Loading and warming up every model a live call needs before its first turn, so the
first reply is as quick as the rest. A failure here is only logged: the first real use
reports it properly."""
from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)


def warm_up(loop: Any) -> None:
    """`loop`: the CallLoop (its STT, speaker, judge and session)."""
    services = getattr(getattr(loop.session, "engine", None), "services", None)
    steps = [("speech recognition", lambda: loop.stt if loop.capture is not None else None),
             ("speech synthesis", lambda: loop.speaker.tts if loop.speaker.player is not None else None),
             ("end of turn", lambda: loop.judge),
             ("tutor model", lambda: _chat_model(services)),
             ("memory", lambda: getattr(services, "memory", None)),  # the embedder: seconds
             ("emotion", lambda: getattr(services, "emotion", None))]
    for name, get in steps:
        try:
            service = get()
            warm = getattr(service, "warm_up", None)
            if warm is not None:
                warm()
            elif name == "emotion" and service is not None:
                service.score("Hello.")
        except Exception as exc:  # noqa: BLE001
            log.warning("loading/warming up %s failed: %s", name, exc)


def _chat_model(services: Any) -> Any:
    """The engine's tutor model (its first use imports the SDK and connects: seconds)."""
    factory = getattr(services, "chat_model", None)
    return factory() if callable(factory) else None
