"""Typed settings with defaults, stored as TOML in the config folder.

Built once (by the CLI or the GUI) and passed down; nothing else re-reads the file.
Unknown keys in the file are ignored with a warning so an older app can open a newer
file; values of the wrong type fall back to the default with a warning.
"""
from __future__ import annotations

import logging
import os
import tomllib
from dataclasses import asdict, dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from tutor_app.paths import AppPaths

log = logging.getLogger(__name__)

ACCENTS = ("us", "uk", "au")
LEVELS = ("beginner", "intermediate", "advanced")
LLM_BACKENDS = ("anthropic", "local")
ENV_PROFILE = "TUTOR_APP_PROFILE"
ENV_LLM = "TUTOR_APP_LLM"
ENV_ANTHROPIC_MODEL = "TUTOR_APP_ANTHROPIC_MODEL"


@dataclass
class TutorSettings:
    accent: str = "us"
    level: str = "intermediate"
    topic: str = "daily"


@dataclass
class SpeechSettings:
    stt_model: str = "whisper-tiny.en"
    stt_device: str = "auto"  # auto | cpu | cuda
    stt_compute_type: str = "auto"  # auto -> float16 on cuda, int8 on cpu
    language: str = "en"
    tts_voice: str = "piper-en_US-joe-medium"
    input_device: str = ""  # "" = system default
    output_device: str = ""
    audio_mode: str = "auto"  # auto (device names) | headset | speaker (echo cancelled) | gated (mic muted while the tutor speaks)
    silence_ms: int = 600  # end of turn by silence alone, when the end-of-turn model cannot load
    thinking_ms: int = 0  # longest wait through a mid-sentence pause, 500-5000; 0 = by level (tutor/pauses.py)
    adapt_thinking: bool = True  # let that wait follow the learner's own pauses
    speaking_rate: float = 0.0  # the tutor's speed, 0.6-1.5 x the voice's own; 0 = by level (tutor/rate.py)
    min_speech_ms: int = 250
    preroll_ms: int = 300
    barge_in: bool = True

    # Bounds of the values above that have them; 0 (= by level) is always allowed.
    BOUNDS: ClassVar[dict[str, tuple[float, float]]] = {"thinking_ms": (500, 5000), "speaking_rate": (0.6, 1.5)}

    def __post_init__(self) -> None:
        # A hand-edited file can hold any number: out of bounds falls back like a wrong type.
        for name, (low, high) in self.BOUNDS.items():
            value = getattr(self, name)
            if value and not low <= value <= high:
                log.warning("settings: speech.%s = %s is outside %s-%s, default kept", name, value, low, high)
                setattr(self, name, type(value)(0))


@dataclass
class LLMSettings:
    backend: str = ""  # "" = anthropic when a key is configured, else local
    anthropic_model: str = "claude-haiku-4-5"
    local_model: str = "smollm2-135m-instruct"  # a registry name, a models-dir folder or a .gguf path
    local_server_url: str = ""  # an OpenAI-compatible server (Ollama, LM Studio...); "" = llama.cpp in the app
    local_server_model: str = ""  # the server's model name; "" = the first it lists
    local_device: str = "auto"  # auto (GPU layers by free memory) | cpu | cuda
    local_context: int = 4096  # tokens of context for llama.cpp
    local_threads: int = 0  # 0 = one per physical core
    timeout_s: float = 30.0  # a batch request (call-end extraction); voice turns use the budget
    max_retries: int = 2
    max_tokens: int = 300
    fallback_to_local: bool = True
    first_token_budget_s: float = 4.0  # a voice turn's wait for the first word; then local/apology


@dataclass
class MemorySettings:
    enabled: bool = True
    embedder: str = "all-minilm-l6-v2"
    recall_top_k: int = 3
    stm_ttl_hours: float = 24.0
    cleanup_days: int = 30
    followup_similarity: float = 0.5


@dataclass
class EmotionSettings:
    model: str = "builtin"  # builtin | a transformers classifier folder name in models/
    checkin_enabled: bool = True
    crisis_enabled: bool = True


@dataclass
class Settings:
    paths: AppPaths
    profile: str = "default"
    debug: bool = False
    tutor: TutorSettings = field(default_factory=TutorSettings)
    speech: SpeechSettings = field(default_factory=SpeechSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    emotion: EmotionSettings = field(default_factory=EmotionSettings)

    # Sections stored in the settings file (paths, profile and debug come from the command line).
    SECTIONS = ("tutor", "speech", "llm", "memory", "emotion")

    @classmethod
    def load(
        cls,
        paths: AppPaths,
        profile: str | None = None,
        llm_backend: str | None = None,
        debug: bool = False,
    ) -> "Settings":
        settings = cls(paths=paths, debug=debug)
        if paths.settings_file.is_file():
            try:
                data = tomllib.loads(paths.settings_file.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                log.warning("ignoring unreadable settings file %s: %s", paths.settings_file, exc)
                data = {}
            settings = settings._with_file_values(data)
        settings.profile = profile or os.environ.get(ENV_PROFILE) or data_profile(settings) or "default"
        backend = llm_backend or os.environ.get(ENV_LLM)
        if backend:
            settings.llm.backend = backend
        model = os.environ.get(ENV_ANTHROPIC_MODEL)
        if model:
            settings.llm.anthropic_model = model
        return settings

    def _with_file_values(self, data: dict[str, Any]) -> "Settings":
        updated = self
        for name in self.SECTIONS:
            section = data.get(name)
            if isinstance(section, dict):
                updated = replace(updated, **{name: _merge(getattr(self, name), section, name)})
        if isinstance(data.get("profile"), str):
            updated._file_profile = data["profile"]  # type: ignore[attr-defined]
        return updated

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"profile": self.profile}
        for name in self.SECTIONS:
            out[name] = asdict(getattr(self, name))
        return out

    def save(self) -> Path:
        import tomli_w

        target = self.paths.settings_file
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".tmp")
        tmp.write_bytes(tomli_w.dumps(self.to_dict()).encode("utf-8"))
        os.replace(tmp, target)  # atomic: a crash never leaves half a settings file
        return target


# Keys older versions wrote that mean nothing now (ignored without a warning).
RETIRED = {"speech.word_timestamps"}  # always on: the call report's fluency needs word timings


def data_profile(settings: Settings) -> str | None:
    return getattr(settings, "_file_profile", None)


def _merge(current: Any, values: dict[str, Any], section: str) -> Any:
    assert is_dataclass(current)
    known = {f.name: f for f in fields(current)}
    changes: dict[str, Any] = {}
    for key, value in values.items():
        if key not in known:
            if f"{section}.{key}" not in RETIRED:
                log.warning("settings: unknown key %s.%s ignored", section, key)
            continue
        default = getattr(current, key)
        if isinstance(default, bool) != isinstance(value, bool) or (
            not isinstance(value, type(default)) and not (isinstance(default, float) and isinstance(value, int))
        ):
            log.warning("settings: %s.%s has the wrong type, default kept", section, key)
            continue
        changes[key] = float(value) if isinstance(default, float) else value
    return replace(current, **changes)
