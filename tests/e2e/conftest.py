"""End-to-end live calls on the virtual sound card (scripts/virtual-audio.sh): a WAV is
played into the virtual microphone (`micsrc`), the app's speaker (`spk`) is recorded
from its monitor. Skipped with a reason when that sound card is not there."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.conftest import missing_prerequisite


def sound_card_problem() -> str | None:
    if not os.environ.get("TUTOR_APP_VIRTUAL_AUDIO"):
        return "no virtual sound card (run through scripts/test.sh, or source scripts/virtual-audio.sh)"
    for tool in ("paplay", "parecord", "pactl"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (pulseaudio-utils)"
    try:
        import sounddevice as sd

        devices = sd.query_devices()
    except Exception as exc:  # noqa: BLE001 - PortAudio missing or broken
        return f"sounddevice cannot list devices: {exc}"
    if not any(d["max_input_channels"] > 0 for d in devices):
        return "sounddevice lists no input device"
    return None


@pytest.fixture(scope="session")
def sound_card() -> None:
    problem = sound_card_problem()
    if problem:
        missing_prerequisite(problem)


@pytest.fixture(scope="session")
def models(tmp_path_factory, sound_card):
    """Whisper tiny.en, Piper and Silero, loaded once for the e2e session."""
    from tutor_app.app import App
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings

    app = App(Settings(paths=AppPaths.resolve(tmp_path_factory.mktemp("e2e-models"))))
    app.vad, app.stt, app.tts, app.embedder  # noqa: B018 - load now, not inside a timed test
    app.stt.warm_up()
    app.tts.warm_up()
    app.emotion  # noqa: B018 - the real emotion model, loaded once
    return app


@pytest.fixture
def call_app(models, fake_anthropic, data_dir):
    """An App on a fresh data dir whose tutor model is the fake Anthropic server, with
    the session's speech models; the real emotion model."""
    from tutor_app.app import App
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings

    settings = Settings.load(AppPaths.resolve(data_dir))
    settings.llm.backend = "anthropic"
    settings.llm.fallback_to_local = False  # a scripted failure must not load the local model
    settings.speech.audio_mode = "headset"  # null sinks look like speakers to "auto"
    app = App(settings)
    for name in ("vad", "stt", "tts", "embedder", "emotion"):
        setattr(app, name, getattr(models, name))  # loaded once per session
    app.engine  # noqa: B018 - opens the fresh memory store outside the test's own time
    yield app
    app.close()


@pytest.fixture
def learner_wav(models, tmp_path):
    """Piper speaks a learner sentence into a WAV (deterministic text, real speech)."""
    from tutor_app.speech.tts import write_wav

    def make(text: str, name: str = "learner.wav") -> Path:
        path = tmp_path / name
        write_wav(path, models.tts.synthesize_all(text), models.tts.sample_rate)
        return path

    return make


def play_into_mic(path: Path) -> subprocess.Popen:
    return subprocess.Popen(["paplay", "--device=micsrc", str(path)])


class SpeakerRecording:
    """parecord of the app's speaker; stop() ends it with SIGINT (a valid WAV)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.proc = subprocess.Popen(["parecord", "--device=spk.monitor", "--file-format=wav",
                                      "--rate=16000", "--channels=1", str(path)])

    def stop(self) -> Path:
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=10)
        return self.path



@pytest.fixture
def loopback(request, sound_card):
    """The virtual speaker looped back into the virtual microphone, like a laptop without a
    headset; `request.param` = (latency_ms, gain_db), default (30, 0.0). Parametrise with
    `@pytest.mark.parametrize("loopback", [(30, 0.0), (120, -10.0)], indirect=True)`."""
    from tutor_app.bench.loopback import Loopback

    latency_ms, gain_db = getattr(request, "param", (30, 0.0))
    with Loopback(latency_ms, gain_db) as looped:
        yield looped
