"""Typed settings with defaults, stored as TOML in the config folder.

Built once (by the CLI or the GUI) and passed down; nothing else re-reads the file.
Unknown keys in the file are ignored with a warning so an older app can open a newer
file; values of the wrong type fall back to the default with a warning.

Command-line and environment overrides (`--profile`, `--llm`, TUTOR_APP_*) are for one
run: they are applied to the same object the app reads, but recorded in
`Settings.overrides`, so `save()` writes the file's own value back for them unless the
user has since changed that key in the app (then the user's choice is saved).
"""
from __future__ import annotations

import logging
import os
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
    ui_language: str = "system"  # the interface's: system (ko_KR -> Korean) | en | ko; read at start
    explain_in_korean: bool = False  # the call report explains corrections in Korean too (tutor/explain_ko.py)


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
    thinking_ms: int = 0  # longest wait through a mid-sentence pause, 500-5000; 0 = by level (call/pauses.py)
    adapt_thinking: bool = True  # let that wait follow the learner's own pauses
    speaking_rate: float = 0.0  # the tutor's speed, 0.6-1.5 x the voice's own; 0 = by level (tutor/rate.py)
    min_speech_ms: int = 250
    preroll_ms: int = 300
    barge_in: bool = True
    # A live call's speech recognition (call/transcripts.py): passes while the learner
    # speaks (LocalAgreement-2, speech/streaming.py) so only the last words are decoded at
    # the end; and the Whisper encoder's window for the call's decodes, 8-30 s (30: Whisper's
    # own; less: sized to the speech, at least this long - SttOptions.encoder_window_s).
    # 10 s by default (with 6 s after the speech, SttOptions.encoder_margin_s): ~250 ms
    # quicker per turn than 30, ~35 ms quicker than 15 s with 2 s after it, and no worse
    # in WER (`tutor-app bench stt-stream --window --margin`). A short window once made
    # Whisper write the "to" before a thinking pause as "2." ("Next month I am planning
    # 2."), which the turn's words now read as unfinished (speech/turn_words.py).
    stt_streaming: bool = False
    stt_call_window_s: float = 10.0

    # Bounds of the values above that have them; 0 (= by level) is always allowed.
    BOUNDS: ClassVar[dict[str, tuple[float, float]]] = {"thinking_ms": (500, 5000), "speaking_rate": (0.6, 1.5),
                                                        "stt_call_window_s": (8, 30)}

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
    enabled: bool = True  # False = memory paused (what that means in a call: memory_on below)
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


@dataclass(frozen=True)
class Override:
    """One value set for this run only, by the command line or the environment."""

    key: str  # "profile" or "section.name", e.g. "llm.backend"
    value: Any  # what the override set
    underneath: Any  # what the file (or the default) had: what a save writes instead


