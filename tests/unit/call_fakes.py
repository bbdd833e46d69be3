"""Fakes for the live-call unit tests: a sounddevice-like module whose streams the test
drives by hand (push microphone blocks, pull speaker blocks), and tiny VAD/STT/TTS/
session doubles. No audio, no models, no clocks: everything is deterministic."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from tutor_app.bench.common import EventLog
from tutor_app.core.types import EmotionScore
from tutor_app.tutor.report import TurnRecord
from tutor_app.tutor.turn import TurnResult

FRAME = 512
LOUD, SOFT = 0.3, 0.05  # frame amplitudes (constant frames: rms == amplitude)


@dataclass
class Flags:
    input_overflow: bool = False
    output_underflow: bool = False

    def __bool__(self) -> bool:
        return self.input_overflow or self.output_underflow


class PortAudioError(Exception):
    pass


class _Stream:
    def __init__(self, sd, **kwargs) -> None:
        self.sd = sd
        self.kwargs = kwargs
        self.callback = kwargs["callback"]
        self.finished_callback = kwargs.get("finished_callback")
        self.active = False
        self.latency = 0.0
        self.starts = 0

    def start(self) -> None:
        self.active = True
        self.starts += 1

    def abort(self) -> None:
        """As PortAudio: the stream stops and says so before `abort` returns."""
        was_active, self.active = self.active, False
        if was_active and self.finished_callback:
            self.finished_callback()

    def close(self) -> None:
        self.active = False

    def lose(self) -> None:
        """The device was unplugged: the stream stops by itself."""
        self.active = False
        if self.finished_callback:
            self.finished_callback()


class FakeInputStream(_Stream):
    def push(self, samples, overflow: bool = False) -> None:
        """Deliver one block to the callback, as PortAudio's thread would."""
        data = np.asarray(samples, dtype=np.float32).reshape(-1, 1)
        self.callback(data, len(data), None, Flags(input_overflow=overflow))

    def push_frames(self, amplitude: float, n: int) -> None:
        for _ in range(n):
            self.push(np.full(FRAME, amplitude, dtype=np.float32))

class FakeOutputStream(_Stream):
    def __init__(self, sd, **kwargs) -> None:
        super().__init__(sd, **kwargs)
        self.latency = sd.output_latency

    def pull(self, frames: int, underflow: bool = False) -> np.ndarray:
        out = np.zeros((frames, 1), dtype=np.float32)
        self.callback(out, frames, None, Flags(output_underflow=underflow))
        return out[:, 0].copy()


class FakeSd:
    """Enough of the sounddevice module for audio_io."""

    PortAudioError = PortAudioError

    def __init__(self, inputs: bool = True, outputs: bool = True, rate: int = 16000) -> None:
        self.has_inputs = inputs
        self.has_outputs = outputs
        self.rate = rate
        self.unplugged = False
        self.output_latency = 0.0  # what output streams report (PortAudio's figure)
        self.inputs: list[FakeInputStream] = []
        self.outputs: list[FakeOutputStream] = []
        self.default = SimpleNamespace(device=[0 if inputs else -1, 1 if outputs else -1])

    def query_devices(self, device=None, kind=None):
        devices = [
            {"name": "fake mic", "max_input_channels": 1 if self.has_inputs else 0,
             "max_output_channels": 0, "default_samplerate": float(self.rate)},
            {"name": "fake speaker", "max_input_channels": 0,
             "max_output_channels": 2 if self.has_outputs else 0, "default_samplerate": float(self.rate)},
        ]
        if kind is None and device is None:
            return devices
        return devices[0 if kind == "input" else 1]

    def check_input_settings(self, device=None, samplerate=None, **kwargs) -> None:
        if samplerate != self.rate:
            raise PortAudioError("invalid sample rate")

    def check_output_settings(self, device=None, samplerate=None, **kwargs) -> None:
        if samplerate != self.rate:
            raise PortAudioError("invalid sample rate")

    def InputStream(self, **kwargs):  # noqa: N802 - sounddevice's name
        if self.unplugged or not self.has_inputs:
            raise PortAudioError("no such device")
        stream = FakeInputStream(self, **kwargs)
        self.inputs.append(stream)
        return stream

    def OutputStream(self, **kwargs):  # noqa: N802
        stream = FakeOutputStream(self, **kwargs)
        self.outputs.append(stream)
        return stream


class FakeVad:
    """Speech wherever the frame is not near-silent."""

    def reset(self) -> None:
        pass

    def probability(self, frame) -> float:
        return 0.95 if float(np.max(np.abs(frame))) > 0.02 else 0.02


