"""Piper through our TTS: chunks per sentence, determinism, and a round trip to Whisper."""
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


def test_one_float32_chunk_per_sentence(tts):
    chunks = list(tts.synthesize("Hello there. How are you today? I am fine, thanks!"))
    assert len(chunks) == 3
    for chunk in chunks:
        assert chunk.dtype == np.float32 and chunk.ndim == 1
        assert 0.3 < len(chunk) / tts.sample_rate < 4.0
        assert np.abs(chunk).max() <= 1.0


def test_synthesize_is_lazy(tts):
    generator = tts.synthesize("First sentence here. Second sentence here.")
    first = next(generator)  # the first sentence is ready before the second is made
    assert first.size > 0
    assert len(list(generator)) == 1


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


def test_fast_start_splits_long_first_sentence(tts, stt):
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
