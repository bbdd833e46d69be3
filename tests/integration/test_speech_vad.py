"""Silero VAD on files and on live frames, and the Segmenter fed by it."""
from __future__ import annotations

import numpy as np
import pytest

from tutor_app.core.protocols import VoiceActivity
from tutor_app.core.types import AudioClip
from tutor_app.speech.audiofile import load_audio
from tutor_app.speech.segmenter import Segmenter, SegmenterOptions, SpeechStarted, UtteranceEnded

pytestmark = pytest.mark.slow


def clip_of(speech_clips, name):
    return load_audio(next(r["path"] for r in speech_clips if r["file"] == name))


def test_protocol(vad):
    assert isinstance(vad, VoiceActivity) and vad.frame_samples == 512


def test_spans_on_speech_files(vad, speech_clips):
    for row in speech_clips:
        clip = load_audio(row["path"])
        spans = vad.speech_spans(clip)
        assert spans, row["file"]
        assert all(0 <= s.start < s.end <= clip.seconds + 1e-6 for s in spans)
        assert sum(s.end - s.start for s in spans) > 0.6 * clip.seconds  # mostly speech


def test_jfk_pauses_split_spans(vad, speech_clips):
    spans = vad.speech_spans(clip_of(speech_clips, "whisper_jfk.flac"))
    assert len(spans) >= 3  # the speaker pauses between phrases
    assert spans == sorted(spans, key=lambda s: s.start)


def test_silence_and_noise_have_no_spans(vad):
    silence = AudioClip(np.zeros(16000 * 10, dtype=np.float32), 16000)
    noise = AudioClip(np.random.default_rng(3).normal(0, 0.1, 16000 * 10).astype(np.float32), 16000)
    assert vad.speech_spans(silence) == [] and vad.speech_spans(noise) == []


def test_any_rate_clip(vad, speech_clips):
    from scipy.signal import resample_poly

    clip = clip_of(speech_clips, "pocketsphinx_goforward.wav")
    at_48k = AudioClip(resample_poly(clip.samples, 3, 1).astype(np.float32), 48000)
    a, b = vad.speech_spans(clip), vad.speech_spans(at_48k)
    assert len(a) == len(b) == 1 and abs(a[0].start - b[0].start) < 0.1


def test_live_frames_match_whole_file(vad, speech_clips):
    samples = clip_of(speech_clips, "pocketsphinx_goforward.wav").samples
    n = len(samples) // 512
    vad.reset()
    live = np.array([vad.probability(samples[i * 512:(i + 1) * 512]) for i in range(n)])
    whole = vad.frame_probabilities(samples[: n * 512])
    assert np.allclose(live, whole, atol=1e-5)
    vad.reset()  # a reset stream starts over exactly
    again = np.array([vad.probability(samples[i * 512:(i + 1) * 512]) for i in range(5)])
    assert np.allclose(again, live[:5], atol=1e-6)


def test_a_second_live_stream_keeps_its_own_state(vad, speech_clips):
    """The raw microphone's stream (call/listen/near_end.py) beside the call's: frames of
    one, interleaved with silence fed to the other, read as they do alone."""
    samples = clip_of(speech_clips, "pocketsphinx_goforward.wav").samples
    n = len(samples) // 512
    frames = [samples[i * 512:(i + 1) * 512] for i in range(n)]
    vad.reset()
    alone = np.array([vad.probability(f) for f in frames])
    vad.reset()
    other = vad.stream()
    silence = np.zeros(512, dtype=np.float32)
    interleaved = []
    for f in frames:
        other.probability(silence)
        interleaved.append(vad.probability(f))
    assert np.allclose(interleaved, alone, atol=1e-6)
    other.reset()
    assert np.allclose([other.probability(f) for f in frames], alone, atol=1e-6)
    with pytest.raises(ValueError):
        other.probability(np.zeros(480, dtype=np.float32))


def test_wrong_frame_size(vad):
    with pytest.raises(ValueError):
        vad.probability(np.zeros(480, dtype=np.float32))


def test_live_turn_taking_on_real_speech(vad, speech_clips):
    """Silence, a spoken turn, silence: one SpeechStarted then one UtteranceEnded around it."""
    speech = clip_of(speech_clips, "librispeech_test-clean_1089-134691-0001.flac").samples
    stream = np.concatenate([np.zeros(16000, np.float32), speech, np.zeros(16000 * 2, np.float32)])
    segmenter = Segmenter(SegmenterOptions(silence_ms=600, min_speech_ms=250, preroll_ms=300))
    vad.reset()
    events = []
    for i in range(len(stream) // 512):
        events += segmenter.feed(vad.probability(stream[i * 512:(i + 1) * 512]))
    starts = [e for e in events if isinstance(e, SpeechStarted)]
    ends = [e for e in events if isinstance(e, UtteranceEnded)]
    assert len(starts) == len(ends) >= 1
    assert 0.6 <= starts[0].start_s() <= 1.5  # speech begins after the 1 s of silence
    assert ends[-1].end_s() <= 1.0 + len(speech) / 16000 + 0.2
    assert ends[-1].end_s() - starts[0].start_s() > 0.8 * len(speech) / 16000


def test_a_clip_that_starts_with_the_last_one_is_read_on_from_it_with_the_same_probabilities(vad, speech_clips):
    """A live turn's words are read ahead while the learner speaks (call/transcripts.py
    hear_ahead): the end's clip starts with those frames, and only its new frames run."""
    samples = clip_of(speech_clips, "whisper_jfk.flac").samples
    frames = len(samples) // 512
    whole = samples[: frames * 512]
    other = np.random.default_rng(5).normal(0, 0.05, 512 * 40).astype(np.float32)

    vad.frame_probabilities(other)  # another clip last: read in full
    before = vad.frame_probabilities(whole)

    start = whole[: (frames // 2) * 512]
    vad.frame_probabilities(other)
    vad.frame_probabilities(start)
    run = vad.frames_run
    after = vad.frame_probabilities(whole)
    assert vad.frames_run - run == frames - frames // 2  # only the frames after its start
    assert np.array_equal(after, before)  # bit for bit: the state carried, not guessed

    changed = whole.copy()
    changed[10] += 0.1  # not the same start: read in full
    run = vad.frames_run
    vad.frame_probabilities(changed)
    assert vad.frames_run - run == frames
