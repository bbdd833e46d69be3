"""speech/audio_io.py with a fake sounddevice: capture queue and overflow counting,
resampling, device lookup (playback: test_playback.py)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.unit.call_fakes import FakeSd
from tutor_app.speech.audio_io import WOKEN, Capture, MicBlock, StreamResampler
from tutor_app.speech.sound_devices import NoDeviceError, list_devices, resolve_device


def test_overflow_and_full_queue_are_counted_never_blocking():
    sd = FakeSd()
    capture = Capture(sd, max_blocks=4)
    capture.start()
    stream = sd.inputs[0]
    stream.push(np.zeros(512), overflow=True)
    for _ in range(9):
        stream.push(np.zeros(512))  # the reader is not reading: the queue fills up
    assert capture.stats.overflows == 1
    assert capture.stats.blocks == 10
    assert capture.stats.dropped == 6
    got = [capture.read(timeout=0) for _ in range(5)]
    assert sum(g is not None for g in got) == 4


def test_wake_makes_the_reader_look_now_in_order_and_never_blocks():
    sd = FakeSd()
    capture = Capture(sd, max_blocks=2)
    capture.start()
    stream = sd.inputs[0]
    stream.push(np.zeros(512))
    capture.wake()
    assert isinstance(capture.read(timeout=0), MicBlock)  # the block queued before it first
    assert capture.read(timeout=0) is WOKEN
    assert capture.read(timeout=0) is None
    stream.push(np.zeros(512))
    stream.push(np.zeros(512))
    capture.wake()  # the queue is full: the reader is about to look anyway
    assert [capture.read(timeout=0) is WOKEN for _ in range(3)] == [False, False, False]


def test_capture_reports_level_and_resamples_when_the_device_cannot_do_16k():
    sd = FakeSd(rate=48000)
    capture = Capture(sd)
    capture.start()
    assert capture.device_rate == 48000
    stream = sd.inputs[0]
    assert stream.kwargs["samplerate"] == 48000
    total = 0
    for _ in range(10):
        stream.push(np.full(1536, 0.5, dtype=np.float32))
        samples, level, raw, far, broke, _ = capture.read(timeout=0)
        assert raw is None and far is None and not broke  # no canceller: nothing to pair
        total += len(samples)
        assert level == pytest.approx(0.5)
    assert abs(total - 5120) <= 2  # 15360 samples at 48 kHz -> 5120 at 16 kHz


def test_resampler_is_continuous_across_blocks():
    src = np.sin(np.arange(48000) * 2 * np.pi * 440 / 48000).astype(np.float32)
    r = StreamResampler(48000, 16000)
    out = np.concatenate([r.process(src[i:i + 700]) for i in range(0, len(src), 700)])
    ref = np.sin(np.arange(len(out)) * 2 * np.pi * 440 / 16000)
    assert np.max(np.abs(out - ref)) < 0.01


def test_device_lost_sets_finished():
    sd = FakeSd()
    capture = Capture(sd)
    capture.start()
    assert capture.active
    sd.inputs[0].lose()
    assert capture.finished.is_set() and not capture.active


def test_devices_listed_and_resolved():
    sd = FakeSd()
    names = [(d.name, d.inputs > 0, d.outputs > 0) for d in list_devices(sd)]
    assert names == [("fake mic", True, False), ("fake speaker", False, True)]
    assert resolve_device(sd, "", "input") is None  # the default
    assert resolve_device(sd, "speaker", "output") == 1
    assert resolve_device(sd, "nonexistent", "output") is None  # warns, falls back to default
    with pytest.raises(NoDeviceError, match="no microphone"):
        resolve_device(FakeSd(inputs=False), "", "input")


def test_echo_mode_suggestion_from_device_names():
    from tutor_app.speech.echo import suggest_mode
    from tutor_app.speech.sound_devices import DeviceInfo

    headset = [DeviceInfo(0, "Jabra Evolve2 Headset", 1, 2, 48000, True, True)]
    laptop = [DeviceInfo(0, "Built-in Microphone", 1, 0, 48000, True, False),
              DeviceInfo(1, "Built-in Speakers", 0, 2, 48000, False, True)]
    assert suggest_mode(headset)[0] == "headset"
    assert suggest_mode(laptop)[0] == "speaker"
    assert suggest_mode([])[0] == "speaker"  # unknown: the safe choice
