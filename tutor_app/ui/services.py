"""What the window needs from the rest of the app, as plain callables (no Qt here).

`UiServices.from_app(app)` wires the real services from the composition root; tests
build a `UiServices` with fakes. Every callable here may block and is only ever called
from a worker thread by the UI.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QCoreApplication

from tutor_app.settings import Settings
from tutor_app.settings_store import SettingsStore, store_for
from tutor_app.startup import warm_service
from tutor_app.ui.tr_mark import QT_TRANSLATE_NOOP

log = logging.getLogger(__name__)

WarmStep = tuple[str, Callable[[], Any]]  # (what the learner reads, work)


class KeyStore:
    """The Anthropic API key in the OS keyring (tutor_app.llm.keys), or with no keyring in
    this process's memory for this run; never in a file."""

    def get(self) -> str | None:
        from tutor_app.llm import keys

        return keys.get_api_key()

    def set(self, key: str) -> bool:
        """True: saved in the keyring. False: no keyring, kept for this run only (keep_hint)."""
        from tutor_app.llm import keys

        return keys.store_api_key(key)

    def keep_hint(self) -> str:
        from tutor_app.llm import keys

        return keys.KEEP_HINT

    def delete(self) -> bool:
        from tutor_app.llm import keys

        return keys.delete_api_key()

    def source(self) -> str:
        from tutor_app.llm import keys

        return keys.key_source()


def test_anthropic_key(key: str, model: str) -> str:
    """One tiny real request with `key`; returns a one-line OK or raises a TutorError."""
    from tutor_app.errors import TutorError

    try:
        import anthropic

        client = anthropic.Anthropic(api_key=key, max_retries=0, timeout=anthropic.Timeout(15.0, connect=5.0))
        client.messages.create(model=model, max_tokens=1, messages=[{"role": "user", "content": "hi"}])
    except TutorError:
        raise
    except Exception as exc:  # noqa: BLE001 - mapped to one line below
        try:
            from tutor_app.llm.anthropic_backend import map_api_error

            raise map_api_error(exc) from None
        except ImportError:
            raise TutorError(f"the key test failed: {type(exc).__name__}") from None
    return QCoreApplication.translate("ApiKeyField", "The key works (%1).").replace("%1", model)


@dataclass(frozen=True)
class AudioDevices:
    inputs: list[str]
    outputs: list[str]
    default_input: str = ""
    default_output: str = ""


def list_audio_devices() -> AudioDevices:
    """Device names PortAudio sees (sounddevice imported here, not at startup)."""
    from tutor_app.speech.sound_devices import list_devices

    devices = list_devices()
    return AudioDevices([d.name for d in devices if d.inputs > 0], [d.name for d in devices if d.outputs > 0],
                        next((d.name for d in devices if d.default_input), ""),
                        next((d.name for d in devices if d.default_output), ""))


def test_audio(input_name: str, output_name: str, progress: Callable[[int, int, str], None],
               seconds: float = 3.0) -> str:
    """Record `seconds` from the microphone, then play it back; returns a one-line verdict."""
    import numpy as np

    from tutor_app.speech.sound_devices import load_sounddevice, resolve_device

    sd = load_sounddevice()
    mic = resolve_device(sd, input_name, "input")
    out = resolve_device(sd, output_name, "output")
    rate = int(sd.query_devices(mic if mic is not None else sd.default.device[0], "input")["default_samplerate"])
    progress(0, 2, QCoreApplication.translate("AudioTest", "recording: say something"))
    audio = sd.rec(int(seconds * rate), samplerate=rate, channels=1, dtype="float32", device=mic)
    sd.wait()
    level = float(np.sqrt(np.mean(np.square(audio)))) if audio.size else 0.0
    progress(1, 2, QCoreApplication.translate("AudioTest", "playing it back"))
    sd.play(audio, rate, device=out)
    sd.wait()
    progress(2, 2, QCoreApplication.translate("AudioTest", "done"))
    if level < 1e-4:
        return QCoreApplication.translate("AudioTest", "The microphone recorded silence: check that it is not muted.")
    return QCoreApplication.translate("AudioTest", "Done. Did you hear yourself? If not, pick another speaker.")


def play_preview(sd: Any, tts: Any, text: str, output_name: str) -> None:
    """Speak `text` with `tts` on the speaker `output_name` names, picked as a call picks
    it (speech/sound_devices.resolve_device: "" = the system default)."""
    from tutor_app.speech.sound_devices import resolve_device

    device = resolve_device(sd, output_name, "output")
    audio = tts.synthesize_all(text)
    sd.play(audio, tts.sample_rate, device=device)
    sd.wait()


