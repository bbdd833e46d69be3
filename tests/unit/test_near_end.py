"""The learner's voice in the raw microphone, louder than the tutor's echo can make it
(call/listen/near_end.py), and the Listener hearing speech over the tutor that the
canceller's suppressor hid - on scripted frames."""
from __future__ import annotations

import numpy as np
import pytest

from tests.unit.call_fakes import FakeVad
from tests.unit.test_listener import _Port
from tutor_app.call import events as ev
from tutor_app.call.listen.listener import Listener
from tutor_app.call.listen.near_end import NearEnd, NearEndOptions
from tutor_app.call.options import EchoOptions, LoopOptions
from tutor_app.core.types import FRAME_SAMPLES

RNG = np.random.default_rng(7)


def _far(level: float) -> np.ndarray:
    return (level * RNG.standard_normal(FRAME_SAMPLES)).astype(np.float32)


def _echo_alone(near: NearEnd, frames: int, coupling: float = 0.8) -> list[bool]:
    """The tutor's echo alone, as loud as `coupling` of its far end, syllables louder and softer."""
    out = []
    for i in range(frames):
        far = _far(0.05 + 0.1 * (i % 5) / 4)
        out.append(near.frame((coupling * far + 0.001 * RNG.standard_normal(FRAME_SAMPLES)).astype(np.float32), far))
    return out


def test_the_tutors_echo_alone_is_never_the_learner():
    near = NearEnd()
    assert not any(_echo_alone(near, 400))


def test_a_voice_over_the_echo_is_found_from_its_first_frame():
    near = NearEnd()
    _echo_alone(near, 40)
    far = _far(0.1)
    voice = (0.8 * far + 0.5 * RNG.standard_normal(FRAME_SAMPLES)).astype(np.float32)  # ~+14 dB over the echo
    assert near.frame(voice, far)


def test_a_voice_little_louder_than_the_echo_is_found():
    """A learner about as loud as the tutor's echo (0 dB double talk): "Sorry," of "Sorry,
    can I ask you ..." made the raw level only 3-12 dB over the echo's loudest; at 6 dB a
    frame or two short of the 250 ms that confirm speech, and the tutor talked on past the
    comma (`bench echo`, recorded)."""
    near = NearEnd()
    _echo_alone(near, 40)
    far = _far(0.15)  # the tutor at its loudest
    voice = (0.8 * far + 0.144 * RNG.standard_normal(FRAME_SAMPLES)).astype(np.float32)  # ~+4 dB over its echo
    assert near.frame(voice, far)


def test_nothing_is_judged_before_the_echo_is_learned_or_while_the_tutor_is_quiet():
    near = NearEnd()
    assert not any(_echo_alone(near, NearEndOptions().learned - 1))  # the reply has just begun
    loud = (0.5 * RNG.standard_normal(FRAME_SAMPLES)).astype(np.float32)
    assert not near.frame(loud, _far(0.1))  # not learned yet
    near = NearEnd()
    _echo_alone(near, 40)
    quiet = np.zeros(FRAME_SAMPLES, np.float32)
    for _ in range(NearEndOptions().far_frames):
        near.frame(quiet, quiet)  # the tutor stopped, its last 256 ms have passed
    assert not near.frame(loud, quiet)  # the canceller passes the learner: nothing to tell apart


@pytest.mark.parametrize(("near_vad", "heard"), [(FakeVad(), True), (None, False)])
def test_speech_over_the_tutor_the_canceller_hid_is_heard_in_the_raw_microphone(near_vad, heard):
    """AEC3's suppressor hid the learner's start (its output near silent): with the raw
    microphone's own VAD stream the speech over the tutor is confirmed (the tutor ducks)."""
    port = _Port(stt="Sorry, can I ask you something?", speaking=True)
    listener = Listener(LoopOptions(echo=EchoOptions(mode="speaker")), FakeVad(), port, near_vad=near_vad)
    hidden = np.full(FRAME_SAMPLES, 0.001, np.float32)  # what the canceller passed
    for i in range(40):  # the tutor alone: its echo cancelled
        far = _far(0.05 + 0.1 * (i % 5) / 4)
        listener.feed(np.zeros(FRAME_SAMPLES, np.float32), raw=0.8 * far, far=far)
    for _ in range(12):  # the learner over it, hidden by the suppressor
        far = _far(0.1)
        listener.feed(hidden, raw=(0.8 * far + 0.5 * RNG.standard_normal(FRAME_SAMPLES)).astype(np.float32), far=far)
    started = any(isinstance(e, ev.SpeechStarted) for e in port.events)
    assert started == heard and (port.ducks[:1] == [True]) == heard


class _CountingVad(FakeVad):
    def __init__(self) -> None:
        self.frames = self.resets = 0

    def reset(self) -> None:
        self.resets += 1

    def probability(self, frame) -> float:
        self.frames += 1
        return super().probability(frame)


def test_the_raw_microphones_stream_runs_only_while_the_tutor_is_heard():
    """The learner's own turns (the far end quiet) cost no second VAD; each time the tutor
    is heard again its stream starts fresh."""
    near_vad = _CountingVad()
    listener = Listener(LoopOptions(echo=EchoOptions(mode="speaker")), FakeVad(), _Port(), near_vad=near_vad)
    quiet = np.zeros(FRAME_SAMPLES, np.float32)
    for _ in range(20):
        listener.feed(quiet, raw=quiet, far=quiet)
    assert near_vad.frames == 0
    for _ in range(10):
        far = _far(0.1)
        listener.feed(quiet, raw=0.8 * far, far=far)
    assert (near_vad.frames, near_vad.resets) == (10, 1)
    for _ in range(20):  # the tutor stopped; its last 256 ms still count
        listener.feed(quiet, raw=quiet, far=quiet)
    assert near_vad.frames == 10 + NearEndOptions().far_frames - 1
    far = _far(0.1)
    listener.feed(quiet, raw=0.8 * far, far=far)
    assert near_vad.resets == 2
