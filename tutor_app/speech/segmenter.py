"""Turn-taking from VAD probabilities: pure Python, no audio, no clocks.

Feed one speech probability per frame; get `SpeechStarted` as soon as the learner has
really started talking (used for barge-in) and `UtteranceEnded` once they have been
quiet for `silence_ms` (the turn goes to STT). Frame indexes count from the last
`reset()`, so the caller cuts its own audio buffer with them.

Rules (hysteresis as in Silero's reference code):
- a frame is speech when p >= threshold; once talking, it stays speech down to
  neg_threshold (default threshold - 0.15), so soft syllables do not end a turn;
- a stretch of speech becomes an utterance only when it holds min_speech_ms of speech
  frames; shorter blips (a cough, a click) are dropped without any event;
- the utterance starts preroll_ms before its first speech frame (the onset of the first
  word is quiet and the VAD notices it late);
- it ends after silence_ms of silence, or at max_utterance_ms (Whisper's 30 s window).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Union

from tutor_app.core.types import FRAME_MS


@dataclass(frozen=True)
class SegmenterOptions:
    threshold: float = 0.5
    neg_threshold: float | None = None  # None -> max(threshold - 0.15, 0.01)
    silence_ms: int = 600
    min_speech_ms: int = 250
    preroll_ms: int = 300
    max_utterance_ms: int = 30_000
    frame_ms: float = FRAME_MS

    @property
    def low(self) -> float:
        return self.neg_threshold if self.neg_threshold is not None else max(self.threshold - 0.15, 0.01)

    def frames(self, ms: float) -> int:
        """Whole frames covering `ms` (at least 1 for a positive duration)."""
        if ms <= 0:
            return 0
        return max(1, int(round(ms / self.frame_ms)))


@dataclass(frozen=True)
class SpeechStarted:
    start_frame: int  # first frame of the utterance, pre-roll included
    frame: int  # the frame at which speech was confirmed

    def start_s(self, frame_ms: float = SegmenterOptions.frame_ms) -> float:
        return self.start_frame * frame_ms / 1000


@dataclass(frozen=True)
class UtteranceEnded:
    start_frame: int  # pre-roll included
    end_frame: int  # exclusive: one past the last speech frame
    reason: str = "silence"  # silence | max_length | flush | turn (ended early by turn-taking)

    def start_s(self, frame_ms: float = SegmenterOptions.frame_ms) -> float:
        return self.start_frame * frame_ms / 1000

    def end_s(self, frame_ms: float = SegmenterOptions.frame_ms) -> float:
        return self.end_frame * frame_ms / 1000


Event = Union[SpeechStarted, UtteranceEnded]


class Segmenter:
    def __init__(self, options: SegmenterOptions | None = None) -> None:
        self.options = options or SegmenterOptions()
        self.reset()

    def reset(self) -> None:
        self._frame = 0  # index of the next frame fed
        self._state = "idle"  # idle | pending | speaking
        self._first_speech = 0  # first speech frame of the current stretch
        self._last_speech = 0  # last speech frame of the current stretch
        self._speech_frames = 0
        self._silent_run = 0
        self._start_frame = 0
        self._floor = 0  # an utterance never starts before the previous one ended

    @property
    def speaking(self) -> bool:
        """True between SpeechStarted and UtteranceEnded."""
        return self._state == "speaking"

    def feed(self, probability: float) -> list[Event]:
        o = self.options
        i = self._frame
        self._frame += 1
        events: list[Event] = []
        if self._state == "idle":
            if probability >= o.threshold:
                self._state = "pending"
                self._first_speech = self._last_speech = i
                self._speech_frames = 1
                self._silent_run = 0
                events += self._maybe_confirm(i)
            return events
        is_speech = probability >= (o.low if self._state == "speaking" else o.threshold)
        if is_speech:
            self._last_speech = i
            self._speech_frames += 1
            self._silent_run = 0
        else:
            self._silent_run += 1
        if self._state == "pending":
            if is_speech:
                events += self._maybe_confirm(i)
            elif self._silent_run >= o.frames(o.silence_ms):
                self._state = "idle"  # a blip: never reported
            return events
        # speaking
        if self._silent_run >= o.frames(o.silence_ms):
            events.append(self._end("silence"))
        elif o.max_utterance_ms and (i + 1 - self._start_frame) >= o.frames(o.max_utterance_ms):
            events.append(self._end("max_length", end_frame=i + 1))
        return events

    def hold(self) -> None:
        """The silence so far does not count (the tutor's echo was hiding the voice): an
        utterance in progress ends `silence_ms` of silence from now at the earliest."""
        self._silent_run = 0

    def forget_before(self, frame: int) -> None:
        """Voice before `frame` starts no utterance (it was kept on its own: a backchannel
        over the tutor). A stretch in the making that began before it is dropped; an
        utterance in progress stays."""
        self._floor = max(self._floor, frame)
        if self._state == "pending" and self._first_speech < frame:
            self._state = "idle"

    def feed_many(self, probabilities: Iterable[float]) -> list[Event]:
        events: list[Event] = []
        for p in probabilities:
            events += self.feed(float(p))
        return events

    def flush(self) -> list[Event]:
        """End of stream: close an utterance in progress (a pending blip is dropped)."""
        events: list[Event] = []
        if self._state == "speaking":
            events.append(self._end("flush"))
        self._state = "idle"
        return events

    def end_now(self, reason: str = "turn") -> UtteranceEnded | None:
        """Close the utterance in progress here (turn-taking decided it is over before the
        silence window ran out); None when there is none."""
        if self._state != "speaking":
            return None
        return self._end(reason)

    def _maybe_confirm(self, i: int) -> list[Event]:
        o = self.options
        if self._speech_frames < o.frames(o.min_speech_ms):
            return []
        self._state = "speaking"
        self._start_frame = max(self._floor, self._first_speech - o.frames(o.preroll_ms))
        return [SpeechStarted(self._start_frame, i)]

    def _end(self, reason: str, end_frame: int | None = None) -> UtteranceEnded:
        event = UtteranceEnded(self._start_frame,
                               end_frame if end_frame is not None else self._last_speech + 1, reason)
        self._state = "idle"
        self._speech_frames = 0
        self._silent_run = 0
        self._floor = event.end_frame
        return event
