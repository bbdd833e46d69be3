"""Voice to voice read from a two-channel recording (bench/outside.py), on scripted audio:
the learner's clips on the left, the tutor's replies on the right."""
from __future__ import annotations

import numpy as np
import pytest

from tutor_app.bench.outside import AUDIBLE, clip_starts, clips_in, stopped_after, voice_to_voice
from tutor_app.core.types import FRAME_SAMPLES, SAMPLE_RATE


class LoudFramesVad:
    """A frame is speech when its mean level is over 0.05 (the scripted 'voice' is 0.3,
    the scripted breath after it 0.01: sounding, but no speech)."""

    def frame_probabilities(self, samples_16k: np.ndarray) -> np.ndarray:
        pad = (-samples_16k.size) % FRAME_SAMPLES
        frames = np.pad(samples_16k, (0, pad)).reshape(-1, FRAME_SAMPLES)
        return (np.abs(frames).mean(axis=1) > 0.05).astype(np.float32)


def _at(seconds: float) -> int:
    return int(seconds * SAMPLE_RATE)


def _recording(seconds: float) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(_at(seconds), np.float32), np.zeros(_at(seconds), np.float32)


def _voice(channel: np.ndarray, start: float, end: float, level: float = 0.3) -> None:
    channel[_at(start):_at(end)] = level * np.where(np.arange(_at(end) - _at(start)) % 2, 1.0, -1.0)


def test_each_clip_is_timed_from_its_last_voiced_frame_to_the_tutors_first_audible_sample():
    learner, tutor = _recording(12.0)
    _voice(learner, 1.0, 2.0)  # a clip: voice, a 0.5 s pause inside it, voice, then a quiet breath
    _voice(learner, 2.5, 3.0)
    _voice(learner, 3.0, 3.3, level=0.01)
    _voice(tutor, 3.9, 5.0)
    _voice(learner, 7.0, 8.0)  # the next clip
    _voice(tutor, 8.7, 9.5)

    turns = voice_to_voice(learner, tutor, LoudFramesVad())

    assert len(turns) == 2
    # The last voiced sample is the end of the last frame the VAD calls speech; the breath is not.
    first_clip_start = _at(1.0)
    last_frame_end = first_clip_start + -(-(_at(3.0) - first_clip_start) // FRAME_SAMPLES) * FRAME_SAMPLES
    assert turns[0].last_voiced_s == pytest.approx(last_frame_end / SAMPLE_RATE)
    assert turns[0].first_audible_s == pytest.approx(3.9)
    assert turns[0].voice_to_voice_ms == pytest.approx(1000 * (3.9 - last_frame_end / SAMPLE_RATE), abs=0.1)
    assert turns[1].first_audible_s == pytest.approx(8.7)


def test_the_tutor_speaking_before_the_end_is_not_its_answer_and_silence_is_no_answer():
    learner, tutor = _recording(12.0)
    _voice(tutor, 0.2, 0.9)  # the greeting, before the learner speaks
    _voice(learner, 1.0, 2.0)
    _voice(learner, 6.0, 7.0)  # no reply to this one
    turns = voice_to_voice(learner, tutor, LoudFramesVad())
    assert [t.first_audible_s for t in turns] == [None, None]
    assert [t.voice_to_voice_ms for t in turns] == [None, None]


def test_a_reply_is_looked_for_only_until_the_next_clip():
    learner, tutor = _recording(12.0)
    _voice(learner, 1.0, 2.0)
    _voice(learner, 5.0, 6.0)
    _voice(tutor, 6.5, 7.0)  # answers the second clip, not the first
    turns = voice_to_voice(learner, tutor, LoudFramesVad())
    assert turns[0].first_audible_s is None
    assert turns[1].first_audible_s == pytest.approx(6.5)


def test_a_sound_with_no_speech_in_it_is_no_turn():
    learner, tutor = _recording(8.0)
    _voice(learner, 1.0, 1.5, level=0.01)  # a cough the VAD does not call speech
    _voice(learner, 4.0, 5.0)
    _voice(tutor, 5.5, 6.0)
    turns = voice_to_voice(learner, tutor, LoudFramesVad())
    assert len(turns) == 1 and turns[0].first_audible_s == pytest.approx(5.5)


def test_clips_are_stretches_over_the_audible_level_joined_across_short_pauses():
    channel = np.zeros(_at(10.0), np.float32)
    channel[_at(1.0):_at(2.0)] = 0.1
    channel[_at(3.5):_at(4.0)] = 0.1  # 1.5 s after: the same clip
    channel[_at(7.0):_at(8.0)] = 0.1  # 3 s after: another
    channel[_at(9.0)] = AUDIBLE / 2  # under the audible level: nothing
    assert clips_in(channel) == [(_at(1.0), _at(4.0)), (_at(7.0), _at(8.0))]
    assert clips_in(np.zeros(100, np.float32)) == []


def _noise_clip(seconds: float, seed: int) -> np.ndarray:
    """A clip with a quiet lead (not voiced) and a 'voice' of noise: a clip correlates with
    itself, not with another one."""
    rng = np.random.default_rng(seed)
    clip = (0.3 * rng.standard_normal(_at(seconds))).astype(np.float32)
    clip[:7 * FRAME_SAMPLES] *= 0.01  # a soft lead of 7 frames: the first voiced sample is after it
    return clip


def test_a_played_clip_is_found_in_the_microphones_feed_with_the_tutors_echo_beside_it():
    """Where the interruption clip was played each time, by its first voiced sample - not the
    other clip, not the tutor's echo looped back into the same microphone."""
    learner, tutor = _recording(20.0)
    barge, other = _noise_clip(1.5, 1), _noise_clip(1.5, 2)
    rng = np.random.default_rng(3)
    learner += (0.3 * rng.standard_normal(learner.size)).astype(np.float32)  # the echo, as loud
    for at in (2.0, 11.0):
        learner[_at(at):_at(at) + barge.size] += barge
    learner[_at(6.0):_at(6.0) + other.size] += other
    starts = clip_starts(learner, barge, 2, LoudFramesVad())
    assert [round(s, 3) for s in starts] == [round(2.0 + 7 * FRAME_SAMPLES / SAMPLE_RATE, 3),
                                             round(11.0 + 7 * FRAME_SAMPLES / SAMPLE_RATE, 3)]
    assert len(clip_starts(learner, barge, 3, LoudFramesVad())) == 2  # a third does not stand out


def test_the_tutor_stopped_where_its_first_long_silence_after_the_learner_begins():
    _, tutor = _recording(10.0)
    _voice(tutor, 1.0, 2.5)
    _voice(tutor, 2.7, 3.1)  # a gap between words (0.2 s) is not a stop
    _voice(tutor, 7.0, 8.0)  # its answer, later
    assert stopped_after(tutor, 2.0) == pytest.approx(3.1, abs=1e-3)
    # At the reply's start: the learner began first, the tutor started over them, then stopped.
    assert stopped_after(tutor, 0.8) == pytest.approx(3.1, abs=1e-3)
    assert stopped_after(tutor, 4.5) is None  # the tutor was not playing: nothing to stop
    _voice(tutor, 8.0, 10.0)
    assert stopped_after(tutor, 7.5) is None  # it never stopped in the recording
