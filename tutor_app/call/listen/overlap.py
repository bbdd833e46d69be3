"""Speech while the tutor is audible (full duplex, echo cancelled), for the Listener.

Two paths, by how much voice there is (AEC3's output, Silero frames):
- Confirmed speech (the segmenter's `min_speech_ms`): the tutor is ducked at once, and its
  voice and words decide whether it is an interruption (call/listen/interruption.py).
- A short stretch the segmenter never confirms (at least `backchannel_min_ms` of voice,
  then `over_tutor_ms` of quiet): AEC3's suppressor leaves an "mm-hm" over the tutor only
  30-250 ms of voice, too little to confirm. A second later (`SETTLE_MS`: the tutor alone
  after it is what the echo path is fitted on when the "mm-hm" came right at the start of
  a reply) it is kept as a backchannel when
  (1) the linear echo removal (speech/double_talk.py) takes `double_talk_db` less off the
      microphone over the stretch than over the blocks around it where the tutor alone
      played - a classic double-talk test: the echo is removed, a second voice is not, and
      a leak of the echo alone is removed as well as ever, however loud the tutor got;
  (2) Whisper, told to expect a backchannel, hears one (turn_taking.backchannel_in: it
      sometimes puts a word of the residual echo before it, "In the Mm-hmm." keeps "Mm-hmm").
  It never stops or ducks the tutor: nothing here is an interruption, so a leak of the
  tutor's own voice costs at most a linear fit (and rarely one short STT decode).
"""
from __future__ import annotations

import logging
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from tutor_app.call.listen.turn_taking import BACKCHANNEL_HINTS, backchannel_in
from tutor_app.call.options import frames
from tutor_app.core.types import FRAME_SAMPLES, SAMPLE_RATE
from tutor_app.speech.bias import BiasList
from tutor_app.speech.double_talk import MIN_FAR_RMS, GateOptions, block_rms, keep_second_voice, linear_echo_removal
from tutor_app.speech.residual_echo import suppress_residual_echo

if TYPE_CHECKING:
    from tutor_app.call.options import LoopOptions

log = logging.getLogger(__name__)

ESTIMATE_S = 2.0  # seconds before the speech the echo path is fitted on (it drifts: shorter fits better)
SETTLE_MS = 1000  # a short stretch is looked at this long after it ended (the tutor alone after it)
# Whisper is told to expect a backchannel: tiny.en heard a looped-back "mm-hmm" as "in my
# mind" / "Amen, mom" / "MM." without the hint, "Mm-hmm." with it in 7 of 8 clips.
EXPECT = BiasList(BACKCHANNEL_HINTS)
Ref = tuple[np.ndarray, np.ndarray]  # (microphone, far end) of one frame, as the canceller paired them
FLOOR_GATE = GateOptions(keep_pause_ms=480)  # the words of a learner who has the floor keep their pauses


class BackchannelPort(Protocol):
    """What ShortSpeech needs of the call (the Listener's port, CallLoop)."""

    def transcribe_later(self, audio: Any, expect: BiasList | None = None) -> Any: ...
    def backchannel(self, text: str) -> None: ...


@dataclass(frozen=True)
class LinearCopy:
    """The microphone from frame `first` on, with the echo removed linearly (`cleaned`) and
    as captured (`raw`), and the far end paired with it."""

    cleaned: np.ndarray
    raw: np.ndarray
    far: np.ndarray
    first: int
    path: np.ndarray | None = None  # the echo path removed (None: the far end played nothing)

    def voice(self, floor: bool = False) -> np.ndarray:
        """`cleaned` with the blocks of the tutor's echo alone turned down (for Whisper); for
        a learner who has the floor, with its pauses and the residual echo suppressed under
        its words (speech/residual_echo.py)."""
        if not floor:
            return keep_second_voice(self.raw, self.cleaned, self.far)
        quieter = suppress_residual_echo(self.raw, self.cleaned, self.far)
        return keep_second_voice(self.raw, self.cleaned, self.far, FLOOR_GATE, quieter)


def linear_copy(refs: list[Ref | None], a: int, b: int, path: np.ndarray | None = None) -> LinearCopy | None:
    """Frames [a, b) (indexes into `refs`) and up to ESTIMATE_S before them, the echo path
    fitted on all of it - or `path` (fitted a moment ago) removed from it, nothing fitted;
    None when a frame has no reference (no canceller ran)."""
    lo = max(0, a - round(ESTIMATE_S * SAMPLE_RATE / FRAME_SAMPLES))
    span = refs[lo:b]
    if b <= a or not span or any(r is None for r in span):
        return None
    raw = np.concatenate([r[0] for r in span if r is not None])
    far = np.concatenate([r[1] for r in span if r is not None])
    cleaned, used = linear_echo_removal(raw, far, path=path)
    return LinearCopy(cleaned, raw, far, lo, used)


@dataclass
class _Stretch:
    start: int  # first voiced frame (segmenter index)
    last: int  # last voiced frame
    voiced: int = 1


