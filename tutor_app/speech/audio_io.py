"""Live audio through sounddevice: microphone capture (playback is speech/playback.py).

The sounddevice module is injected (`sd=`) so tests drive fake streams without audio.

Capture: the PortAudio callback only copies the block and its level into a bounded
queue; a full queue drops the block and counts it (never blocks PortAudio). The reader
(the audio thread) resamples to 16 kHz when the device could not open at 16 kHz.

Echo: with a canceller attached, `Capture.read()` returns echo-cancelled samples
(speech/aec.py), paired with what the player handed to its far-end tap.

Devices (listing, choosing, PortAudio itself) are speech/sound_devices.py.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass
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
        self._latency = stream_latency(self._stream)

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


def stream_latency(stream: Any) -> float:
    """What a sounddevice stream (or a test's fake) reports as its latency, in s; 0 when unknown."""
    try:
        value = stream.latency
        return float(value[0] if isinstance(value, (tuple, list)) else value)
    except Exception:  # noqa: BLE001 - a fake or closed stream
        return 0.0
