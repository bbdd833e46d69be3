"""The learner's words over the tutor: the microphone minus a linear estimate of the echo
(speech/double_talk.py), and the Listener handing exactly that to STT for speech that
began while the tutor was audible - AEC3's output otherwise."""
from __future__ import annotations

from concurrent.futures import Future

import numpy as np
import pytest

from tests.unit.call_fakes import FakeVad
from tutor_app.speech.double_talk import remove_echo_linearly
from tutor_app.speech.echo import SPEAKER, EchoOptions
from tutor_app.tutor.call_listen import Listener
from tutor_app.tutor.loop_options import LoopOptions

RATE = 16000


def _speechlike(seed: int, seconds: float) -> np.ndarray:
    """Coloured noise with a syllable-rate envelope: broadband like a voice, never periodic."""
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    noise = np.convolve(rng.standard_normal(n), np.hanning(9), "same")
    envelope = 0.5 + 0.5 * np.sin(np.arange(n) * 2 * np.pi * 4 / RATE) ** 2
    return (0.1 * noise * envelope / np.std(noise)).astype(np.float32)


def _db(a: np.ndarray, b: np.ndarray) -> float:
    return 10 * float(np.log10(np.sum(a.astype(np.float64) ** 2) / np.sum(b.astype(np.float64) ** 2)))


def _room(far: np.ndarray) -> np.ndarray:
    """The far end as the microphone hears it: 70 ms later, through a small room response."""
    path = np.zeros(1200)
    path[[1120, 1131, 1190]] = [0.8, -0.3, 0.15]
    return np.convolve(far, path)[:far.size].astype(np.float32)


def test_the_echo_is_removed_and_the_learner_kept():
    far = _speechlike(1, 5.0)
    learner = np.zeros_like(far)
    learner[3 * RATE:4 * RATE] = _speechlike(2, 1.0)  # talks over the tutor for one second
    mic = _room(far) + learner
    out = remove_echo_linearly(mic, far)
    echo_only = slice(RATE, 3 * RATE)
    assert _db(mic[echo_only], out[echo_only]) >= 20  # the tutor is gone (measured 26 dB) ...
    both = slice(3 * RATE, 4 * RATE)
    assert _db(learner[both], out[both] - learner[both]) >= 20  # ... the learner is not


def test_nothing_played_leaves_the_microphone_as_it_was():
    mic = _speechlike(3, 1.0)
    assert np.array_equal(remove_echo_linearly(mic, np.zeros_like(mic)), mic)
    assert remove_echo_linearly(np.zeros(0), np.zeros(0)).size == 0


def test_a_short_span_still_gets_a_shorter_fit():
    far = _speechlike(4, 0.3)  # shorter than one 512 ms window
    out = remove_echo_linearly(far * 0.5, far)
    assert _db(far * 0.5, out) >= 20


def test_microphone_and_far_end_must_pair_up():
    with pytest.raises(ValueError, match="differ in length"):
        remove_echo_linearly(np.zeros(100), np.zeros(99))


class _Port:
    """The ListenerPort of a call whose tutor is audible while `speaking`."""

    def __init__(self) -> None:
        self.speaking = False
        self.heard: list[np.ndarray] = []

    def emit(self, event) -> None:
        pass

    def tutor_audible(self) -> bool:
        return self.speaking

    def interrupt(self) -> None:
        self.speaking = False

    def duck(self, on: bool) -> None:
        pass

    def transcribe_later(self, audio):
        self.heard.append(audio)
        done: Future = Future()
        done.set_result(None)
        return done

    def judge_later(self, audio, transcript):
        return None

    def utterance(self, audio, eos, transcript, speculative):
        self.heard.append(audio)

    def backchannel(self, text: str) -> None:
        pass


def _listen(speaking: bool) -> tuple[_Port, np.ndarray, np.ndarray]:
    """3 s of the tutor alone, then 1 s of the learner over it, then silence. The
    'cleaned' stream a canceller would give is the learner at a tenth of their level
    (what AEC3's suppressor does at double talk); raw and far are what it was given."""
    port = _Port()
    port.speaking = speaking
    listener = Listener(LoopOptions(echo=EchoOptions(mode=SPEAKER)), FakeVad(), port)
    far = _speechlike(5, 6.0)
    learner = np.zeros_like(far)
    learner[3 * RATE:4 * RATE] = _speechlike(6, 1.0)
    raw = _room(far) + learner
    cleaned = (0.1 * learner).astype(np.float32)
    for i in range(0, far.size, 1600):
        listener.feed(cleaned[i:i + 1600], raw[i:i + 1600], far[i:i + 1600])
    return port, learner, cleaned


def test_speech_over_the_tutor_is_transcribed_from_the_linear_copy():
    port, learner, _ = _listen(speaking=True)
    assert port.heard
    audio = port.heard[-1]
    peak = float(np.max(np.abs(audio)))
    assert peak > 0.5 * float(np.max(np.abs(learner)))  # the learner at full level, not AEC3's tenth


def test_speech_when_the_tutor_is_quiet_is_the_cancellers_output():
    port, learner, _ = _listen(speaking=False)
    assert port.heard
    assert float(np.max(np.abs(port.heard[-1]))) <= 0.11 * float(np.max(np.abs(learner)))
