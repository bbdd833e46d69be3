"""Real bundled speech models, loaded once per test session (they take seconds each)."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def speech_settings(tmp_path_factory):
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings

    return Settings(paths=AppPaths.resolve(tmp_path_factory.mktemp("speech-data")))


@pytest.fixture(scope="session")
def registry(speech_settings):
    from tutor_app.registry.manifest import ModelRegistry

    return ModelRegistry.load(speech_settings.paths.models_dir)


@pytest.fixture(scope="session")
def vad(speech_settings, registry):
    from tutor_app.speech.vad import load_vad

    return load_vad(speech_settings, registry)


@pytest.fixture(scope="session")
def stt(speech_settings, registry, vad):
    from tutor_app.speech.devices import select_compute
    from tutor_app.speech.stt import load_stt

    speech = speech_settings.speech
    return load_stt(speech_settings, registry, select_compute(speech.stt_device, speech.stt_compute_type), vad=vad)


@pytest.fixture(scope="session")
def plain_transcript(stt):
    """plain_transcript(path) -> Whisper's transcript of a shared clip without a names list,
    decoded once a session: the WER bounds, the "not English" gate and the names list's
    no-worse check read the same decode of the same clip (greedy, so it does not vary)."""
    made = {}

    def transcript(path):
        if str(path) not in made:
            made[str(path)] = stt.transcribe(str(path))
        return made[str(path)]

    return transcript


@pytest.fixture(scope="session")
def tts(speech_settings, registry):
    from tutor_app.speech.tts import TtsOptions, load_tts

    # Deterministic: the same text gives the same samples, so round trips are repeatable.
    return load_tts(speech_settings, registry, TtsOptions(deterministic=True))


@pytest.fixture(scope="session")
def speech_clips(shared_data) -> list[dict[str, str]]:
    folder = Path(shared_data) / "speech"
    with (folder / "manifest.tsv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    for row in rows:
        row["path"] = str(folder / row["file"])
    return rows
