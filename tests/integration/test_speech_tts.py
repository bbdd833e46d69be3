"""Piper through our TTS: a sentence's first part alone, levels, determinism, and a round trip to Whisper."""
from __future__ import annotations

import numpy as np
import pytest

from tutor_app.core.protocols import TextToSpeech
from tutor_app.core.types import AudioClip
from tutor_app.speech.wer import normalize_words, wer

pytestmark = pytest.mark.slow


def test_protocol_and_rate(tts):
    assert isinstance(tts, TextToSpeech)
    assert tts.sample_rate == 22050


def test_a_sentence_comes_as_its_first_part_then_the_rest(tts):
    """Three sentences, each in two chunks: its first 32 decoder frames (0.37 s), then the rest."""
    assert tts.split  # Piper's joe-medium graph is cut at its decoder
    head = tts.options.first_part_frames * 256  # hop_length 256 at 22.05 kHz
    chunks = list(tts.synthesize("Hello there. How are you today? I am fine, thanks!"))
    assert len(chunks) == 6
    for first, rest in zip(chunks[::2], chunks[1::2]):
        assert len(first) == head and 0.1 < len(rest) / tts.sample_rate < 4.0
    for chunk in chunks:
        assert chunk.dtype == np.float32 and chunk.ndim == 1
        assert np.abs(chunk).max() <= 1.0


def test_the_parts_join_as_the_whole_decode(tts, registry, speech_settings):
    """The split decode gives the whole decode's samples: the cut's context is enough."""
    from tutor_app.speech.tts import TtsOptions, load_tts

    whole = load_tts(speech_settings, registry, TtsOptions(deterministic=True, first_part_frames=0))
    assert not whole.split
    text = "That sounds really interesting. Could you tell me a little more about it? Okay."
    a, b = tts.synthesize_all(text), whole.synthesize_all(text)
    assert len(a) == len(b) and len(list(whole.synthesize(text))) == 3
    assert np.max(np.abs(a - b)) < 1e-3
    # A first part shorter than the context: the rest is decoded from the sentence's start.
    short = load_tts(speech_settings, registry, TtsOptions(deterministic=True, first_part_frames=8))
    c = short.synthesize_all(text)
    assert len(c) == len(b) and np.max(np.abs(c - b)) < 1e-3


def test_a_sentence_is_levelled_without_clipping(tts):
    """One gain per sentence from its start; peaks past the volume are rounded off, not cut."""
    from tutor_app.speech.tts import soft_limit

    for sentence in ("Okay.", "That sounds really interesting.", "Could you tell me a little more about it?"):
        audio = tts.synthesize_all(sentence)
        assert 0.3 < np.abs(audio).max() < 1.0
    x = np.array([0.0, 0.5, 0.9, 0.95, 1.1, -1.1, 30.0], dtype=np.float32)
    y = soft_limit(x, 0.9)
    assert list(y[:3]) == list(x[:3]) and 0.9 < y[3] < y[4] < 1.0 and y[5] == -y[4] and y[6] <= 1.0


def test_synthesize_is_lazy(tts):
    generator = tts.synthesize("First sentence here. Second sentence here.")
    first = next(generator)  # the first sentence's start is ready before anything else is made
    assert 0 < first.size <= tts.options.first_part_frames * 256
    assert len(list(generator)) == 3


def test_deterministic_output(tts):
    text = "The same text gives the same audio."
    assert np.array_equal(tts.synthesize_all(text), tts.synthesize_all(text))


def test_nothing_to_say_yields_nothing(tts):
    assert list(tts.synthesize("")) == []
    assert list(tts.synthesize("😀 **")) == []
    assert tts.synthesize_all("   ").size == 0


def test_markup_is_not_read_out(tts, stt):
    audio = tts.synthesize_all("**Great** job 😀!")
    text = stt.transcribe(AudioClip(audio, tts.sample_rate)).text
    assert normalize_words(text) == ["great", "job"]


@pytest.mark.parametrize("sentence", [
    "How did the job interview go yesterday?",
    "Let's practise ordering food at a restaurant.",
    "I would like to travel to London next summer with my family.",
    "It costs $5.",
])
def test_round_trip_piper_to_whisper(tts, stt, sentence):
    audio = tts.synthesize_all(sentence)
    text = stt.transcribe(AudioClip(audio, tts.sample_rate)).text
    assert wer(sentence, text) <= 0.15, text