@dataclass(frozen=True)
class Overrides:
    """The run's overrides, kept apart from the values that belong in the file: one
    `tutor-app --llm local gui` must not make "local" the backend for good."""

    items: tuple[Override, ...] = ()

    def get(self, key: str) -> Override | None:
        return next((o for o in self.items if o.key == key), None)

    def keys(self) -> tuple[str, ...]:
        return tuple(o.key for o in self.items)

    def adding(self, key: str, value: Any, underneath: Any) -> "Overrides":
        return Overrides(tuple(o for o in self.items if o.key != key) + (Override(key, value, underneath),))

    def persisted(self, key: str, current: Any) -> Any:
        """The value to save for `key`. Still the override's value: the user did not choose
        it, so the file keeps what it had. Changed since (another backend picked in the
        Settings window, a profile chosen in the memory panel): the user's choice."""
        override = self.get(key)
        if override is not None and current == override.value:
            return override.underneath
        return current

    def still_active(self, settings: "Settings") -> "Overrides":
        """Without the overrides the user has replaced by a choice of their own: once saved,
        that key is theirs, so changing it back to the override's value later is saved too."""
        return Overrides(tuple(o for o in self.items if _get(settings, o.key) == o.value))


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
    # What this run's command line / environment changed (never written to the file).
    overrides: Overrides = field(default_factory=Overrides, repr=False)

    # Sections stored in the settings file, with `profile` (the last one chosen in the app);
    # paths and debug come from the command line only.
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
            from tutor_app.settings_check import read_settings_file

            # checked first: a damaged file is set aside, named once, and what it held in good
            # order is kept (settings_check.py)
            settings = settings._with_file_values(read_settings_file(paths.settings_file, settings, cls.SECTIONS))
        # An argument wins over the environment, which wins over the file.
        for key, value in (
            ("profile", profile or os.environ.get(ENV_PROFILE)),
            ("llm.backend", llm_backend or os.environ.get(ENV_LLM)),
            ("llm.anthropic_model", os.environ.get(ENV_ANTHROPIC_MODEL)),
        ):
            if key == "llm.backend" and value and value not in LLM_BACKENDS:
                log.warning("%s=%r is not one of %s: ignored", ENV_LLM, value, ", ".join(LLM_BACKENDS))
                continue
            if value:  # an empty variable means "not set", as it always has
                settings.overrides = settings.overrides.adding(key, value, _get(settings, key))
                _set(settings, key, value)
        return settings

    def _with_file_values(self, data: dict[str, Any]) -> "Settings":
        updated = self
        for name in self.SECTIONS:
            section = data.get(name)
            if isinstance(section, dict):
                updated = replace(updated, **{name: _merge(getattr(self, name), section, name)})
        if isinstance(data.get("profile"), str) and data["profile"]:
            updated.profile = data["profile"]
        return updated

    def to_dict(self) -> dict[str, Any]:
        """What the file holds: the values that differ from the defaults (except those still
        set by an override). A value left at its default is not written, so a later
        version's better default reaches the learner: a file that pinned every value kept
        an old encoder window after the default changed."""
        out: dict[str, Any] = {"profile": self.profile}
        for name in self.SECTIONS:
            out[name] = asdict(getattr(self, name))
        for key in self.overrides.keys():
            *section, name = key.split(".")
            target = out[section[0]] if section else out
            target[name] = self.overrides.persisted(key, target[name])
        for name in self.SECTIONS:
            default = asdict(type(getattr(self, name))())
            out[name] = {k: v for k, v in out[name].items() if default.get(k) != v}
        return out

    def save(self) -> Path:
        import tomli_w

        target = self.paths.settings_file
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".tmp")
        tmp.write_bytes(tomli_w.dumps(self.to_dict()).encode("utf-8"))
        os.replace(tmp, target)  # atomic: a crash never leaves half a settings file
        self.overrides = self.overrides.still_active(self)
        return target


def memory_on(settings: Settings, off_record: bool = False) -> bool:
    """The one "pause memory" rule: what the learner says is remembered iff the call was
    not started off the record and memory is not paused *when it is said*.

    Each turn is judged at its own moment, never at the call's start or end: pausing
    mid-call keeps nothing from that turn on; resuming keeps from then on and never brings
    back what was said while paused (it was never stored). The call's end works only on
    what was kept (the stored lines) and does not read the setting again, so pausing or
    resuming just before hanging up changes nothing about the earlier turns. The engine
    (Conversation.memory_on), the call end (tutor/lifecycle.py) and the UI ("memory paused")
    all follow this function."""
    return not off_record and settings.memory.enabled


# Keys older versions wrote that mean nothing now (ignored without a warning).
RETIRED = {"speech.word_timestamps"}  # always on: the call report's fluency needs word timings


def _get(settings: Settings, key: str) -> Any:
    """The value of a dotted key ("profile", "llm.backend")."""
    value: Any = settings
    for part in key.split("."):
        value = getattr(value, part)
    return value


def _set(settings: Settings, key: str, value: Any) -> None:
    *parents, name = key.split(".")
    setattr(_get(settings, ".".join(parents)) if parents else settings, name, value)


def _merge(current: Any, values: dict[str, Any], section: str) -> Any:
    assert is_dataclass(current) and not isinstance(current, type)
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
