"""Acoustic echo cancellation on the live microphone: WebRTC's AEC3 (with its noise
suppression and high-pass filter) through `pywebrtc-audio` (why that binding:
docs/design-echo.md).

The far end is exactly what the player handed to PortAudio, block by block, silence
included (`FarEndTap.push`, called from the output callback: a copy and a deque append,
nothing else). The audio thread pairs each 10 ms microphone frame with the far-end
samples *played* `shift_ms` after it was *captured*, on one timeline built from the
callbacks' clock and the streams' latencies, so the canceller sees each echo
'shift_ms + the room's path' after its reference (its own delay estimator takes the
rest). Both timelines are medians over recent blocks: callback jitter does not move
them. A known break in the far end - an underrun PortAudio reported, or a new output
stream after the first - anchors the far timeline at once on the first block after it
(then refined by the median), so the echo of the next words is cancelled from the start
instead of after half a second of re-learning (a leaked echo can interrupt the tutor).
A drop of the output on a pause or a barge-in (the player aborts and restarts its stream:
`FarEndTap.flushed`) is no break: what was handed out but not yet due is silenced in the
reference (it never played) and the first block after it anchors the far timeline at once,
on the same path. Each break is reported with the block it came in (`Cancelled.broke`): after a stall of
the audio system the echo itself came back up to 129 ms later and AEC3 needed seconds to
follow, so the call gates the microphone for the rest of that reply (call/listen/echo_gate.py
`EchoGate.unsettle`). A re-anchor alone is no break: the clocks drift by 30 ms over minutes
and AEC3 follows that at once.
"""
from __future__ import annotations

import logging
import statistics
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

import numpy as np
from numpy.typing import NDArray

from tutor_app.core.types import SAMPLE_RATE
from tutor_app.errors import TutorError

if TYPE_CHECKING:
    from pywebrtc_audio import AudioProcessor

    from tutor_app.speech.audio_io import StreamResampler

log = logging.getLogger(__name__)

FRAME = SAMPLE_RATE // 100  # AEC3 works on 10 ms frames
# Far-end samples kept for pairing. Not only the echo's path: the audio thread reads the
# microphone late when it falls behind (it waits, bounded to 5 s, for the words of speech
# over the tutor while a slow CPU decodes), and the blocks it catches up on still need the
# far end they were captured with. With 2 s, 6 s behind they were paired with silence: the
# tutor's whole echo came through as "speech" and a looped-back "Mm-hmm." stopped it.
HISTORY_S = 10.0
# AEC3 converges over the first second of a loud far end (measured: ERLE from 1 s on is
# 35-60 dB while the total over a 6 s reply is 20-48): `settled_erle_db` starts after it.
SETTLE_FRAMES = 100


class CancellerUnavailable(TutorError):
    """The echo canceller's library is missing or would not start."""


@dataclass(frozen=True)
class AecOptions:
    noise_suppression: bool = True
    high_pass: bool = True
    gain_control: bool = False
    # Each microphone frame is paired with the far end played this much *after* it was
    # captured (by the streams' clocks). The clocks' estimates of when a sample really
    # left / reached the converter are off by tens of ms (measured here: -17 ms apparent
    # path on a 30 ms loopback), so the shift keeps every echo behind its reference;
    # AEC3's delay estimator (hundreds of ms) finds the rest.
    shift_ms: int = 80


def probe() -> tuple[bool, str]:
    """(usable, one line why) without keeping anything."""
    try:
        EchoCanceller.load(AecOptions())
    except CancellerUnavailable as exc:
        return False, str(exc)
    return True, "WebRTC AEC3 (pywebrtc-audio) loads"


# What FarEndTap holds: ("start", rate) for a new output stream, ("flushed", t) for a drop of
# what was not yet played at t (perf_counter), or (samples, t_play, underflow).
FarEntry = Union[tuple[str, int], tuple[str, float], tuple[NDArray[np.float32], float, bool]]


class FarEndTap:
    """What the speaker plays, handed over by the output callback (any thread)."""

    def __init__(self) -> None:
        self._blocks: deque[FarEntry] = deque(maxlen=2000)  # ~50 s of 25 ms blocks: never grows without bound
        self.rate = SAMPLE_RATE

    def started(self, rate: int) -> None:
        """A (new) output stream at `rate` Hz."""
        self._blocks.append(("start", int(rate)))

    def push(self, samples: NDArray[np.float32], t_play: float, underflow: bool = False) -> None:
        """PortAudio's output callback: `samples` (a copy) start playing at `t_play`;
        `underflow`: PortAudio said the device ran dry before this block (a gap in time)."""
        self._blocks.append((samples, t_play, underflow))

    def flushed(self, t: float) -> None:
        """The player dropped what the sound system held at `t` (perf_counter) and restarted
        its stream (same device, same rate): those samples never played."""
        self._blocks.append(("flushed", float(t)))

    def drain(self) -> list[FarEntry]:
        out: list[FarEntry] = []
        while self._blocks:
            out.append(self._blocks.popleft())
        return out


