"""Choose the tutor model from the settings (DESIGN.md, command-line contract).

`settings.llm.backend`: "anthropic" | "local" | "" (= anthropic when an API key is
configured in the environment or the OS keyring, else local). The anthropic model is
wrapped in `FallbackChatModel` when `settings.llm.fallback_to_local` is on, so a turn
the cloud cannot answer is answered locally (see fallback.py). Nothing heavy is
imported or loaded here: the local weights load on first use.
"""
from __future__ import annotations

import logging
from typing import Any

from tutor_app.errors import UsageError
from tutor_app.llm import keys

log = logging.getLogger(__name__)

BACKENDS = ("anthropic", "local")


def choose_backend(settings: Any) -> str:
    backend = (settings.llm.backend or "").strip().lower()
    if backend and backend not in BACKENDS:
        raise UsageError(f"unknown LLM backend '{settings.llm.backend}' (choose anthropic or local)")
    if backend:
        return backend
    return "anthropic" if keys.has_api_key() else "local"


def load_chat_model(settings: Any, registry: Any) -> Any:
    """A `ChatModel` for these settings; raises one clear TutorError when it cannot."""
    from tutor_app.llm.local_backend import load_local_chat_model

    backend = choose_backend(settings)
    if backend == "local":
        return load_local_chat_model(settings, registry)

    from tutor_app.llm.anthropic_backend import AnthropicChatModel, AnthropicOptions

    cloud = AnthropicChatModel(AnthropicOptions.from_settings(settings.llm))
    if not settings.llm.fallback_to_local:
        return cloud
    from tutor_app.llm.fallback import FallbackChatModel

    return FallbackChatModel(cloud, lambda: load_local_chat_model(settings, registry))
