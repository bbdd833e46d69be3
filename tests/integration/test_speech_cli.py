"""`tutor-app transcribe` and `tutor-app speak` as a user runs them (sub-processes)."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import soundfile as sf

pytestmark = pytest.mark.slow


def tutor(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tutor_app", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.fixture
def bad_files(tmp_path):
    garbage = tmp_path / "x.wav"
    garbage.write_bytes(bytes(range(256)) * 40)
    empty = tmp_path / "empty.wav"
    sf.write(empty, np.zeros(0, dtype=np.float32), 16000)
    return {"missing": tmp_path / "missing.wav", "corrupt": garbage, "empty": empty}


@pytest.mark.parametrize("kind, message", [
    ("missing", "no such file"), ("corrupt", "cannot read audio"), ("empty", "the audio is empty"),
])
def test_transcribe_bad_file_one_line_exit_1(data_dir, bad_files, kind, message):
    result = tutor("transcribe", bad_files[kind])
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and str(bad_files[kind]) in lines[0]
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_transcribe_json_keeps_going_past_bad_files(data_dir, shared_data, bad_files):
    good = [shared_data / "speech" / "pocketsphinx_goforward.wav", shared_data / "speech" / "whisper_jfk.flac"]
    result = tutor("transcribe", good[0], bad_files["corrupt"], good[1], "--json")
    assert result.returncode == 1  # one file failed
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["file"] for r in rows] == [str(g) for g in good]
    for row in rows:
        assert set(row) == {"file", "text", "language", "seconds"}
        assert row["language"] == "en" and isinstance(row["seconds"], float)
    assert rows[0]["text"] == "Go forward 10 meters."
    assert rows[1]["seconds"] == pytest.approx(11.0, abs=0.05)
    assert len(result.stderr.strip().splitlines()) == 1 and "x.wav" in result.stderr


def test_speak_then_transcribe(data_dir, tmp_path):
    out = tmp_path / "hello.wav"
    result = tutor("speak", "Hello! How was your **weekend**? 😀", "--output", out)
    assert result.returncode == 0, result.stderr
    info = sf.info(out)
    assert info.samplerate == 22050 and info.channels == 1 and info.subtype == "PCM_16"
    assert 1.0 < info.duration < 6.0
    assert not list(tmp_path.glob(".*.tmp"))
    result = tutor("transcribe", out)
    assert result.returncode == 0
    assert "how was your weekend" in result.stdout.lower()


@pytest.mark.parametrize("text", ["", "   "])
def test_speak_refuses_empty_text(data_dir, tmp_path, text):
    out = tmp_path / "x.wav"
    result = tutor("speak", text, "--output", out)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == ["tutor-app: speak: TEXT is empty"]
    assert not out.exists()


def test_speak_unspeakable_text_and_bad_folder(data_dir, tmp_path):
    result = tutor("speak", "😀", "--output", tmp_path / "x.wav")
    assert result.returncode == 1 and len(result.stderr.strip().splitlines()) == 1
    result = tutor("speak", "Hello there.", "--output", tmp_path / "no" / "x.wav")
    assert result.returncode == 1 and "does not exist" in result.stderr
    assert not (tmp_path / "x.wav").exists()
