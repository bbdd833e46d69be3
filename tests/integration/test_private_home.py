"""Nothing is written under HOME outside the app's own folders, and what the app writes is
owner-only, even with a permissive umask (022): the everyday commands, real models, a
temporary HOME with the platform's default folders (no --data-dir)."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import Reply

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform != "linux", reason="XDG folders, POSIX modes")]

APP_FOLDERS = (".local/share/tutor-app", ".config/tutor-app", ".cache/tutor-app")


@pytest.fixture
def home(tmp_path, data_dir, monkeypatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("TUTOR_APP_DATA_DIR")  # the platform's folders, under HOME
    for key in list(os.environ):
        if key.startswith("XDG_") or key in ("HF_HOME", "ORT_DISABLE_TELEMETRY", "TORCH_HOME"):
            monkeypatch.delenv(key)
    return folder


def tutor(*args, input_text: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", *map(str, args)], capture_output=True, text=True,
                          env=dict(os.environ), input=input_text, timeout=300,
                          preexec_fn=lambda: os.umask(0o022))  # what most desktops use


def test_commands_write_only_private_files_in_the_app_folders(home, fake_anthropic, shared_data, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    fake_anthropic.push(Reply("Nice to meet you, Minji!"))
    runs = [
        tutor("transcribe", shared_data / "speech" / "pocketsphinx_goforward.wav"),
        tutor("speak", "Hello there.", "--output", out / "hello.wav"),
        tutor("--llm", "anthropic", "chat", "--session", "s1", "--text", "Hi, I'm Minji and I love tea."),
        tutor("emotion", "I am so happy today"),
        tutor("memory", "add", "The learner's exam is on May 3."),
        tutor("memory", "list"),
        tutor("memory", "search", "exam"),
        tutor("memory", "export", home / "export.jsonl"),
    ]
    for result in runs:
        assert result.returncode == 0, (result.args, result.stderr)

    allowed = [home / rel for rel in APP_FOLDERS]
    created = [p for p in home.rglob("*") if p.is_file() or p.is_symlink()]
    strays = [p for p in created if p != home / "export.jsonl" and not any(a in p.parents for a in allowed)]
    assert strays == [], "written outside the app's folders: " + ", ".join(str(p.relative_to(home)) for p in strays)

    loose = []
    for root in allowed:
        assert root.is_dir()
        for path in [root, *root.rglob("*")]:
            if path.is_symlink():
                continue
            mode = stat.S_IMODE(path.stat().st_mode)
            if mode != (0o700 if path.is_dir() else 0o600):
                loose.append(f"{path.relative_to(home)} {mode:o}")
    assert loose == []
    assert stat.S_IMODE((home / "export.jsonl").stat().st_mode) == 0o600
    assert stat.S_IMODE((out / "hello.wav").stat().st_mode) == 0o600
