"""Memory-aware speech recognition on the real models: the profile's names reach Whisper
and come back right; silence and noise stay empty; plain speech is no worse; another
profile's names never appear (real LanceDB, real MiniLM, Whisper tiny.en, Piper)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from datetime import datetime, timezone

import numpy as np
import pytest

from tests.fakes.anthropic_server import Reply
from tests.in_process import run_in_process
from tests.memory_fixtures import embedder, open_profile  # noqa: F401 (fixtures)
from tutor_app.bench.names import heard
from tutor_app.core.types import AudioClip
from tutor_app.speech.bias import BiasList, build_bias

pytestmark = pytest.mark.slow

NAMES = BiasList(("Minji", "Haneul", "Seonghwa", "Hongdae", "Kongi", "Jiwoo", "Naver", "Dubu", "Ilsan"))
# Our own sentences (spoken by Piper here), 8 names; not the tutor's test clips.
SENTENCES = (
    ("My best friend Haneul is coming over tonight.", ("Haneul",)),
    ("I met Seonghwa at a small cafe in Hongdae.", ("Seonghwa", "Hongdae")),
    ("Kongi always barks when the mailman comes.", ("Kongi",)),
    ("Jiwoo just got a new job at Naver.", ("Jiwoo", "Naver")),
    ("We drove to Ilsan to visit my grandmother.", ("Ilsan",)),
    ("Dubu is a very lazy cat.", ("Dubu",)),
)
MINJI = (
    ("Name: Minji", "name", {"field": "name", "value": "Minji"}),
    ("My best friend is called Haneul", "fact", {}),
    ("I meet my boyfriend Seonghwa in Hongdae", "fact", {}),
    ("I have a dog named Kongi", "fact", {}),
    ("My sister Jiwoo works at Naver", "fact", {}),
    ("My bank PIN is 4921", "fact", {}),
    ("I love spicy rice cakes", "preference", {}),
)


def _names_right(stt, spoken: list[AudioClip], bias) -> tuple[int, list[str]]:
    right, texts = 0, []
    for clip, (_text, names) in zip(spoken, SENTENCES):
        heard_text = stt.transcribe(clip, bias=bias).text
        texts.append(heard_text)
        right += sum(heard(n, heard_text) for n in names)
    return right, texts


def test_the_list_is_what_brings_the_names_back(stt, tts):
    total = sum(len(names) for _t, names in SENTENCES)
    spoken = [AudioClip(tts.synthesize_all(text), tts.sample_rate) for text, _names in SENTENCES]  # once each
    without, plain = _names_right(stt, spoken, None)
    with_list, biased = _names_right(stt, spoken, NAMES)
    assert with_list >= 0.75 * total, biased  # measured: 7 of 8 (2 of 8 without)
    assert without <= total // 2 and with_list - without >= 3, (plain, biased)


@pytest.mark.parametrize("mode", ["hotwords", "prompt"])
def test_silence_and_noise_give_no_text_with_a_name_rich_list(stt, mode):
    """Prompted Whisper's known failure is to read its prompt back on non-speech."""
    stt_mode = _with_mode(stt, mode)
    rng = np.random.default_rng(11)
    quiet = [np.zeros(16000 * 8)] + [rng.normal(0, a, 16000 * 8) for a in (0.002, 0.01, 0.05, 0.2)]
    t = np.arange(16000 * 4) / 16000
    quiet.append(0.05 * np.sin(2 * np.pi * 100 * t))  # mains hum
    for samples in quiet:
        transcript = stt_mode.transcribe(AudioClip(samples.astype(np.float32), 16000), bias=NAMES)
        assert transcript.text == "", transcript.text


def test_plain_speech_is_no_worse_with_the_list(stt, plain_transcript, speech_clips):
    from tutor_app.speech.wer import wer_counts

    errors = {"off": 0, "list": 0}
    for row in speech_clips:
        errors["off"] += wer_counts(row["transcript"], plain_transcript(row["path"]).text).errors
        errors["list"] += wer_counts(row["transcript"], stt.transcribe(row["path"], bias=NAMES).text).errors
    assert errors["list"] <= errors["off"], errors  # measured: 3 vs 4 errors of 115 words


def test_bias_list_from_real_memories_is_per_profile(open_profile):
    minji, other = open_profile("minji"), open_profile("dmitri")
    for text, category, meta in MINJI:
        minji.add(text, category=category, meta=meta)
    other.add("My brother Dmitri lives in Novosibirsk", category="fact")
    minji.record_call("s1", datetime(2026, 11, 1, tzinfo=timezone.utc),
                      report={"new_words": ["commute", "exhausted"]})
    bias = build_bias(minji)
    assert bias.terms[0] == "Minji"
    assert {"Haneul", "Seonghwa", "Hongdae", "Kongi", "Jiwoo", "Naver", "commute", "exhausted"} <= set(bias.terms)
    # Names only: nothing else from the memories, and nothing of the other profile.
    assert not {"4921", "PIN", "bank", "spicy", "Dmitri", "Novosibirsk"} & set(bias.terms)
    assert not any(w in bias.text for w in ("4921", "Dmitri", "Novosibirsk", "rice", "called"))
    assert set(build_bias(other).terms) == {"Dmitri", "Novosibirsk"}
    assert build_bias(open_profile("learner-2")).terms == ()  # no memories, no name-like profile name


def _with_mode(stt, mode):
    """The session's Whisper with another bias mode (the model is shared, not reloaded)."""
    import copy

    other = copy.copy(stt)
    other.options = replace(stt.options, bias_mode=mode)
    return other


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", "--llm", "anthropic", *args],
                          capture_output=True, text=True, env=dict(os.environ), timeout=300)


def test_a_spoken_turn_in_a_profile_with_those_names(fake_anthropic, tts, tmp_path):
    """`tutor-app call --input` in the learner's profile hears the names its memories hold;
    the same audio in a profile without them does not (the issue's reproduction)."""
    from tutor_app.speech.tts import write_wav

    memories = tmp_path / "minji.jsonl"
    memories.write_text("".join(json.dumps({"text": t, "category": c, "meta": m}) + "\n" for t, c, m in MINJI),
                        encoding="utf-8")
    imported = run_in_process("--profile", "minji", "memory", "import", str(memories))  # the setup only
    assert imported.returncode == 0, imported.stderr
    wav = tmp_path / "turn.wav"
    write_wav(wav, tts.synthesize_all("Yesterday Haneul and I took Kongi for a walk in Hongdae."), tts.sample_rate)
    transcripts = {}
    for profile in ("minji", "stranger"):
        fake_anthropic.push(Reply("That sounds like fun!"))
        out = _cli("--profile", profile, "call", "--input", str(wav), "--output", str(tmp_path / f"{profile}.wav"),
                   "--session", f"s-{profile}", "--json")
        assert out.returncode == 0, out.stderr
        transcripts[profile] = json.loads(out.stdout)["transcript"]
    names = ("Haneul", "Kongi", "Hongdae")  # measured: all three with the list, none without
    assert sum(heard(n, transcripts["minji"]) for n in names) >= 2, transcripts
    assert sum(heard(n, transcripts["stranger"]) for n in names) <= 1, transcripts
