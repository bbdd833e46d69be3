"""Segmenting: the learner's utterances from VAD probabilities, and the pauses inside them.
A strategy of the Listener (call/listen/listener.py): no audio, no I/O.

speech/segmenter.py's `Segmenter` finds where speech starts (confirmed after
`min_speech_ms` of voice, `preroll_ms` before it) and where its own silence window ends it
(the thinking time when a judge decides earlier, else the plain silence). This keeps, for
the utterance in progress, where it started and its last voiced frame, from which the
Listener measures the silence that endpointing judges, and the learner's within-turn
pauses (thinking time) that go into the call report.
"""
from __future__ import annotations

from dataclasses import dataclass

from tutor_app.call.options import EndpointingOptions, frames
from tutor_app.core.types import FRAME_MS
from tutor_app.speech.segmenter import Event, Segmenter, SpeechStarted, UtteranceEnded


@dataclass(frozen=True)
class Step:
    """What one frame did."""

    index: int  # the frame's index (counted from the last reset, as the segmenter counts)
    events: list[Event]  # SpeechStarted or UtteranceEnded, at most one
    was_speaking: bool  # inside an utterance before this frame
    voiced: bool  # voice by the lower threshold a talking learner keeps (soft syllables are voice)
    fading: bool = False  # voiced, but under the threshold that starts speech: often a voice's last frame


class Segmenting:
    def __init__(self, options: EndpointingOptions) -> None:
        seg = options.segmenter()
        self.segmenter = Segmenter(seg)
        self._low = seg.low
        self._high = seg.threshold
        self._min_pause_ms = options.min_pause_ms
        # Idle, only what a new utterance could still start in is kept: its pre-roll, a blip
        # that may grow into speech - and the seconds the echo path is fitted on.
        self.idle_frames = frames(seg.preroll_ms) + frames(seg.silence_ms) + 4 * frames(seg.min_speech_ms)
        self.index = 0  # of the next frame
        self.start = 0  # first frame of the utterance in progress (pre-roll included)
        self.last_voice = 0  # its last voiced frame

    @property
    def speaking(self) -> bool:
        return self.segmenter.speaking

    def reset(self) -> None:
        self.segmenter.reset()
        self.index = 0

    def feed(self, probability: float) -> Step:
        index = self.index
        self.index += 1
        was_speaking = self.segmenter.speaking
        events = self.segmenter.feed(probability)
        for event in events:
            if isinstance(event, SpeechStarted):
                self.start = event.start_frame
                self.last_voice = event.frame  # where the voice confirmed it
        return Step(index, events, was_speaking, probability >= self._low,
                    self._low <= probability < self._high)

    def voice(self, index: int) -> float | None:
        """Frame `index` of the utterance is voiced: the pause it ends (ms), when one is long
        enough to be a pause and not a gap between words."""
        gap = index - self.last_voice - 1
        self.last_voice = index
        if gap > 0 and gap * FRAME_MS >= self._min_pause_ms:
            return round(gap * FRAME_MS)
        return None

    def silence(self, index: int) -> int:
        """Frames since the utterance's last voiced frame."""
        return index - self.last_voice

    def hold(self, index: int) -> None:
        """The silence up to frame `index` is no silence (the tutor's echo was hiding the
        voice): counted afresh from here, by the segmenter's window too."""
        self.segmenter.hold()
        self.last_voice = max(self.last_voice, index)

    def end_now(self, reason: str = "turn") -> UtteranceEnded | None:
        """Turn-taking decided the utterance is over before the silence window ran out."""
        return self.segmenter.end_now(reason)

    def forget_before(self, frame: int) -> None:
        self.segmenter.forget_before(frame)

