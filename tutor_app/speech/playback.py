"""Speaker playback through sounddevice (injected `sd=`, as in speech/audio_io.py).

Sentences are queued as (tag, samples); the output callback copies the next
samples out and counts, per tag, exactly how many samples it handed to PortAudio, so a
barge-in knows how much of the reply was played. `clear()` drops everything queued and
`pause()` holds it; either also drops what the sound system already holds (the stream is
aborted and started again: ~50 ms of PortAudio's buffer and ~25 of the sound server's,
measured on PulseAudio), so the tutor is silent within a block (~25 ms) instead of after
the whole output latency. What was dropped counts as not played - a resume plays it again -
and the far-end tap is told, so the echo canceller's reference says silence there too.

The same restart starts a reply (without an echo canceller: `restart_replies`): on an idle output those buffers hold only silence, and a
sample queued behind them waits the whole output latency. So a `play()` on an output that
has played out everything restarts the stream with the new sound first in the emptied
buffers: it is heard ~70 ms sooner (measured outside the app on PulseAudio: 330 -> 258 ms
from a click to a tone started 300 ms after it). After a restart PortAudio fills the empty
buffers at once, so the first blocks are due sooner than the stream's latency says (a
block for each one before: PortAudio's own estimate read 0, 25 and 50 ms): their far-end
times say so.

With a canceller, the Player hands a copy of every output block to its far-end tap
(speech/aec.py FarEndTap), silence included.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from tutor_app.speech.audio_io import stream_latency

if TYPE_CHECKING:  # numpy itself is imported where it is used
    import numpy as np
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

PLAY_BLOCK_S = 0.025  # output block: bounds how long a pause or clear() takes to be heard
# Dropping the output restarts the stream (under 1 ms on PulseAudio); past this the
# buffers are left to play out for the rest of the call.
SLOW_RESTART_S = 0.05


# What the player needs of speech/aec.py's FarEndTap.
class FarTap(Protocol):
    def started(self, rate: int) -> None: ...

    def push(self, samples: NDArray[np.float32], t_play: float, underflow: bool) -> None: ...

    def flushed(self, t: float) -> None: ...


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
    announced: bool = False  # its start went to `on_start` (a resume after a drop does not repeat it)


@dataclass
class PlayStats:
    underflows: int = 0
    played: dict[Any, int] = field(default_factory=dict)  # tag -> samples handed to PortAudio (and not dropped)
    flushes: int = 0  # times the output was dropped on a pause or clear
    fresh_starts: int = 0  # replies started on a restarted (emptied) output


class _Handed(NamedTuple):
    """One stretch of a queued segment handed to PortAudio in a callback: until when it plays."""

    segment: _Segment
    n: int
    t_end: float  # time.perf_counter() when its last sample is due at the converter


class Player:
    """Queued playback with exact per-tag played-sample counts.

    `on_start(tag, t)` runs (on a notifier thread, not PortAudio's) when the first
    sample of a tag was handed to the device, `t` being time.perf_counter() then;
    `on_idle()` when the queue ran dry."""

    def __init__(self, sd: Any, device: int | None, rate: int, on_start: Callable[[Any, float], None] | None = None,
                 on_idle: Callable[[], None] | None = None, far_tap: FarTap | None = None,
                 flush: bool = True, restart_replies: bool | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        """`far_tap` (speech/aec.py FarEndTap) gets every block handed to PortAudio.
        `flush`: drop the sound system's buffer on `pause()` / `clear()` (the module's
        docstring); `restart_replies`: restart the output for a reply's start too - by
        default only without an echo canceller: with one, `bench echo`'s backchannel runs
        stopped the tutor 7, 2 and 6 times in 30 clips with it against 1 in 30 without the
        same day (not understood yet: docs/design-echo.md; so not taken there); `clock`:
        time.perf_counter, or a test's."""
        self.sd = sd
        self.flush = flush
        self.restart_replies = far_tap is None if restart_replies is None else restart_replies
        self._clock = clock
        self._handed: deque[_Handed] = deque(maxlen=64)  # the last ~0.5 s handed out (2-3 stretches a block)
        self._stream_lock = threading.Lock()  # one restart or close of the stream at a time
        self._restarting = False  # the finished callback of our own abort() is no lost device
        self.far_tap = far_tap
        self._gain = 1.0
        self._out_latency = 0.0
        self._fresh = 1 << 30  # samples handed since the stream (re)started: how full its buffers are
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
                                            finished_callback=self._stream_finished)
        self._notifier = threading.Thread(target=self._notify_loop, name="playback-notify", daemon=True)
        self._notifier.start()
        self._out_latency = stream_latency(self._stream)
        if self.far_tap is not None:
            self.far_tap.started(rate)
        self._fresh = 0
        self._stream.start()
        self._out_latency = stream_latency(self._stream)

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

    @property
    def start_latency_s(self) -> float:
        """How long a reply's first sample, once handed out, waits to be due: nothing when
        the output restarts for it (the module's docstring), else the stream's latency."""
        return 0.0 if self.flush and self.restart_replies else self.latency_s

    def play(self, samples: np.ndarray, tag: Any) -> None:
        import numpy as np

        samples = np.asarray(samples, dtype=np.float32).reshape(-1)
        if self.device_rate != self.rate and samples.size:
            from tutor_app.speech.resample import resample

            samples = resample(samples, self.rate, self.device_rate)
        if not samples.size:
            return
        segment = _Segment(tag, samples)
        with self._cond:
            # Nothing of ours left in the buffers (a reply's start): only silence is dropped.
            fresh = (self.flush and self.restart_replies and not self._busy and not self._paused
                     and self._played_out())
            if not fresh:
                self._enqueue(segment)
                return
        if not self._drop_output(requeue=False, first=segment):
            with self._cond:
                self._enqueue(segment)

    def _enqueue(self, segment: _Segment) -> None:
        """Under `_cond`: `segment` plays after what is queued."""
        self._segments.append(segment)
        self._busy = True

    def _played_out(self) -> bool:
        """Under `_cond`: everything handed out is due by now, a block's margin included (the
        sound server holds ~25 ms more than PortAudio's latency says)."""
        return not self._handed or self._handed[-1].t_end + PLAY_BLOCK_S <= self._clock()

    def pause(self) -> None:
        """Hold what is queued and play silence from the next block on (a learner who may
        be taking the floor: `resume` or `clear` ends it); what the sound system holds is
        dropped and played again on `resume`."""
        with self._cond:
            if self._paused:
                return
            self._paused = True
            playing = self._busy
        if playing:
            self._drop_output(requeue=True)

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
        """Drop everything not yet played (barge-in); a pause ends with it."""
        with self._cond:
            playing = self._busy and not self._paused  # a pause dropped the output already
            self._paused = False
            self._segments.clear()
            if self._busy:
                self._busy = False
                self._idle_pending = True
            self._cond.notify_all()
        if playing:
            self._drop_output(requeue=False)

    def _drop_output(self, requeue: bool, first: _Segment | None = None) -> bool:
        """Abort and restart the stream: PortAudio's and the sound server's buffers go with
        the abort (a callback may be running: never under `_cond`). What they held of each
        tag counts as unplayed (and, when `requeue`, goes back in front of the queue); the far-end tap
        hears that nothing was played from now until the new stream's first block. `first`
        (a reply's start) is queued while the stream is stopped, so the restart plays it
        first; False when it was not queued (no flush, no stream, the device gone first)."""
        if not self.flush:
            return False
        with self._stream_lock:
            stream = self._stream
            if stream is None or self._closed:
                return False
            self._restarting = True
            begun = self._clock()
            queued = False
            try:
                stream.abort()
                now = self._clock()
                with self._cond:
                    self._unplay(now, requeue)
                    self._fresh = 0
                    if first is not None:
                        self._enqueue(first)
                        queued = True
                        self.stats.fresh_starts += 1
                    else:
                        self.stats.flushes += 1
                if self.far_tap is not None:
                    self.far_tap.flushed(now)
                stream.start()
            except Exception:  # noqa: BLE001 - the device went away: as if the stream ended
                log.warning("the output stream did not restart after a pause or a barge-in", exc_info=True)
                self.finished.set()
            finally:
                self._restarting = False
            took = self._clock() - begun
            if took > SLOW_RESTART_S:
                # The caller is the audio thread: a device this slow to restart (some
                # Bluetooth or USB ones) costs more than the buffer it saves.
                self.flush = False
                log.info("the output device took %.0f ms to restart: its buffer plays out from now on",
                         took * 1000)
            return queued

    def _unplay(self, now: float, requeue: bool) -> None:
        """Under `_cond`: what was handed out but not yet due at the converter at `now`
        was dropped with the buffers (newest first: each stretch ends where the next began).
        At most the stream's reported latency of it: what PortAudio can hold (the sound
        server held ~25 ms more on PulseAudio; a resume backs up to a word gap anyway). A
        stream that reports none (a test's fake) is taken to hold nothing."""
        budget = int(self._out_latency * self.device_rate)
        while self._handed and budget > 0:
            handed = self._handed.pop()
            seg = handed.segment
            late = min(handed.n, budget, int(round((handed.t_end - now) * self.device_rate)))
            if late <= 0:
                break
            budget -= late
            self.stats.played[seg.tag] = max(0, self.stats.played.get(seg.tag, 0) - late)
            if requeue:
                if not self._segments or self._segments[0] is not seg:  # played to its end: back in
                    self._segments.appendleft(seg)
                seg.offset = max(0, seg.offset - late)
        self._handed.clear()

    def _stream_finished(self) -> None:
        """PortAudio: the stream stopped. Our own abort (a restart) is not a lost device."""
        if not self._restarting:
            self.finished.set()

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
            # When this block's first sample is due: behind the stream's latency, or, right
            # after a restart, behind only what went into the emptied buffers before it.
            t_play = self._clock() + min(self._out_latency, self._fresh / self.device_rate)
            self._fresh += frames
            while filled < frames and self._segments and not self._paused:
                seg = self._segments[0]
                n = min(frames - filled, len(seg.samples) - seg.offset)
                out[filled:filled + n] = seg.samples[seg.offset:seg.offset + n]
                if seg.offset == 0 and seg.tag != self._last_tag and not seg.announced:  # later chunks: no new start
                    seg.announced = True
                    self._last_tag = seg.tag
                    self._started.append((seg.tag, time.perf_counter()))
                seg.offset += n
                filled += n
                self.stats.played[seg.tag] = self.stats.played.get(seg.tag, 0) + n
                self._handed.append(_Handed(seg, n, t_play + filled / self.device_rate))
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
            self.far_tap.push(out.copy(), t_play, underflow)

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
        with self._stream_lock:
            stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.abort()
                stream.close()
            except Exception:  # noqa: BLE001
                log.debug("closing the output stream failed", exc_info=True)
        if self._notifier is not None and self._notifier is not threading.current_thread():
            self._notifier.join(timeout=2)
