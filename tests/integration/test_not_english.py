"""Speech that is not English, through the real Whisper tiny.en: turned away, never stored;
English (recorded, and in espeak-ng's Korean voice) still passes. The clips are made with
espeak-ng at test time (tutor_app/bench/language_clips.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import wave

import pytest

from tests.conftest import missing_prerequisite
from tests.in_process import run_in_process
from tutor_app.bench.language_clips import ENGLISH, KOREAN, espeak, espeak_available, padded
from tutor_app.tutor.heard import NOT_HEARD, heard

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def voices(tmp_path_factory):
    if not espeak_available():
        missing_prerequisite("espeak-ng is not installed (scripts/system-packages.sh installs it)")
    return tmp_path_factory.mktemp("espeak")


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", "--llm", "anthropic", *args],
                          capture_output=True, text=True, env=dict(os.environ), timeout=300)


def test_spoken_korean_is_answered_but_never_passed_on_or_stored(fake_anthropic, voices, tmp_path):
    espeak(KOREAN[0], "ko", voices, "korean")  # "이거 영어로 뭐라고 해요?"
    output = tmp_path / "reply.wav"
    out = cli("call", "--input", str(voices / "korean.wav"), "--output", str(output), "--session", "k1", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["not_understood"] is True and result["not_understood_reason"]
    assert result["reply"] == NOT_HEARD and result["user_text"] == "" and result["stored"] == []
    assert fake_anthropic.requests == []  # the tutor model never got Whisper's guess
    with wave.open(str(output)) as w:
        assert w.getnframes() > w.getframerate()  # the line was spoken
    memories = run_in_process("memory", "list", "--json")  # read back from disk
    assert memories.returncode == 0, memories.stderr
    assert memories.stdout.strip() == ""


def test_korean_speech_is_turned_away(stt, voices):
    for i, text in enumerate(KOREAN):
        transcript = stt.transcribe(padded(espeak(text, "ko", voices, f"ko-{i}")))
        verdict = heard(transcript)
        assert not verdict.understood, (i, verdict)
    # espeak-ng's own speed (175 wpm): Whisper drops it all as no speech, the VAD heard speech
    verdict = heard(stt.transcribe(espeak(KOREAN[0], "ko", voices, "ko-fast", speed=175)))
    assert not verdict.understood, verdict


def test_recorded_english_passes(plain_transcript, speech_clips):
    for row in speech_clips:  # the shared recordings (speech/manifest.tsv)
        verdict = heard(plain_transcript(row["path"]))
        assert verdict.understood, (row["file"], verdict)


def test_english_in_a_korean_voice_passes(stt, voices):
    for i, text in enumerate(ENGLISH):
        verdict = heard(stt.transcribe(padded(espeak(text, "ko", voices, f"ko-en-{i}"))))
        assert verdict.understood, (text, verdict)


def test_an_unsure_decode_is_the_same_every_time(stt, voices):
    """Whisper is unsure of espeak's Korean: unsure alone, it is not decoded again by
    sampling (SttOptions.fallback_logprob); looped, the sample that replaces the loop is
    never taken as understood - its sharpened log-probabilities once passed the gate."""
    clip = padded(espeak(KOREAN[7], "ko", voices, "ko-again"))
    runs = [heard(stt.transcribe(clip)) for _ in range(5)]
    # Its greedy decode loops ("No, no, no, ..."): the sampled words vary, the verdict does not.
    assert all(not run.understood and run.reason == "repetitive" for run in runs), runs
