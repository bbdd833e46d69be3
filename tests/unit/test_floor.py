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


def _levels(db: list[float]) -> list[FrameSound]:
    """Open-speech frames at these levels (dB under full scale)."""
    return [FrameSound(0.25, 0.05, 10 ** (d / 20)) for d in db]


def test_a_backchannel_fading_on_the_vads_hangover_does_not_take_the_floor():
    """A "Yeah." over the tutor as `bench echo` logged it: 9 voiced frames, the last two its
    fading tail (-26, -48 dB under its loudest). Counted as voice, they made the floor."""
    yeah = _levels([-44, -32, -26, -20, -21, -27, -35, -46, -68])
    decision = FloorDecision(288, 8, yeah[:8])
    assert not decision.frame(yeah[8], lambda: 1.0) and decision.why == "short"
    assert decision.tail == 2


def test_a_dip_inside_speech_counts_once_a_louder_frame_follows():
    """AEC3's suppressor dips a learner's voice in double talk (-43 dB, a frame): the
    frame after it is loud again, so the dip was voice and the floor is not delayed."""
    sorry = _levels([-39, -21, -20, -22, -63, -40, -31, -31])
    decision = FloorDecision(288, 8, sorry)
    assert decision.tail == 0  # the dip at the 5th frame was followed by louder ones
    assert decision.frame(_levels([-32])[0], lambda: 1.0)  # the 9th voiced frame: as without the rule


def test_a_sound_that_goes_on_after_its_fade_takes_the_floor_when_it_comes_back():
    """ "Yeah, but ...": the first word fades (not yet the floor); the next one takes it."""
    decision = FloorDecision(288, 8, _levels([-44, -32, -26, -20, -21, -27, -35, -46]))
    assert not decision.frame(_levels([-68])[0], lambda: 1.0)
    assert decision.frame(_levels([-25])[0], lambda: 1.0)  # "but": the tail was a pause, voice again