class FakeStt:
    def __init__(self, *texts: str) -> None:
        self.texts = list(texts) or ["hello there"]
        self.clips: list = []
        self.biases: list = []  # what each call was told to expect

    def transcribe(self, clip, bias=None):
        self.clips.append(clip)
        self.biases.append(bias)
        text = self.texts.pop(0) if len(self.texts) > 1 else self.texts[0]
        return SimpleNamespace(text=text)


class FakeTts:
    """1000 samples per word, at 16 kHz (so the fake speaker runs at the mic's rate)."""

    sample_rate = 16000

    def __init__(self, fail_on: str | None = None, chunks: int = 1) -> None:
        self.fail_on = fail_on
        self.chunks = chunks  # Piper yields one chunk per sentence *it* finds

    def synthesize(self, text: str):
        if self.fail_on and self.fail_on in text:
            raise RuntimeError("synthesis exploded")
        n = 1000 * len(text.split())
        for part in np.array_split(np.full(n, 0.2, dtype=np.float32), self.chunks):
            yield part


class HeldTts(FakeTts):
    """Synthesis that waits inside `synthesize` until the test releases it."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def synthesize(self, text: str):
        self.entered.set()
        assert self.release.wait(10)
        yield from super().synthesize(text)


class FakeSession:
    """Conversation's turn() contract: sentences out one by one, stop on cancel, let
    `spoken` decide what is recorded."""

    def __init__(self, replies: list[list[str]], error: str | None = None, off_record: bool = True) -> None:
        self.replies = replies
        self.error = error
        self.session_id = "fake-session"
        self.off_record = off_record
        self.started_at = time.time()
        self.turns: list[TurnRecord] = []
        self.ended = False
        self.texts: list[str] = []
        self.fallback: str | None = None  # the local model answered instead, for this reason

    def turn(self, text, on_sentence=None, cancel=None, speech_seconds=None, clock=None,
             on_emotion=None, spoken=None, transcript=None):
        self.texts.append(text)
        if self.error == "raise":
            raise RuntimeError("the engine broke")
        if on_emotion:
            on_emotion([EmotionScore("neutral", 0.6), EmotionScore("joy", 0.3)])
        sentences = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        delivered = []
        for sentence in sentences:
            if cancel is not None and cancel.cancelled:
                break
            delivered.append(sentence)
            on_sentence(sentence)
        reply = " ".join(delivered)
        if cancel is not None and not cancel.wait_committed():
            return TurnResult(text, "", retracted=True)  # talked on through: nothing kept
        if spoken:
            reply = spoken(reply)
        self.turns.append(TurnRecord(time.time(), text, reply, speech_seconds))
        if self.fallback:  # as tutor/engine.py reports a reply of the local fallback model
            return TurnResult(text, reply, problem="fallback", fallback=self.fallback,
                              error=f"offline: local tutor ({self.fallback})")
        return TurnResult(text, reply, timings_ms=dict(clock.timings) if clock else {},
                          error=self.error, problem=self._problem(sentences))

    def _problem(self, sentences) -> str | None:
        """The engine's problem kind for the scripted error (tutor/engine.py)."""
        from tutor_app.tutor.engine import SORRY_KEY, SORRY_OFFLINE

        if not self.error:
            return None
        if sentences == [SORRY_KEY]:
            return "api-key"
        return "unavailable" if sentences == [SORRY_OFFLINE] else "cut"


class FakeEngine:
    def __init__(self, session: FakeSession) -> None:
        self.session = session
        self.services = SimpleNamespace(clock=time.time)

    def start_call(self, session_id=None, off_record=False):
        return self.session


class Recorder(EventLog):
    """A call event sink that tests can wait on (the benchmarks' event log, with the
    waits tests use)."""

    def wait_for(self, predicate, timeout: float = 10.0) -> bool:
        return self.wait(lambda: predicate(self), timeout)

    def wait_kind(self, kind, count: int = 1, timeout: float = 10.0):
        if not self.wait_for(lambda r: len(r.of(kind)) >= count, timeout):
            from tutor_app.call.events import MicLevel

            seen = [e for e in self.events if not isinstance(e, MicLevel)]  # the meter drowns the rest
            raise AssertionError(f"no {count} x {kind.__name__}; got {seen!r}"[:4000])
        return self.of(kind)


def wait_until(predicate, timeout: float = 10.0) -> bool:
    """Poll a condition that has no event of its own (e.g. the player's queue)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return bool(predicate())
