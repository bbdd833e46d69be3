"""Choose the tutor model from the settings (DESIGN.md, command-line contract).

`settings.llm.backend`: "anthropic" | "local" | "" (= anthropic when an API key is
configured in the environment or the OS keyring, else local). "local" means llama.cpp
running a GGUF inside the app, or, when `llm.local_server_url` is set, an
OpenAI-compatible server on this machine (Ollama, LM Studio, llama.cpp's server).
With `llm.fallback_to_local` on, a remote model (Claude, or that server) is wrapped in
`FallbackChatModel`: a turn it cannot answer at all is answered by the next model down
(Claude -> local; server -> the bundled GGUF). Nothing heavy is imported or loaded here:
the weights load on first use.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from tutor_app.errors import ModelMissingError, UsageError
from tutor_app.llm import keys

if TYPE_CHECKING:
    from tutor_app.llm.fallback import FallbackChatModel
    from tutor_app.llm.llama_backend import LlamaChatModel
    from tutor_app.llm.openai_server import OpenAIServerChatModel
    from tutor_app.registry.manifest import ModelRegistry
    from tutor_app.settings import Settings

log = logging.getLogger(__name__)

BACKENDS = ("anthropic", "local")
DEFAULT_LOCAL_MODEL = "smollm2-135m-instruct"
INSTALL_HINT = f"run `tutor-app models install {DEFAULT_LOCAL_MODEL}`"


def choose_backend(settings: Settings) -> str:
    backend = (settings.llm.backend or "").strip().lower()
    if backend and backend not in BACKENDS:
        raise UsageError(f"unknown LLM backend '{settings.llm.backend}' (choose anthropic or local)")
    if backend:
        return backend
    return "anthropic" if keys.has_api_key() else "local"


def load_chat_model(settings: Settings, registry: ModelRegistry) -> FallbackChatModel | LlamaChatModel | OpenAIServerChatModel:
    """A `ChatModel` (core.protocols; app.py has mypy check each of these against it) for
    these settings; raises one clear TutorError when it cannot."""
    if choose_backend(settings) == "local":
        return load_local(settings, registry)

    from tutor_app.llm.anthropic_backend import AnthropicChatModel, AnthropicOptions
    from tutor_app.llm.fallback import FallbackChatModel

    cloud = AnthropicChatModel(AnthropicOptions.from_settings(settings.llm))
    # Without a local fallback the wrapper still keeps the voice turn's budget (and then
    # raises the cloud's error, which the learner hears as a short apology).
    return FallbackChatModel(cloud, (lambda: load_local(settings, registry)) if settings.llm.fallback_to_local
                             else None, first_token_s=float(settings.llm.first_token_budget_s))


def load_local(settings: Settings, registry: ModelRegistry) -> FallbackChatModel | LlamaChatModel | OpenAIServerChatModel:
    """The local server when one is configured (falling back to the GGUF), else the GGUF."""
    llm = settings.llm
    if not (llm.local_server_url or "").strip():
        return load_llama(settings, registry)
    from tutor_app.llm.openai_server import OpenAIServerChatModel, ServerOptions

    server = OpenAIServerChatModel(ServerOptions(
        base_url=llm.local_server_url, model=llm.local_server_model, max_tokens=int(llm.max_tokens),
        timeout_s=max(float(llm.timeout_s), 1.0)))
    if not llm.fallback_to_local:
        return server
    from tutor_app.llm.fallback import FallbackChatModel

    return FallbackChatModel(server, lambda: load_llama(settings, registry),
                             first_token_s=float(llm.first_token_budget_s))


def load_llama(settings: Settings, registry: ModelRegistry) -> LlamaChatModel:
    from tutor_app.llm.llama_backend import LlamaChatModel, LlamaOptions

    llm = settings.llm
    path = resolve_gguf(llm.local_model, registry)
    return LlamaChatModel(path, LlamaOptions(
        max_tokens=int(llm.max_tokens), n_ctx=int(llm.local_context), device=llm.local_device,
        threads=int(llm.local_threads), smaller_model=DEFAULT_LOCAL_MODEL))


def resolve_gguf(name: str, registry: ModelRegistry) -> Path:
    """The GGUF file for `settings.llm.local_model`: a registry name, a .gguf path, or a
    folder (given, or in the models dir) holding one."""
    name = (name or DEFAULT_LOCAL_MODEL).strip()
    try:
        spec = registry.get(name)
    except UsageError:
        spec = None
    if spec is not None:
        if spec.role != "llm-local":
            raise UsageError(f"model '{name}' is a {spec.role} model, not a local LLM")
        folder = Path(registry.path(name))  # ModelMissingError names the install command
        wanted = [Path(f).name for f in (*spec.files, *spec.hub_files) if f.endswith(".gguf")]
        found = _gguf_in(folder, wanted)
        if found is None:
            raise ModelMissingError(f"model '{name}' in {folder} has no GGUF file (an install from an older "
                                    f"version?): run `tutor-app models install {name} --force`")
        return found
    for candidate in (Path(name).expanduser(), Path(registry.models_dir) / name):
        if candidate.is_file() and candidate.suffix == ".gguf":
            return candidate
        if candidate.is_dir():
            found = _gguf_in(candidate, [])
            if found is not None:
                return found
    raise ModelMissingError(f"local LLM '{name}' not found (no .gguf file): {INSTALL_HINT}")


def _gguf_in(folder: Path, wanted: list[str]) -> Path | None:
    for rel in wanted:
        if (folder / rel).is_file():
            return folder / rel
    found = sorted(folder.glob("*.gguf"))
    return found[0] if found else None


def describe_local(settings: Settings, registry: ModelRegistry) -> tuple[bool, str, str]:
    """(ok, what the local backend will run and where, with the reason; what to do) for
    `doctor`: nothing is loaded, the GGUF header and the hardware are read."""
    from tutor_app.errors import TutorError

    llm = settings.llm
    if (llm.local_server_url or "").strip():
        from tutor_app.llm.openai_server import OpenAIServerChatModel, ServerOptions

        try:
            server = OpenAIServerChatModel(ServerOptions(llm.local_server_url, llm.local_server_model, timeout_s=3))
            models = server.list_models()
        except TutorError as exc:
            return False, f"local server: {exc}", \
                "start the server, or clear llm.local_server_url to use the bundled model"
        model = llm.local_server_model or (models[0] if models else "(none listed)")
        return True, f"local model: server {server.url}, model {model}", ""
    from tutor_app.llm.llama_backend import LlamaChatModel
    from tutor_app.llm.offload import Hardware, check_memory

    try:
        chat = load_llama(settings, registry)
        info, plan = chat.inspect()
        check_memory(info, chat.n_ctx_for(info), plan, Hardware.this_machine(), DEFAULT_LOCAL_MODEL)
    except TutorError as exc:
        return False, f"local model: {exc}", f"tutor-app models install {DEFAULT_LOCAL_MODEL}"
    assert isinstance(chat, LlamaChatModel)
    size = info.size_bytes / (1 << 20)
    return True, f"local model: {chat.path.name} ({size:.0f} MB) via llama.cpp on {plan.describe()}", ""
