"""The echo gate strategy (call/listen/echo_gate.py) on scripted frames: the tutor speaking
or not, the VAD's probability and the frame's level in, the gate's decision out."""
from __future__ import annotations

import numpy as np

from tutor_app.call.listen.echo_gate import EchoGate, Gate
from tutor_app.call.options import EchoOptions, InterruptionOptions, frames
from tutor_app.speech.echo import GATED, HEADSET, SPEAKER

LOUD_FRAMES = frames(InterruptionOptions().loud_min_ms)  # 400 ms
TAIL_FRAMES = frames(EchoOptions().tail_ms)


def _run(gate: EchoGate, script: list[tuple[bool, float, float]]) -> list[Gate]:
    """(tutor speaking, probability, rms) per frame -> the gate's decisions."""
    return [gate.frame(speaking, p, rms) for speaking, p, rms in script]


def test_full_duplex_modes_listen_to_every_frame():
    for mode in (HEADSET, SPEAKER):
        gate = EchoGate(EchoOptions(mode=mode))
        assert gate.full_duplex
        assert set(_run(gate, [(True, 0.9, 0.3)] * 20 + [(False, 0.0, 0.0)] * 5)) == {Gate.LISTEN}


def test_gated_shuts_while_the_tutor_speaks_and_for_the_rooms_tail():
    gate = EchoGate(EchoOptions(mode=GATED))
    assert not gate.full_duplex
    decisions = _run(gate, [(False, 0.0, 0.0)] * 2 + [(True, 0.0, 0.01)] * 5 + [(False, 0.0, 0.0)] * (TAIL_FRAMES + 1))
    assert decisions[:3] == [Gate.LISTEN, Gate.LISTEN, Gate.SHUT]  # shut once: what was in flight goes
    assert decisions[3:7 + TAIL_FRAMES] == [Gate.SHUT_STILL] * (4 + TAIL_FRAMES)
    assert decisions[-1] == Gate.LISTEN


def test_gated_speech_held_loud_over_the_echo_is_a_barge_in():
    gate = EchoGate(EchoOptions(mode=GATED))
    echo = [(True, 0.1, 0.05)] * 20  # the tutor's echo, learned from the quieter frames
    decisions = _run(gate, echo + [(True, 0.9, 0.3)] * LOUD_FRAMES)
    assert decisions[-1] == Gate.BARGE_IN and Gate.BARGE_IN not in decisions[:-1]
    assert gate.frame(False, 0.9, 0.3) == Gate.LISTEN  # open at once: no tail after a barge-in


def test_gated_speech_not_loud_enough_over_the_echo_or_too_short_is_no_barge_in():
    gate = EchoGate(EchoOptions(mode=GATED))
    echo = [(True, 0.1, 0.05)] * 20
    assert Gate.BARGE_IN not in _run(gate, echo + [(True, 0.9, 0.12)] * 30)  # under 3x the echo (0.15)
    gate = EchoGate(EchoOptions(mode=GATED))
    slam = [(True, 0.9, 0.3)] * (LOUD_FRAMES - 1) + [(True, 0.1, 0.05)]  # a door slam: shorter than 400 ms
    assert Gate.BARGE_IN not in _run(gate, echo + slam * 3)


def test_gated_without_interruption_never_barges_in():
    gate = EchoGate(EchoOptions(mode=GATED), InterruptionOptions(enabled=False))
    assert Gate.BARGE_IN not in _run(gate, [(True, 0.9, 0.5)] * 60)


def test_a_stall_while_the_tutor_speaks_gates_speaker_mode_for_the_rest_of_the_reply():
    gate = EchoGate(EchoOptions(mode=SPEAKER))
    gate.unsettle(tutor_audible=False)  # a break in silence: the canceller has time to settle
    assert gate.full_duplex
    gate.unsettle(tutor_audible=True)
    assert not gate.full_duplex
    decisions = _run(gate, [(True, 0.9, 0.09)] * 10 + [(False, 0.0, 0.0)] * (TAIL_FRAMES + 1))
    assert decisions[0] == Gate.SHUT and Gate.LISTEN not in decisions[:-1]
    assert decisions[-1] == Gate.LISTEN and gate.full_duplex  # the reply and its tail are over


def test_after_a_stall_loudness_is_judged_on_the_raw_microphone_over_the_echo_there():
    """The canceller's output leaks after a stall: the raw microphone and its far end are
    what loudness is judged on, and nothing is loud before the echo's level is learned."""
    gate = EchoGate(EchoOptions(mode=SPEAKER))
    echo = (np.full(512, 0.1, np.float32), np.full(512, 0.1, np.float32))  # (microphone, far end)
    gate.unsettle(tutor_audible=True)
    assert Gate.BARGE_IN not in [gate.frame(True, 0.9, 0.09, echo) for _ in range(30)]
    loud = (np.full(512, 0.5, np.float32), np.full(512, 0.1, np.float32))
    assert [gate.frame(True, 0.9, 0.09, loud) for _ in range(LOUD_FRAMES)][-1] == Gate.BARGE_IN
