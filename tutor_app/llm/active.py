"""Which tutor model answers, in words for the learner (the call screen's header), read
from the settings the way llm/factory.py chooses: nothing is loaded or contacted."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tutor_app.errors import UsageError
from tutor_app.llm import keys
from tutor_app.llm.factory import DEFAULT_LOCAL_MODEL, choose_backend

if TYPE_CHECKING:
    from tutor_app.settings import Settings

CLOUD, OFFLINE, SERVER = "cloud", "offline", "server"


@dataclass(frozen=True)
class ActiveTutor:
    kind: str  # cloud | offline | server (a local OpenAI-compatible server)
    label: str  # "Claude (claude-haiku-4-5)", "Offline tutor: basic"
    detail: str = ""  # one sentence for a tooltip: the fallback, a missing key

    @property
    def offline(self) -> bool:
        return self.kind != CLOUD


def active_tutor(settings: Settings) -> ActiveTutor:
    llm = settings.llm
    try:
        backend = choose_backend(settings)
    except UsageError as exc:
        return ActiveTutor(OFFLINE, "Tutor model: not set up", str(exc))
    fallback = "; the offline tutor answers when the connection is slow or down" if llm.fallback_to_local else ""
    if backend == "anthropic":
        label = f"Claude ({llm.anthropic_model})"
        if not keys.has_api_key():
            return ActiveTutor(CLOUD, label, "No Claude API key is set: add one in Settings" + fallback + ".")
        return ActiveTutor(CLOUD, label, "Cloud tutor: your words go to Anthropic" + fallback + ".")
    local = offline_name(llm.local_model)
    if (llm.local_server_url or "").strip():
        model = llm.local_server_model or llm.local_server_url
        return ActiveTutor(SERVER, f"Local server: {model}", "A model server on this machine"
                           + (f"; else the offline tutor ({local})." if llm.fallback_to_local else "."))
    return ActiveTutor(OFFLINE, f"Offline tutor: {local}",
                       "Runs on this computer; nothing leaves it. A larger model on the Models page answers better.")


def offline_name(model: str) -> str:
    """"basic" for the bundled small model, else the model's name (or file name)."""
    name = (model or DEFAULT_LOCAL_MODEL).strip()
    if name == DEFAULT_LOCAL_MODEL:
        return "basic"
    return Path(name).name if ("/" in name or name.endswith(".gguf")) else name