@dataclass
class UiServices:
    settings: Settings
    registry: Callable[[], Any]  # -> ModelRegistry
    make_backend: Callable[[], Any] | None = None  # -> call backend (see ui/bridge.py)
    warm_up_steps: Callable[[], list[WarmStep]] = lambda: []
    memory: Callable[[str], Any] | None = None  # profile -> MemorySource (ui/memory_source.py)
    practice: Callable[[], Any] | None = None  # -> PracticeSource of the current profile (ui/practice_page.py)
    past_reports: Callable[[], list[dict[str, Any]]] = lambda: []
    # Waits for this start's recovery (after the warm-up started it); the reports of the
    # calls a crash had cut off, now finished (tutor/recovery.py), each given once.
    lost_calls: Callable[[], list[dict[str, Any]]] = lambda: []
    keys: KeyStore = field(default_factory=KeyStore)
    test_key: Callable[[str, str], str] = test_anthropic_key
    install: Callable[..., Any] | None = None  # registry.install.install(registry, name, progress, cancel)
    compute: Callable[[], str] = lambda: ""  # "CPU (int8)" / "GPU (CUDA, float16)"
    recommend: Callable[[], Any] | None = None  # -> registry.recommend.Recommendation for this machine
    # (text, voice, output device) -> speak a sample with the voice and speaker chosen in the dialog
    tts_preview: Callable[[str, str, str], None] | None = None
    on_profile_changed: Callable[[str], None] = lambda name: None
    audio_devices: Callable[[], AudioDevices] = list_audio_devices
    audio_test: Callable[..., str] = test_audio  # (input, output, progress) -> verdict
    tutor: Callable[[], Any] | None = None  # -> llm.active.ActiveTutor: which tutor model answers

    @property
    def settings_store(self) -> SettingsStore:
        """Every change the windows make goes through it (saved once, seen everywhere)."""
        return store_for(self.settings)

    @classmethod
    def from_app(cls, app) -> "UiServices":
        from tutor_app.llm.recommend import recommend_llm
        from tutor_app.registry.install import install
        from tutor_app.ui.memory_source import StoreMemorySource

        def registry():
            return app.registry

        def make_backend():
            # The lead's call controller; missing in early builds -> a clear banner.
            from tutor_app.call.controller import CallController

            return CallController(app, greet=True)  # the tutor speaks first (not in a typed chat)

        def warm_up_steps() -> list[WarmStep]:
            return [
                (QT_TRANSLATE_NOOP("Startup", "speech recognition"), lambda: warm_service(app.stt)),
                (QT_TRANSLATE_NOOP("Startup", "voice"), lambda: warm_service(app.tts)),
                (QT_TRANSLATE_NOOP("Startup", "emotion reader"), lambda: warm_service(app.emotion)),
                (QT_TRANSLATE_NOOP("Startup", "memory"), lambda: (warm_service(app.embedder), app.memory)),
                # The cloud client too (its SDK import takes seconds): the greeting's follow-up
                # question and the first turn need not pay it; a local model loads in the call.
                (QT_TRANSLATE_NOOP("Startup", "tutor model"), lambda: warm_service(getattr(app.chat_model, "primary", None))),
                # The tutor is ready; unfinished calls of earlier runs finish in the background.
                (QT_TRANSLATE_NOOP("Startup", "tutor"), lambda: (app.engine, app.recover_calls())),
            ]

        def memory(profile: str):
            return StoreMemorySource.for_app(app, profile)

        def past_reports() -> list[dict[str, Any]]:
            return [c.report for c in app.memory.calls() if c.report]

        told: set[str] = set()

        def lost_calls() -> list[dict[str, Any]]:
            recovery = app.recovery
            if recovery is None:
                return []
            recovery.close()  # waits: the reports exist once their calls are finished
            fresh = [r for r in recovery.lost_reports() if r.get("session_id") not in told]
            told.update(r.get("session_id") for r in fresh)
            return fresh

        def compute() -> str:
            choice = app.devices
            return f"{'GPU (CUDA)' if choice.device == 'cuda' else 'CPU'}, {choice.compute_type}"

        def tts_preview(text: str, voice: str, output: str) -> None:
            from dataclasses import replace

            from tutor_app.speech.sound_devices import load_sounddevice
            from tutor_app.speech.tts import load_tts

            settings = app.settings
            if voice and voice != settings.speech.tts_voice:  # picked in the dialog, not saved yet
                tts = load_tts(replace(settings, speech=replace(settings.speech, tts_voice=voice)), app.registry)
            else:
                tts = app.tts
            play_preview(load_sounddevice(), tts, text, output)

        def on_profile_changed(name: str) -> None:
            # Rebinding the live services to another profile belongs to the composition
            # root; without it the switch takes effect at the next start (settings saved).
            switch = getattr(app, "switch_profile", None)
            if callable(switch):
                switch(name)

        return cls(settings=app.settings, registry=registry, make_backend=make_backend,
                   warm_up_steps=warm_up_steps, memory=memory, past_reports=past_reports, lost_calls=lost_calls,
                   practice=lambda: app.practice,
                   install=install, compute=compute, tts_preview=tts_preview,
                   recommend=lambda: recommend_llm(app.registry),
                   on_profile_changed=on_profile_changed, tutor=app.active_tutor)
