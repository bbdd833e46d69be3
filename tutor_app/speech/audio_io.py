"""Live audio through sounddevice: microphone capture and speaker playback.

The sounddevice module is injected (`sd=`) so tests drive fake streams without audio.

Capture: the PortAudio callback only copies the block and its level into a bounded
queue; a full queue drops the block and counts it (never blocks PortAudio). The reader
(the audio thread) resamples to 16 kHz when the device could not open at 16 kHz.

Echo: with a canceller attached, `Capture.read()` returns echo-cancelled samples and the
Player hands a copy of every output block to its far-end tap (speech/aec.py).

Devices (listing, choosing, PortAudio itself) are speech/sound_devices.py.

Playback: sentences are queued as (tag, samples); the output callback copies the next
samples out and counts, per tag, exactly how many samples it handed to PortAudio, so a
barge-in knows how much of the reply was played. `clear()` drops everything queued:
the next callback (one block, ~25 ms) is silence.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from tutor_app.core.types import FRAME_SAMPLES, SAMPLE_RATE

if TYPE_CHECKING:  # numpy itself is imported where it is used
    import numpy as np
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

# One VAD frame per callback when the device runs at 16 kHz. Half a frame takes 32 ms off
# PortAudio's input latency (two blocks) but gained nothing measurable: voice to voice
# recorded outside the app was 852-950 ms p50 over six `bench call` runs with it, 890-925
# over five with whole frames; the words of a turn were in no sooner (twice the callbacks
# and canceller calls compete with the decode). The canceller cancels as well with either.
CAPTURE_BLOCK = FRAME_SAMPLES
PLAY_BLOCK_S = 0.025  # output block: bounds how long a clear() takes to be heard


# What the streams need of speech/aec.py (which imports this module: no import back).
class EchoBlock(Protocol):
    @property
    def cleaned(self) -> NDArray[np.float32]: ...
    @property
    def raw(self) -> NDArray[np.float32]: ...
    @property
    def far(self) -> NDArray[np.float32]: ...
    @property
    def broke(self) -> bool: ...


class EchoProcessor(Protocol):
    def process_block(self, samples: NDArray[np.float32], t_capture: float) -> EchoBlock: ...


class FarTap(Protocol):
    def started(self, rate: int) -> None: ...

    def push(self, samples: NDArray[np.float32], t_play: float, underflow: bool) -> None: ...


# -- capture ---------------------------------------------------------------------------
class MicBlock(NamedTuple):
    """What `Capture.read()` returns. With a canceller, `samples` are echo-cancelled and
    `raw` / `far` are the microphone and the far end they came from (same length)."""

    samples: NDArray[np.float32]
    level: float
    raw: NDArray[np.float32] | None = None
    far: NDArray[np.float32] | None = None
    broke: bool = False  # the canceller's pairing broke in this block (aec.Cancelled.broke)
    captured_at: float | None = None  # time.perf_counter() when its first sample reached the converter


@dataclass
class CaptureStats:
    blocks: int = 0
    overflows: int = 0  # PortAudio said input was lost (the device ran ahead of us)
    dropped: int = 0  # our queue was full: the reader fell behind


class Woken(NamedTuple):
    """What `Capture.read()` returns after `wake()`: no audio."""


WOKEN = Woken()


class Capture:
    """Microphone blocks (`MicBlock`: mono float32 16 kHz samples, rms level) through `read()`."""

    def __init__(self, sd: Any, device: int | None = None, rate: int = SAMPLE_RATE,
                 block: int = CAPTURE_BLOCK, max_blocks: int = 256, echo: EchoProcessor | None = None) -> None:
        """`sd`: the sounddevice module (untyped) or a test's fake. `echo`: an EchoCanceller
        (speech/aec.py); `read()` then returns cleaned samples."""
        self.sd = sd
        self.echo = echo
        self.device = device
        self.rate = rate  # what the reader gets
        self.block = block
        self.stats = CaptureStats()
        # (samples, level, time.perf_counter() in the callback); ~8 s at 32 ms blocks
        # None: `wake()` - the reader is to look at something other than the microphone.
        self._queue: queue.Queue[tuple[NDArray[np.float32], float, float] | None] = queue.Queue(maxsize=max_blocks)
        self._stream: Any = None  # a sounddevice.InputStream
        self.device_rate = rate
        self.finished = threading.Event()  # the stream stopped by itself (device lost, error)
        self.last_block_at = 0.0
        self._latency = 0.0
        self._resampler: StreamResampler | None = None

    def start(self) -> None:
        self.finished.clear()
        rate = self.rate
        try:
            self.sd.check_input_settings(device=self.device, samplerate=rate, channels=1, dtype="float32")
        except Exception:  # noqa: BLE001 - the device cannot do 16 kHz: use its own rate
            info = self.sd.query_devices(self.device, "input")
            rate = int(info["default_samplerate"])
        self.device_rate = rate
        self._resampler = StreamResampler(rate, self.rate) if rate != self.rate else None
        block = self.block if rate == self.rate else int(round(self.block * rate / self.rate))
        self._stream = self.sd.InputStream(samplerate=rate, channels=1, dtype="float32", blocksize=block,
                                           device=self.device, callback=self._callback,
                                           finished_callback=self.finished.set)
        self.last_block_at = time.monotonic()
        self._stream.start()
        self._latency = _latency(self._stream)

    def _callback(self, indata: NDArray[np.float32], frames: int, time_info: Any, status: Any) -> None:
        # PortAudio's thread: copy and count, nothing that can block.
        import numpy as np

        if status and getattr(status, "input_overflow", False):
            self.stats.overflows += 1
        samples = indata[:, 0].copy() if indata.ndim == 2 else indata.copy()
        level = float(np.sqrt(np.mean(samples * samples))) if samples.size else 0.0
        self.last_block_at = time.monotonic()
        self.stats.blocks += 1
        try:
            self._queue.put_nowait((samples, level, time.perf_counter()))
        except queue.Full:
            self.stats.dropped += 1

    def wake(self) -> None:
        """Any thread: the reader's `read()` returns WOKEN now (or after the blocks queued)
        instead of waiting for the next block."""
        try:
            self._queue.put_nowait(None)
        except queue.Full:
            pass  # blocks are queued: the reader is about to look anyway

    def read(self, timeout: float = 0.1) -> MicBlock | Woken | None:
        """A block at 16 kHz, WOKEN after `wake()`, or None after `timeout` without one."""
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is None:
            return WOKEN
        samples, level, t_callback = item
        # The block's first sample reached the converter one block plus the input latency ago.
        t_first = t_callback - len(samples) / self.device_rate - self._latency
        if self._resampler is not None:
            samples = self._resampler.process(samples)
        if self.echo is not None:
            block = self.echo.process_block(samples, t_first)
            return MicBlock(block.cleaned, level, block.raw, block.far, block.broke, t_first)
        return MicBlock(samples, level, captured_at=t_first)

    @property
    def active(self) -> bool:
        stream = self._stream
        return bool(stream is not None and stream.active and not self.finished.is_set())

    def stop(self) -> None:
        stream, self._stream = self._stream, None
        if stream is None:
            return
        try:
            stream.abort()
            stream.close()
        except Exception:  # noqa: BLE001 - a vanished device fails to close; it is gone anyway
            log.debug("closing the input stream failed", exc_info=True)


class StreamResampler:
    """Block-by-block linear resampling that stays continuous across blocks. Good enough
    for VAD and Whisper (speech energy above 8 kHz barely matters to either)."""

    def __init__(self, src: int, dst: int) -> None:
        import numpy as np

        self.step = src / dst
        self._pos = 0.0  # position of the next output sample, in input samples
        self._tail = np.zeros(0, dtype=np.float32)

    def process(self, samples: np.ndarray) -> NDArray[np.float32]:
        import numpy as np

        data = np.concatenate([self._tail, np.asarray(samples, dtype=np.float32)])
        if data.size < 2:
            self._tail = data
            return np.zeros(0, dtype=np.float32)
        positions = np.arange(self._pos, data.size - 1, self.step)
        out = np.asarray(np.interp(positions, np.arange(data.size), data), dtype=np.float32)
        next_pos = self._pos + len(positions) * self.step
        keep = min(int(next_pos), data.size)
        self._tail = data[keep:]
        self._pos = next_pos - keep
        return out


def _latency(stream: Any) -> float:  # a sounddevice stream, or a test's fake
    try:
        value = stream.latency
        return float(value[0] if isinstance(value, (tuple, list)) else value)
    except Exception:  # noqa: BLE001 - a fake or closed stream
        return 0.0


# -- playback --------------------------------------------------------------------------
def word_gap(samples: NDArray[np.float32], end: int, back: int, window: int) -> int:
    """Where a paused sentence picks up: the middle of the quietest `window` samples in
    samples[end - back:end] (a gap between words), or the sentence's start within reach."""
    import numpy as np

    a = max(0, end - back)
    if end - a <= window:
        return a
    power = np.concatenate([[0.0], np.cumsum(np.asarray(samples[a:end], dtype=np.float64) ** 2)])
    starts = np.arange(0, end - a - window + 1, max(1, window // 4))
    quietest = int(starts[int(np.argmin(power[starts + window] - power[starts]))])
    return a + (0 if quietest == 0 and a == 0 else quietest + window // 2)


@dataclass
class _Segment:
    tag: Any  # whatever the caller tags a sentence with
    samples: NDArray[np.float32]
    offset: int = 0


@dataclass
class PlayStats:
    underflows: int = 0
    played: dict[Any, int] = field(default_factory=dict)  # tag -> samples handed to PortAudio


class Player:
    """Queued playback with exact per-tag played-sample counts.

    `on_start(tag, t)` runs (on a notifier thread, not PortAudio's) when the first
    sample of a tag was handed to the device, `t` being time.perf_counter() then;
    `on_idle()` when the queue ran dry."""

    def __init__(self, sd: Any, device: int | None, rate: int, on_start: Callable[[Any, float], None] | None = None,
                 on_idle: Callable[[], None] | None = None, far_tap: FarTap | None = None) -> None:
        """`far_tap` (speech/aec.py FarEndTap) gets every block handed to PortAudio."""
        self.sd = sd
        self.far_tap = far_tap
        self._gain = 1.0
        self._out_latency = 0.0
        self.device = device
        self.rate = rate  # rate of the samples given to play()
        self.device_rate = rate
        self.stats = PlayStats()
        self._segments: deque[_Segment] = deque()
        self._cond = threading.Condition()
        self._started: deque[tuple[Any, float]] = deque()
        self._idle_pending = False
        self._last_tag: Any = object()
        self._busy = False
        self._paused = False  # hold the queue, play silence (the learner may be taking the floor)
        self._stream: Any = None  # a sounddevice.OutputStream
        self._closed = False
        self._on_start = on_start
        self._on_idle = on_idle
        self._notifier: threading.Thread | None = None
        self.finished = threading.Event()

    def listen(self, on_start: Callable[[Any, float], None] | None,
               on_idle: Callable[[], None] | None) -> None:
        self._on_start, self._on_idle = on_start, on_idle

    def start(self) -> None:
        rate = self.rate
        try:
            self.sd.check_output_settings(device=self.device, samplerate=rate, channels=1, dtype="float32")
        except Exception:  # noqa: BLE001 - play at the device's own rate, resampled per sentence
            rate = int(self.sd.query_devices(self.device, "output")["default_samplerate"])
        self.device_rate = rate
        self._stream = self.sd.OutputStream(samplerate=rate, channels=1, dtype="float32",
                                            blocksize=max(64, int(rate * PLAY_BLOCK_S)), latency="low",
                                            device=self.device, callback=self._callback,
                                            finished_callback=self.finished.set)
        self._notifier = threading.Thread(target=self._notify_loop, name="playback-notify", daemon=True)
        self._notifier.start()
        self._out_latency = _latency(self._stream)
        if self.far_tap is not None:
            self.far_tap.started(rate)
        self._stream.start()
        self._out_latency = _latency(self._stream)

    def set_gain(self, gain: float) -> None:
        """Volume of what is played from the next block on (ducking while the learner may
        be interrupting); the echo canceller's reference gets the same."""
        self._gain = float(gain)

    @property
    def latency_s(self) -> float:
        try:
            return float(self._stream.latency) if self._stream is not None else 0.0
        except Exception:  # noqa: BLE001
            return 0.0

    def play(self, samples: np.ndarray, tag: Any) -> None:
        import numpy as np

        samples = np.asarray(samples, dtype=np.float32).reshape(-1)
        if self.device_rate != self.rate and samples.size:
            from tutor_app.speech.resample import resample

            samples = resample(samples, self.rate, self.device_rate)
        if not samples.size:
            return
        with self._cond:
            self._segments.append(_Segment(tag, samples))
            self._busy = True

    def pause(self) -> None:
        """Hold what is queued and play silence from the next block on (a learner who may
        be taking the floor: `resume` or `clear` ends it)."""
        with self._cond:
            self._paused = True

    @property
    def paused(self) -> bool:
        with self._cond:
            return self._paused

    def resume(self, back_s: float = 0.0) -> None:
        """Play on from where it paused, backed up to the quietest 32 ms (a gap between
        words) in the last `back_s` seconds played of the sentence it paused in, so no word
        resumes cut in half; what counts as played is backed up with it."""
        with self._cond:
            if not self._paused:
                return
            self._paused = False
            if self._segments and back_s > 0:
                seg = self._segments[0]
                at = word_gap(seg.samples, seg.offset, int(back_s * self.device_rate),
                              max(1, int(0.032 * self.device_rate)))
                self.stats.played[seg.tag] = max(0, self.stats.played.get(seg.tag, 0) - (seg.offset - at))
                seg.offset = at

    def clear(self) -> None:
        """Drop everything not yet handed to PortAudio (barge-in); a pause ends with it."""
        with self._cond:
            self._paused = False
            self._segments.clear()
            if self._busy:
                self._busy = False
                self._idle_pending = True
            self._cond.notify_all()

    @property
    def busy(self) -> bool:
        """Audio queued or still being handed out."""
        with self._cond:
            return self._busy

    def queued_samples(self) -> int:
        with self._cond:
            return sum(len(s.samples) - s.offset for s in self._segments)

    def played(self, tag: Any) -> int:
        """Samples of `tag` handed to the device (at the rate given to play())."""
        with self._cond:
            n = self.stats.played.get(tag, 0)
        return int(round(n * self.rate / self.device_rate)) if self.device_rate != self.rate else n

    def _callback(self, outdata: NDArray[np.float32], frames: int, time_info: Any, status: Any) -> None:
        # PortAudio's thread: copy queued samples out, count them, never block for long.
        underflow = bool(status and getattr(status, "output_underflow", False))
        if underflow:
            self.stats.underflows += 1
        out = outdata[:, 0] if outdata.ndim == 2 else outdata
        filled = 0
        with self._cond:
            while filled < frames and self._segments and not self._paused:
                seg = self._segments[0]
                n = min(frames - filled, len(seg.samples) - seg.offset)
                out[filled:filled + n] = seg.samples[seg.offset:seg.offset + n]
                if seg.offset == 0 and seg.tag != self._last_tag:  # a tag's later chunks are not new starts
                    self._last_tag = seg.tag
                    self._started.append((seg.tag, time.perf_counter()))
                seg.offset += n
                filled += n
                self.stats.played[seg.tag] = self.stats.played.get(seg.tag, 0) + n
                if seg.offset >= len(seg.samples):
                    self._segments.popleft()
            if filled < frames:
                out[filled:] = 0
                if self._busy and not self._segments and not self._paused:
                    self._busy = False
                    self._idle_pending = True
            if self._started or self._idle_pending:
                self._cond.notify_all()
        if self._gain != 1.0 and filled:
            out[:filled] *= self._gain
        if self.far_tap is not None:  # exactly what PortAudio gets, silence included
            self.far_tap.push(out.copy(), time.perf_counter() + self._out_latency, underflow)

    def _notify_loop(self) -> None:
        while True:
            with self._cond:
                while not (self._started or self._idle_pending or self._closed):
                    self._cond.wait()
                closed = self._closed
                started = list(self._started)
                self._started.clear()
                idle, self._idle_pending = self._idle_pending, False
            for tag, t in started:  # delivered even when closing: they did play
                if self._on_start:
                    self._safe(self._on_start, tag, t)
            if idle and self._on_idle:
                self._safe(self._on_idle)
            if closed:
                return

    @staticmethod
    def _safe(fn: Callable[..., object], *args: object) -> None:
        try:
            fn(*args)
        except Exception:  # noqa: BLE001 - a listener bug must not stop playback
            log.exception("playback listener failed")

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._segments.clear()
            self._cond.notify_all()
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.abort()
                stream.close()
            except Exception:  # noqa: BLE001
                log.debug("closing the output stream failed", exc_info=True)
        if self._notifier is not None and self._notifier is not threading.current_thread():
            self._notifier.join(timeout=2)