class ShortSpeech:
    """Short stretches of voice over the tutor -> kept backchannels (see the module doc)."""

    def __init__(self, options: LoopOptions, port: BackchannelPort) -> None:
        ends, over = options.endpointing, options.interruption
        self._min_voiced = frames(over.backchannel_min_ms)
        self._max_frames = frames(over.backchannel_max_ms)
        self._gap = frames(ends.over_tutor_ms)
        self._settle = frames(SETTLE_MS)
        self._pad = frames(ends.preroll_ms) * FRAME_SAMPLES  # looked at past the stretch's end
        self._ended: list[tuple[int, int, int]] = []  # (start, end, frame to look at it)
        self._threshold = ends.segmenter().low  # AEC3 leaves an "mm-hm" soft: the segmenter's lower threshold
        self._db = over.double_talk_db
        self._port = port
        self._stretch: _Stretch | None = None
        self._pending: list[tuple[Future[Any], int]] = []  # (its transcript, the stretch's end)
        # One past the last stretch kept as a backchannel: it starts no utterance
        # (Segmenter.forget_before). Not any stretch: AEC3 can hide a sentence's first words
        # as short sounds, which belong to the speech the segmenter then confirms.
        self.kept_until = 0

    def reset(self) -> None:
        """Real speech started (or the stream did): stretches in the making or waiting go."""
        self._stretch = None
        self._ended.clear()
        self.kept_until = 0

    def frame(self, index: int, probability: float, audible: bool) -> tuple[int, int] | None:
        """One frame while the segmenter is not in an utterance -> (start, end) of a short
        stretch worth a look now, else None: SETTLE_MS after it ended (`over_tutor_ms` of quiet)."""
        due = self._ended[0] if self._ended and index >= self._ended[0][2] else None
        if due is not None:
            self._ended.pop(0)
        s = self._stretch
        if not audible:
            self._stretch = None
        elif probability >= self._threshold:
            if s is None:
                self._stretch = _Stretch(index, index)
            else:
                s.last = index
                s.voiced += 1
        elif s is not None and index - s.last >= self._gap:
            self._stretch = None
            log.debug("short sound over the tutor: %d frames, %d voiced", s.last + 1 - s.start, s.voiced)
            if self._ended and s.start - self._ended[-1][1] <= 2 * self._gap:
                s.start = self._ended.pop()[0]  # one "mm... hm" heard as two stretches: one sound
            if self._min_voiced <= s.voiced and s.last + 1 - s.start <= self._max_frames:
                self._ended.append((s.start, s.last + 1, index + self._settle))
        return None if due is None else due[:2]

    def look(self, found: tuple[LinearCopy, int] | None, span: tuple[int, int]) -> None:
        """A stretch `span` (frames) is due (`frame`): `found` is the linear copy and the
        sample of the stretch's start in it (MicFrames.linear), None without a canceller's input."""
        if found is None:
            log.debug("short sound over the tutor: no echo reference to judge it by")
            return
        copy, start = found
        self.check(copy, start, start + (span[1] - span[0]) * FRAME_SAMPLES, self._pad, span[1])

    def check(self, copy: LinearCopy, start: int, end: int, pad: int, until: int = 0) -> None:
        """The stretch is samples [start, end) of `copy` (segmenter frames up to `until`). To
        STT (with `pad` samples after it) when the echo removal passes a second voice through,
        compared with the 32 ms blocks around it where the tutor alone played (at least `pad`
        away: the voice goes on softer than the VAD hears)."""
        if end <= start:
            return
        blocks = [slice(k * FRAME_SAMPLES, (k + 1) * FRAME_SAMPLES)
                  for k, level in enumerate(block_rms(copy.far, FRAME_SAMPLES)) if level >= MIN_FAR_RMS]
        alone = [b for b in blocks if b.stop <= start - pad or b.start >= end + pad]
        if len(alone) < 4:
            log.debug("short sound over the tutor: the tutor alone played too little around it to judge")
            return
        echo_raw = np.concatenate([copy.raw[b] for b in alone])
        echo_left = np.concatenate([copy.cleaned[b] for b in alone])
        removed_alone = _db(rms_of(echo_raw), rms_of(echo_left))
        removed = _db(rms_of(copy.raw[start:end]), rms_of(copy.cleaned[start:end]))
        if removed_alone - removed < self._db:
            log.debug("short sound over the tutor: its echo (%.1f dB removed vs %.1f around it)",
                      removed, removed_alone)
            return
        log.debug("short sound over the tutor: a second voice (%.1f dB removed vs %.1f around it)",
                  removed, removed_alone)
        # From one frame before the stretch (its onset): Whisper made "In Mm-hmm." of more.
        clip = copy.voice()[max(0, start - FRAME_SAMPLES):end + pad]
        self._pending.append((self._port.transcribe_later(clip, EXPECT), until))

    def poll(self) -> None:
        """Backchannels whose transcripts are in (the audio thread, each frame)."""
        while self._pending and self._pending[0][0].done():
            future, until = self._pending.pop(0)
            try:
                text = (getattr(future.result(), "text", "") or "").strip()
            except Exception as exc:  # noqa: BLE001 - a failed decode: nothing to keep
                log.warning("a short sound over the tutor could not be transcribed: %s", exc)
                continue
            words = backchannel_in(text)
            if words:
                self._port.backchannel(words)
                self.kept_until = max(self.kept_until, until)
            else:
                log.debug("short sound over the tutor: not a backchannel (%d words)", len(text.split()))


def rms_of(x: np.ndarray) -> float:
    """The level of a frame (or any samples): 0 for none."""
    return float(np.sqrt(np.mean(np.asarray(x, dtype=np.float64) ** 2))) if x.size else 0.0


def _db(level: float, floor: float) -> float:
    return 20 * float(np.log10(max(level, 1e-9) / max(floor, 1e-9)))
