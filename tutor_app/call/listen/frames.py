"""The Listener's recent microphone frames, indexed as the segmenter counts them.

Each 512-sample frame is what turn-taking heard (AEC3's output when a canceller runs) and,
beside it, the canceller's input for it: the raw microphone and the far end it was paired
with. Speech that began over the tutor is cut from those instead, with the echo removed
linearly (call/listen/overlap.py, speech/double_talk.py): AEC3's suppressor would eat the
learner's first words.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tutor_app.call.listen.overlap import LinearCopy, Ref, linear_copy
from tutor_app.core.types import FRAME_SAMPLES
from tutor_app.speech.double_talk import MIN_FAR_RMS, speech_onset

if TYPE_CHECKING:
    from numpy.typing import NDArray


# An echo path fitted this recently (512 ms) is used again: one fitted at the first voiced
# frame over the tutor serves its confirmation (250 ms of voice later) and the echo check.
PATH_REUSE_FRAMES = 16


class MicFrames:
    def __init__(self) -> None:
        self._frames: list[np.ndarray] = []  # frames since segmenter index `_base`
        self._refs: list[Ref | None] = []  # (microphone, far end) of each frame, or None
        self._base = 0
        self._pending: np.ndarray | None = None  # samples short of a frame
        self._pending_ref: np.ndarray | None = None  # (2, n): their microphone and far end
        # The last echo path fitted (linear) and one past the last frame it was fitted on:
        # the confirmation and the echo check after it use it instead of fitting again (a
        # fit cost 20-50 ms on the audio thread, right as the tutor was to pause).
        self._path: tuple[np.ndarray, int] | None = None
        # The earliest start found for the speech confirmed at a frame: (that frame, the
        # start's sample counted from segmenter index 0). A later look fits the echo path on
        # more of the learner's own voice and can miss a start the first look found (the
        # learner's "Sorry," lost in 2 of 30 barge-ins right as a reply began): found once,
        # it stays found.
        self._onset: tuple[int, int] | None = None

    def split(self, samples: np.ndarray, raw: np.ndarray | None,
              far: np.ndarray | None) -> list[tuple[np.ndarray, Ref | None]]:
        """Samples of any length (and the canceller's input for them) -> whole frames."""
        pending = samples if self._pending is None else np.concatenate([self._pending, samples])
        ref = None
        if raw is not None and far is not None and (self._pending is None or self._pending_ref is not None):
            pair = np.stack([raw, far])
            ref = pair if self._pending_ref is None else np.concatenate([self._pending_ref, pair], axis=1)
        out: list[tuple[np.ndarray, Ref | None]] = []
        while pending.size >= FRAME_SAMPLES:
            frame, pending = pending[:FRAME_SAMPLES], pending[FRAME_SAMPLES:]
            frame_ref: Ref | None = None
            if ref is not None:
                frame_ref = (ref[0, :FRAME_SAMPLES], ref[1, :FRAME_SAMPLES])
                ref = ref[:, FRAME_SAMPLES:]
            out.append((frame, frame_ref))
        self._pending = pending
        self._pending_ref = ref
        return out

    def drop_partial(self) -> None:
        """A new stream: samples short of a frame belong to the old one."""
        self._pending = self._pending_ref = None

    def append(self, frame: np.ndarray, ref: Ref | None) -> None:
        self._frames.append(frame)
        self._refs.append(ref)

    def clear(self) -> None:
        """Index 0 is the next frame appended (the segmenter was reset)."""
        self._frames.clear()
        self._refs.clear()
        self._base = 0
        self._path = None
        self._onset = None

    @property
    def end(self) -> int:
        """Segmenter index one past the newest frame."""
        return self._base + len(self._frames)

    def cut(self, start: int, end: int) -> NDArray[np.float32]:
        """What turn-taking heard in frames [start, end)."""
        a, b = self._span(start, end)
        return np.concatenate(self._frames[a:b]) if b > a else np.zeros(0, dtype=np.float32)

    def linear(self, start: int, end: int, reuse: bool = False) -> tuple[LinearCopy, int] | None:
        """The echo-removed microphone of frames [start, end) fitted on them and the seconds
        before: (the copy, sample of `start` in it); None without a canceller's input.
        `reuse`: with the echo path fitted last, when that fit ended at most PATH_REUSE_FRAMES
        before `end` (the path barely moves in that time)."""
        a, b = self._span(start, end)
        copy = None
        if reuse and self._path is not None and end - self._path[1] <= PATH_REUSE_FRAMES:
            copy = linear_copy(self._refs, a, b, self._path[0])
        if copy is None:
            copy = linear_copy(self._refs, a, b)
            if copy is not None and copy.path is not None:
                self._path = (copy.path, self._base + b)
        return None if copy is None else (copy, (a - copy.first) * FRAME_SAMPLES)

    def fit_ahead(self) -> None:
        """A voiced frame over the tutor that may start speech: the echo path is fitted now,
        on the tutor before it, unless one was fitted lately. Its confirmation 250 ms of voice
        later then fits nothing: the cost falls while the audio thread has frames to catch up
        on, not on the frame that ducks and pauses the tutor."""
        if self._path is None or self.end - self._path[1] > PATH_REUSE_FRAMES // 2:
            self.linear(self.end - 1, self.end)

    def tutor_played(self, index: int) -> bool:
        """The far end paired with frame `index` was loud (MIN_FAR_RMS): the speaker played
        the tutor as it was captured. False without a canceller's input."""
        a, _ = self._span(index, index + 1)
        ref = self._refs[a] if a < len(self._refs) else None
        return ref is not None and float(np.sqrt(np.mean(np.square(ref[1], dtype=np.float64)))) >= MIN_FAR_RMS

    def hidden_before(self, start: int) -> int:
        """Frames of speech over the tutor before `start` (the VAD's start) that AEC3's
        suppressor hid (speech_onset; 0 without a canceller's input): the learner has been
        talking that long already, so the interruption need not wait for that voice again."""
        found = self.linear(start, self.end, reuse=True)
        if found is None:
            return 0
        copy, at = found
        return (at - self._onset_in(copy, start, at, copy.raw.size)) // FRAME_SAMPLES

    def echo_removed_db(self, start: int, end: int) -> float | None:
        """How much the linear echo removal (fitted on frames [start, end) and the seconds
        before, or the path fitted a moment ago: `linear`) takes off the microphone over
        frames [start, end), in dB: the learner's energy against the echo estimate. A voice of the learner's is not removed (0-3 dB),
        the tutor's echo alone is (12-20 dB on the looped-back sound card). None without a
        canceller's input."""
        found = self.linear(start, self.end, reuse=True)
        if found is None:
            return None
        copy, at = found
        a, b = self._span(start, end)
        stop = at + (b - a) * FRAME_SAMPLES
        raw, left = copy.raw[at:stop].astype(np.float64), copy.cleaned[at:stop].astype(np.float64)
        if not raw.size:
            return None
        return float(10 * np.log10((np.mean(raw * raw) + 1e-18) / (np.mean(left * left) + 1e-18)))

    def words(self, start: int, end: int, over_tutor: bool, floor: bool = True) -> NDArray[np.float32]:
        """Frames [start, end) for STT, the judge and the emotion model: as heard, or for
        speech that began over the tutor the linear copy (its echo path fitted on every frame
        there is: the tutor alone after the speech helps when it came right as a reply
        began), from where the speech really began (AEC3 can hide a first word from the VAD).
        `floor`: the learner has it (an interruption): pauses kept, residual echo suppressed;
        False while a short sound is judged (a backchannel?): only the blocks of voice."""
        found = self.linear(start, self.end) if over_tutor else None
        if found is None:
            return self.cut(start, end)
        copy, at = found
        a, b = self._span(start, end)
        stop = at + (b - a) * FRAME_SAMPLES
        return copy.voice(floor)[self._onset_in(copy, start, at, stop):stop]

    def _onset_in(self, copy: LinearCopy, start: int, at: int, stop: int) -> int:
        """Where the speech confirmed at frame `start` (sample `at` of `copy`) began, in
        `copy`'s samples: speech_onset, or the earliest start found for it before."""
        origin = (self._base + copy.first) * FRAME_SAMPLES  # `copy`'s first sample, from index 0
        onset = origin + speech_onset(copy.raw, copy.cleaned, copy.far, at, stop)
        if self._onset is not None and self._onset[0] == start:
            onset = min(onset, self._onset[1])
        self._onset = (start, onset)
        return max(0, onset - origin)

    def keep_last(self, keep: int) -> None:
        extra = len(self._frames) - keep
        if extra > 0:
            del self._frames[:extra]
            del self._refs[:extra]
            self._base += extra

    def _span(self, start: int, end: int) -> tuple[int, int]:
        a = max(0, start - self._base)
        return a, max(a, end - self._base)