class _Timeline:
    """Sample counter -> time. The origin is the median of recent (time - count / rate)
    readings, frozen once settled: the canceller needs a reference that does not move
    with callback jitter. It moves only when the stream really shifted (an underrun, a
    stalled device) by more than `REANCHOR_S`."""

    SETTLE = 21  # blocks before the origin is trusted
    REANCHOR_S = 0.03

    def __init__(self, name: str, immediate: bool = False) -> None:
        """`name`: whose timeline (the logs); `immediate`: trust the first reading at once
        (a stream that replaces another mid-call) instead of waiting SETTLE blocks with no
        reference at all."""
        self.name = name
        self.count = 0
        self._offsets: deque[float] = deque(maxlen=41)
        self._origin: float | None = None
        self._immediate = immediate

    def add(self, n: int, t_first: float, jump: bool = False) -> bool:
        """`jump`: the stream really moved before this block (a reported underrun). True
        when that broke a timeline already in use."""
        reading = t_first - self.count / SAMPLE_RATE
        broke = jump and self._origin is not None
        if jump or (self._immediate and self._origin is None):
            self._offsets.clear()  # the readings before the break describe another timeline
            self._origin = reading
        self._offsets.append(reading)
        self.count += n
        if len(self._offsets) < self.SETTLE:
            return broke
        current = statistics.median(self._offsets)
        if self._origin is None or abs(current - self._origin) > self.REANCHOR_S:
            if self._origin is not None:
                log.debug("echo reference re-anchored: the %s timeline by %.0f ms after %d samples",
                          self.name, (current - self._origin) * 1000, self.count)
            self._origin = current
        return broke

    def origin(self) -> float | None:
        return self._origin


@dataclass(frozen=True)
class Cancelled:
    """One block through the canceller: `cleaned` is AEC3's output (its suppressor removes
    the echo and, during double talk, part of the learner's voice with it: what tells
    whether the learner speaks); `raw` and `far` are its input, the microphone and the far
    end paired with each sample (what speech/double_talk.py recovers the learner's words from)."""

    cleaned: NDArray[np.float32]
    raw: NDArray[np.float32]
    far: NDArray[np.float32]
    broke: bool = False  # the far end broke (a reported underrun, a new stream) since the last block


