"""The streaming transcriber and the short encoder window with the real Whisper tiny.en."""
from __future__ import annotations

import pytest

from tutor_app.speech.audiofile import load_audio
from tutor_app.speech.wer import normalize_words, wer

pytestmark = pytest.mark.slow

JFK = "whisper_jfk.flac"


def _clip(speech_clips, name):
    row = next(r for r in speech_clips if r["file"] == name)
    return row, load_audio(row["path"]).samples


def test_the_growing_utterance_is_committed_and_only_its_tail_decoded_at_the_end(stt, speech_clips):
    from tutor_app.speech.streaming import StreamingTranscriber, StreamOptions

    row, samples = _clip(speech_clips, JFK)
    st = StreamingTranscriber(stt, options=StreamOptions(step_s=2.0))
    for end in range(2 * 16000, len(samples), 2 * 16000):
        st.run_pass(samples[:end])
    assert st.committed_until > 0  # some words were made final while "speaking"
    assert normalize_words(st.final_text)[:5] == "and so my fellow americans".split()
    transcript = st.finish(samples)
    assert st.stats.finish_seconds < len(samples) / 16000 - 2
    assert wer(row["transcript"], transcript.text) <= 0.1, transcript.text
    assert transcript.seconds == pytest.approx(11.0, abs=0.05)
    assert transcript.pauses and 5 < (transcript.speech_seconds or 0) < 11
    words = [w for seg in transcript.segments for w in seg.words]
    assert words == sorted(words, key=lambda w: w.start)  # one timeline across the decodes


def test_a_short_encoder_window_transcribes_the_clips(registry, vad, speech_clips):
    from tutor_app.speech.stt import SttOptions, WhisperStt

    stt = WhisperStt(registry.path("whisper-tiny.en"), vad, "cpu", "int8",
                     SttOptions(encoder_window_s=10.0, encoder_margin_s=2.0))
    for name, bound in ((JFK, 0.1), ("pocketsphinx_goforward.wav", 0.25)):
        row, _ = _clip(speech_clips, name)
        text = stt.transcribe(row["path"]).text
        assert wer(row["transcript"], text) <= bound, text
