"""speech/audio_io.py with a fake sounddevice: capture queue and overflow counting,
resampling, played-sample accounting, clear(), device lookup."""
from __future__ import annotations

import numpy as np
import pytest

from tests.unit.call_fakes import FakeSd
from tutor_app.speech.audio_io import WOKEN, Capture, MicBlock, Player, StreamResampler
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


def test_player_counts_played_samples_per_tag_and_clear_drops_the_rest():
    sd = FakeSd()
    started = []
    player = Player(sd, None, 16000)
    player.listen(lambda tag, t: started.append(tag), None)
    player.start()
    out = sd.outputs[0]
    player.play(np.full(300, 0.1), "a")
    player.play(np.full(300, 0.2), "b")
    block = out.pull(400)
    assert np.allclose(block[:300], 0.1) and np.allclose(block[300:], 0.2)
    assert player.played("a") == 300 and player.played("b") == 100
    player.clear()
    assert not player.busy and player.queued_samples() == 0
    assert np.all(out.pull(400) == 0)  # silent right after clear()
    assert player.played("b") == 100
    player.close()
    assert started == ["a", "b"]


def test_a_paused_player_holds_its_queue_silent_and_resumes_from_the_gap_between_words():
    sd = FakeSd()
    player = Player(sd, None, 16000)
    player.start()
    out = sd.outputs[0]
    word, gap = np.full(4000, 0.3, np.float32), np.zeros(800, np.float32)
    player.play(np.concatenate([word, gap, word]), "sentence")  # "word <gap> word"
    out.pull(6000)  # into the second word
    player.pause()
    assert not out.pull(2000).any() and player.busy  # silent, the rest held
    assert player.played("sentence") == 6000
    player.resume(back_s=0.15)  # the quietest 32 ms within 150 ms back: the gap
    assert 4000 <= player.played("sentence") <= 4800 and not player.paused
    rest = out.pull(8800 - player.played("sentence") + 10)
    assert rest[-11] == np.float32(0.3) and not rest[-10:].any()  # the second word again, whole
    assert player.played("sentence") == 8800 and not player.busy
    player.play(np.full(100, 0.1), "next")
    player.pause()
    player.clear()  # a barge-in ends the pause too: what comes next plays
    player.play(np.full(100, 0.2), "after")
    assert np.allclose(out.pull(100), 0.2)
    player.close()


def test_player_underflow_goes_idle():
    sd = FakeSd()
    player = Player(sd, None, 16000)
    player.start()
    player.play(np.full(100, 0.1), 1)
    assert player.busy
    sd.outputs[0].pull(400)
    assert not player.busy
    player.close()


def test_the_echo_reference_hears_of_an_underrun_from_the_player():
    from tutor_app.speech.aec import FarEndTap

    sd = FakeSd()
    tap = FarEndTap()
    player = Player(sd, None, 16000, far_tap=tap)
    player.start()
    player.play(np.full(1200, 0.1), 1)
    sd.outputs[0].pull(400)
    sd.outputs[0].pull(400, underflow=True)  # PortAudio: the device ran dry before this block
    blocks = tap.drain()
    assert blocks[0] == ("start", 16000)
    assert [(len(b), flag) for b, _, flag in blocks[1:]] == [(400, False), (400, True)]
    assert player.stats.underflows == 1
    player.close()


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
