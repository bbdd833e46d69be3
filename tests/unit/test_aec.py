"""The echo canceller with the real WebRTC library on synthetic signals, the far-end
tap's alignment from scripted timestamps, and the audio-mode choice."""
from __future__ import annotations

import numpy as np
import pytest

from tutor_app.speech import aec
from tutor_app.speech.aec import AecOptions, EchoCanceller, FarEndTap
from tutor_app.speech.echo import GATED, HEADSET, SPEAKER, resolve_mode


def _speechlike(seconds: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(seconds * 16000)
    envelope = np.repeat(rng.uniform(0.0, 1.0, n // 1600 + 1), 1600)[:n]  # syllable-like bursts
    return (0.1 * rng.standard_normal(n) * envelope).astype(np.float32)


def _run(far_rate: int, echo_delay_s: float, learner: np.ndarray | None = None):
    """Feed the far end through the tap at `far_rate` (as the output callback would) and the
    microphone (echo + learner) through the canceller, both stamped on one clock."""
    from scipy.signal import resample_poly

    tap = FarEndTap()
    canceller = EchoCanceller.load(AecOptions(), tap)
    far16 = _speechlike(6.0, 1)
    far = far16 if far_rate == 16000 else resample_poly(far16, far_rate, 16000).astype(np.float32)
    delay = int(echo_delay_s * 16000)
    near = np.concatenate([np.zeros(delay, np.float32), far16])[:len(far16)]
    if learner is not None:
        near[:len(learner)] += learner
    tap.started(far_rate)
    out_block, in_block = far_rate // 40, 512
    f = 0
    cleaned = []
    for i in range(0, len(near) - in_block, in_block):
        t_near = i / 16000
        while f < len(far) and f / far_rate <= t_near + 0.25:  # the player runs ahead of the mic
            tap.push(far[f:f + out_block].copy(), f / far_rate)
            f += out_block
        cleaned.append(canceller.process(near[i:i + in_block], t_near))
    return near, np.concatenate(cleaned), canceller


@pytest.mark.parametrize("far_rate", [16000, 22050, 48000])
def test_the_echo_is_removed_whatever_the_output_rate(far_rate):
    near, cleaned, canceller = _run(far_rate, 0.05)
    half = len(cleaned) // 2
    erle = 10 * np.log10(np.mean(near[half:len(cleaned)] ** 2) / max(np.mean(cleaned[half:] ** 2), 1e-12))
    assert erle >= 20, erle
    assert canceller.erle_db is not None and canceller.erle_db > 10


def test_a_learner_without_echo_passes_through():
    learner = np.zeros(16000 * 6, np.float32)
    learner[16000 * 4:16000 * 5] = _speechlike(1.0, 7)
    tap = FarEndTap()
    canceller = EchoCanceller.load(AecOptions(), tap)
    tap.started(16000)
    out = []
    for i in range(0, len(learner) - 512, 512):
        tap.push(np.zeros(400, np.float32), i / 16000)
        out.append(canceller.process(learner[i:i + 512], i / 16000))
    cleaned = np.concatenate(out)
    part = slice(16000 * 4 + 1600, 16000 * 5 - 1600)
    assert np.sqrt(np.mean(cleaned[part] ** 2)) > 0.3 * np.sqrt(np.mean(learner[part] ** 2))


def test_a_missing_library_is_one_clear_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_webrtc(name, *args, **kwargs):
        if name == "pywebrtc_audio":
            raise ImportError("No module named 'pywebrtc_audio'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_webrtc)
    with pytest.raises(aec.CancellerUnavailable, match="echo cancellation is not installed"):
        EchoCanceller.load()
    assert aec.probe()[0] is False


@pytest.mark.parametrize("setting,canceller,expected", [
    ("auto", True, SPEAKER), ("auto", False, GATED), ("speaker", True, SPEAKER), ("speaker", False, GATED),
    ("headset", False, HEADSET), ("gated", True, GATED)])
def test_mode_choice(setting, canceller, expected):
    mode, reason = resolve_mode(setting, [], canceller, "" if canceller else "not installed")
    assert mode == expected and reason
    if expected == GATED and setting != "gated":
        assert "not installed" in reason


def test_a_call_without_the_canceller_falls_back_to_gated_mode_and_says_so(monkeypatch):
    from tests.unit.test_call_loop import Call
    from tutor_app.tutor import events as ev

    def unavailable(*args, **kwargs):
        raise aec.CancellerUnavailable("echo cancellation is not installed (test)")

    monkeypatch.setattr(aec.EchoCanceller, "load", unavailable)
    call = Call(mode="speaker")
    from types import SimpleNamespace

    from tutor_app.settings import TutorSettings

    call.ctl._options = None  # let the controller choose the mode, as the app does
    call.ctl._settings = SimpleNamespace(speech=call.ctl.settings.speech, tutor=TutorSettings())
    call.ctl.end_call()
    call.ctl.start_call(off_record=True, sink=call.rec)
    try:
        assert call.ctl.loop.options.echo.mode == GATED
        assert call.ctl.loop.capture.echo is None
        problems = [p for p in call.rec.of(ev.Problem) if p.kind == "echo"]
        assert problems and "not installed" in problems[0].message and not problems[0].fatal
    finally:
        call.end()
