"""The acoustic floor decision (call/listen/floor.py) on scripted frames: what a frame
sounds like (a hum, noise, open speech), and when voice over the tutor takes the floor."""
from __future__ import annotations

import numpy as np

from tutor_app.call.listen.floor import FloorDecision, FrameSound, frame_sound
from tutor_app.core.types import FRAME_SAMPLES, SAMPLE_RATE

T = np.arange(FRAME_SAMPLES) / SAMPLE_RATE


def _voice(f0: float, harmonics: list[float]) -> np.ndarray:
    """A voiced frame: a fundamental and its harmonics at the given amplitudes."""
    return sum(a * np.sin(2 * np.pi * f0 * (k + 1) * T) for k, a in enumerate(harmonics)).astype(np.float32)


def test_a_hum_keeps_its_energy_low_open_speech_does_not_noise_is_flat():
    hum = frame_sound(_voice(120, [1.0, 0.6, 0.1, 0.02, 0.01]))  # "mm": F0 and the nasal murmur
    vowel = frame_sound(_voice(120, [0.3, 0.4, 0.5, 0.8, 0.9, 0.7, 0.5, 0.4, 0.5, 0.6, 0.4, 0.3]))  # "ah": formants
    cough = frame_sound(np.random.default_rng(1).standard_normal(FRAME_SAMPLES).astype(np.float32))
    assert hum.low > 0.8 and vowel.low < 0.3
    assert hum.flatness < 0.1 and vowel.flatness < 0.1 and cough.flatness > 0.5


OPEN, HUM, NOISE = FrameSound(0.25, 0.05), FrameSound(0.7, 0.05), FrameSound(0.2, 0.6)


def _until_floor(decision: FloorDecision, sound: FrameSound, removed: float | None, n: int = 30) -> int | None:
    """Voiced frames of `sound` until it takes the floor (None: not within `n`); `removed`:
    the dB the linear echo removal takes off it (1: the learner's voice, 15: the echo)."""
    for _ in range(n):
        if decision.frame(sound, lambda: removed):
            return decision.voiced
    return None


def test_open_speech_from_the_learner_takes_the_floor_at_its_length():
    assert _until_floor(FloorDecision(352, 8, [OPEN] * 8), OPEN, 1.0) == 11


def test_a_hum_a_cough_or_the_echo_never_take_it():
    assert _until_floor(FloorDecision(352, 8, [HUM] * 8), HUM, 1.0) is None
    assert _until_floor(FloorDecision(352, 8, [NOISE] * 8), NOISE, 1.0) is None
    decision = FloorDecision(352, 8, [OPEN] * 8)
    assert _until_floor(decision, OPEN, 15.0) is None and decision.why == "echo"


def test_a_hum_then_open_speech_takes_it_once_the_speech_outweighs_the_hum():
    """ "Mm, I think that ...": the hum starts it, the speech that follows takes the floor."""
    decision = FloorDecision(352, 8, [HUM] * 8)
    assert _until_floor(decision, OPEN, 1.0) == 15  # 7 frames of speech: the mean under 350 Hz < 0.5


def test_the_echo_check_is_asked_again_a_few_frames_later_not_on_every_frame():
    asked: list[int] = []
    decision = FloorDecision(352, 8, [OPEN] * 8)

    def removed() -> float:
        asked.append(decision.voiced)
        return 15.0 if len(asked) < 3 else 1.0  # the tutor's echo twice, then the learner

    assert _until_floor(decision, OPEN, None) == 11  # (None: no canceller's input to tell by)
    decision = FloorDecision(352, 8, [OPEN] * 8)
    taken = next(decision.voiced for _ in range(30) if decision.frame(OPEN, removed))
    assert asked == [11, 15, 19] and taken == 19  # at the floor's length, then every 4 voiced frames