def test_fast_start_splits_long_first_sentence(registry, speech_settings, stt):
    from tutor_app.speech.tts import TtsOptions, load_tts

    tts = load_tts(speech_settings, registry, TtsOptions(deterministic=True, first_part_frames=0))  # chunk = phrase
    sentence = "Could you tell me a little more about your job interview yesterday?"
    assert len(list(tts.synthesize(sentence))) == 1
    chunks = list(tts.synthesize(sentence, fast_start=True))
    assert len(chunks) == 2
    text = stt.transcribe(AudioClip(np.concatenate(chunks), tts.sample_rate)).text
    assert wer(sentence, text) <= 0.1, text


@pytest.mark.parametrize("word", ["Yes.", "No.", "Okay."])
def test_short_answers_are_not_dropped_by_the_vad(tts, stt, word):
    """One-word replies are common in a lesson: the VAD's minimum speech must keep them."""
    pad = np.zeros(tts.sample_rate // 2, dtype=np.float32)
    clip = AudioClip(np.concatenate([pad, tts.synthesize_all(word), pad]), tts.sample_rate)
    assert normalize_words(stt.transcribe(clip).text) == normalize_words(word)


def _seconds_per_word(tts, text: str) -> float:
    return tts.synthesize_all(text).size / tts.sample_rate / len(text.split())


def test_speaking_rate_changes_time_per_word(tts):
    text = "Next month I am planning to visit my aunt in Canada."
    try:
        lengths = {}
        for rate in (0.7, 1.0, 1.3):
            tts.set_rate(rate)
            lengths[rate] = _seconds_per_word(tts, text)
        assert lengths[0.7] > 1.2 * lengths[1.0] and lengths[1.3] < 0.9 * lengths[1.0], lengths
        with pytest.raises(ValueError):
            tts.set_rate(0.0)
    finally:
        tts.set_rate(1.0)


def test_rate_change_applies_from_the_next_sentence(tts):
    first, second = "How was your weekend?", "Did you do anything fun with your friends?"
    try:
        normal = [c.size for c in tts.synthesize(f"{first} {second}")]
        chunks = tts.synthesize(f"{first} {second}")
        head = next(chunks)  # the first sentence's start is out (playing) when the learner asks
        tts.set_rate(0.7)
        rest = [c.size for c in chunks]  # that sentence's rest, then the second sentence in two
        assert len(normal) == 4 and len(rest) == 3, (normal, rest)
        assert head.size == normal[0] and rest[0] == normal[1], "a sentence keeps the rate it began with"
        assert sum(rest[1:]) > 1.2 * sum(normal[2:]), (normal, head.size, rest)
    finally:
        tts.set_rate(1.0)


def test_slower_request_in_a_call_makes_the_next_reply_longer(tts, tmp_path):
    """The learner's words -> a request -> the rate kept in the settings and applied."""
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings
    from tutor_app.tutor.rate import change_rate, detect_rate_request

    settings = Settings(paths=AppPaths.resolve(tmp_path))
    reply = "That sounds like a wonderful plan for the summer."
    try:
        tts.set_rate(1.0)
        before = _seconds_per_word(tts, reply)
        tts.set_rate(change_rate(settings, detect_rate_request("Could you please speak more slowly?")))
        after = _seconds_per_word(tts, reply)
        assert after > 1.1 * before, (before, after)
        assert Settings.load(settings.paths).speech.speaking_rate == tts.rate < 1.0
    finally:
        tts.set_rate(1.0)


def test_voice_follows_the_level_by_default(speech_settings, registry):
    from dataclasses import replace

    from tutor_app.speech.tts import load_tts

    beginner = replace(speech_settings, tutor=replace(speech_settings.tutor, level="beginner"))
    assert load_tts(beginner, registry).rate == 0.85
    chosen = replace(beginner, speech=replace(speech_settings.speech, speaking_rate=1.2))
    assert load_tts(chosen, registry).rate == 1.2


def test_a_damaged_voice_file_gives_one_clear_error(registry, speech_settings, tmp_path):
    """A truncated model (a download cut short): one TutorError naming the file, split or not."""
    from pathlib import Path

    from tutor_app.errors import TutorError
    from tutor_app.speech.tts import PiperTts, TtsOptions

    source = next(Path(registry.path(speech_settings.speech.tts_voice)).glob("*.onnx"))
    broken = tmp_path / source.name
    broken.write_bytes(source.read_bytes()[: 1 << 20])
    (tmp_path / f"{source.name}.json").write_bytes(Path(f"{source}.json").read_bytes())
    for options in (TtsOptions(), TtsOptions(first_part_frames=0)):
        with pytest.raises(TutorError, match=f"cannot load the Piper voice {source.name}"):
            PiperTts(broken, options=options)