class EchoCanceller:
    """Cleans 16 kHz microphone samples of what `tap` says the speaker played."""

    def __init__(self, processor: AudioProcessor, options: AecOptions, tap: FarEndTap | None = None) -> None:
        self._apm = processor
        self.options = options
        self.tap = tap or FarEndTap()
        self._far = np.zeros(int(HISTORY_S * SAMPLE_RATE), dtype=np.float32)  # ring over far counts
        self._far_line = _Timeline("far end")
        # The stream a new one replaced: its last blocks may still be heard after the new
        # stream starts (a speaker switch mid-sentence), so they stay a reference.
        self._prev: tuple[_Timeline, NDArray[np.float32]] | None = None
        self._near_line = _Timeline("microphone")
        self._near_pending = np.zeros(0, dtype=np.float32)
        self._resampler: StreamResampler | None = None
        self._far_rate = SAMPLE_RATE
        self.cpu_s = 0.0
        self.frames = 0
        self._energy = [0.0, 0.0]  # near in / out while the far end was loud (ERLE)
        self._settled = [0.0, 0.0]  # the same, after the first SETTLE_FRAMES loud ones
        self._loud = 0
        self._broke = False
        self._restarted = False  # the output was dropped: the next far block anchors its timeline

    @classmethod
    def load(cls, options: AecOptions | None = None, tap: FarEndTap | None = None) -> "EchoCanceller":
        options = options or AecOptions()
        try:
            import pywebrtc_audio
        except ImportError as exc:
            raise CancellerUnavailable(f"echo cancellation is not installed ({exc}); "
                                       "pip install pywebrtc-audio") from None
        try:
            processor = pywebrtc_audio.AudioProcessor(
                SAMPLE_RATE, 1, echo_cancellation=True, noise_suppression=options.noise_suppression,
                high_pass_filter=options.high_pass, auto_gain_control=options.gain_control,
                stream_delay_ms=0)
            processor.process(np.zeros(FRAME, dtype=np.float32), np.zeros(FRAME, dtype=np.float32))
        except Exception as exc:  # noqa: BLE001 - a broken native library
            raise CancellerUnavailable(f"echo cancellation would not start ({type(exc).__name__}: {exc})") from None
        return cls(processor, options, tap)

    @property
    def erle_db(self) -> float | None:
        """Echo return loss enhancement over the frames where the far end was loud."""
        return _erle(*self._energy)

    @property
    def paired(self) -> bool:
        """Both timelines are settled: from now on every microphone frame gets its far end
        (in a call, from shortly after it starts: both streams run for the whole call)."""
        return self._near_line.origin() is not None and self._far_line.origin() is not None

    @property
    def settled_erle_db(self) -> float | None:
        """ERLE once the canceller has had SETTLE_FRAMES loud frames to converge: how well
        it cancels, apart from how soon it starts to."""
        return _erle(*self._settled)

    def process(self, samples: np.ndarray, t_capture: float) -> NDArray[np.float32]:
        """16 kHz microphone samples whose first one was captured at `t_capture`
        (perf_counter) -> cleaned samples (whole 10 ms frames; the rest waits for the next call)."""
        return self.process_block(samples, t_capture).cleaned

    def process_block(self, samples: np.ndarray, t_capture: float) -> Cancelled:
        """`process`, with the microphone and far-end samples the cleaned ones came from."""
        started = time.process_time()
        self._take_far()
        samples = np.asarray(samples, dtype=np.float32).reshape(-1)
        self._near_line.add(len(samples), t_capture)
        data = np.concatenate([self._near_pending, samples])
        n_frames = len(data) // FRAME
        self._near_pending = data[n_frames * FRAME:]
        first = self._near_line.count - len(samples) - (len(data) - len(samples))  # count of data[0]
        out = np.empty(n_frames * FRAME, dtype=np.float32)
        fars = np.empty(n_frames * FRAME, dtype=np.float32)
        for k in range(n_frames):
            near = data[k * FRAME:(k + 1) * FRAME]
            far = self._far_for(first + k * FRAME)
            fars[k * FRAME:(k + 1) * FRAME] = far
            cleaned = np.asarray(self._apm.process(near, far), dtype=np.float32).reshape(-1)
            out[k * FRAME:(k + 1) * FRAME] = cleaned
            if float(np.mean(far * far)) > 1e-4:
                energy = float(np.mean(near * near)), float(np.mean(cleaned * cleaned))
                self._energy[0] += energy[0]
                self._energy[1] += energy[1]
                self._loud += 1
                if self._loud > SETTLE_FRAMES:
                    self._settled[0] += energy[0]
                    self._settled[1] += energy[1]
        self.frames += n_frames
        self.cpu_s += time.process_time() - started
        broke, self._broke = self._broke, False
        return Cancelled(out, data[:n_frames * FRAME].copy(), fars, broke)

    # -- far end ---------------------------------------------------------------------------
    def _take_far(self) -> None:
        from tutor_app.speech.audio_io import StreamResampler

        for entry in self.tap.drain():
            if len(entry) == 3:
                self._add_far(*entry)
            elif entry[0] == "flushed":
                self._silence_after(float(entry[1]))
            else:  # ("start", rate): a new output stream
                rate = int(entry[1])
                self._far_rate = rate
                self._resampler = StreamResampler(rate, SAMPLE_RATE) if rate != SAMPLE_RATE else None
                if self._far_line.count > 0:
                    self._prev = (self._far_line, self._far)
                    self._broke = True
                    self._far = np.zeros_like(self._far)
                self._far_line = _Timeline("far end", immediate=self._far_line.count > 0)

    def _add_far(self, block: NDArray[np.float32], t: float, underflow: bool) -> None:
        """One block the speaker played from `t` (`underflow`: PortAudio ran dry before it)."""
        start_count = self._far_line.count
        samples = self._resampler.process(block) if self._resampler is not None else block
        restarted, self._restarted = self._restarted, False
        broke = self._far_line.add(len(samples), t, jump=(underflow or restarted) and start_count > 0)
        self._broke |= broke and not restarted
        idx = (start_count + np.arange(len(samples))) % len(self._far)
        self._far[idx] = samples

    def _silence_after(self, t: float) -> None:
        """The player dropped what had not played by `t`: silence in the reference from there
        to the newest far sample; the next block re-anchors the timeline (it restarted)."""
        origin = self._far_line.origin()
        newest = self._far_line.count
        if origin is not None:
            first = max(newest - len(self._far), int(np.ceil((t - origin) * SAMPLE_RATE)))
            if first < newest:
                self._far[np.arange(first, newest) % len(self._far)] = 0.0
        self._restarted = newest > 0

    def _far_for(self, near_count: int) -> NDArray[np.float32]:
        """The far-end frame played `shift_ms` after near sample `near_count` was captured:
        from the current output stream, else from the one it replaced."""
        near0 = self._near_line.origin()
        if near0 is not None:
            t = near0 + near_count / SAMPLE_RATE + self.options.shift_ms / 1000
            for line, ring in ((self._far_line, self._far), *([self._prev] if self._prev else [])):
                frame = _frame_at(line, ring, t)
                if frame is not None:
                    return frame
        return np.zeros(FRAME, dtype=np.float32)


def _erle(near_in: float, near_out: float) -> float | None:
    if near_in <= 0:
        return None
    return 10 * float(np.log10(near_in / max(near_out, 1e-12)))


def _frame_at(line: _Timeline, ring: NDArray[np.float32], t: float) -> NDArray[np.float32] | None:
    """The frame of `line` that plays at time `t`, or None when that stream played nothing
    then (not yet, before it started, or longer ago than the ring holds)."""
    origin = line.origin()
    if origin is None:
        return None
    start = int(round((t - origin) * SAMPLE_RATE))
    newest = line.count
    if start < 0 or start + FRAME > newest or start < newest - len(ring) + FRAME:
        return None
    return ring[(start + np.arange(FRAME)) % len(ring)]
