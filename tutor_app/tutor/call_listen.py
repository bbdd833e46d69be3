"""Turn-taking on the live microphone (the audio thread's work, no threads of its own).

Per 512-sample frame: level meter -> Silero probability -> echo gate -> Segmenter.
SpeechStarted is announced (and is a barge-in in headset mode while the tutor speaks);
an ended utterance becomes a job for the engine thread with its STT already started.

Early STT: `early_stt_ms` into a silence that may end the turn, the utterance so far is
sent to STT; if the turn does end there (same start and end frame), that transcript is
used, so it is (nearly) ready when the silence window closes; if the learner goes on,
the guess is dropped.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from tutor_app.speech.echo import EchoGate
from tutor_app.speech.segmenter import FRAME_SAMPLES, SAMPLE_RATE, Segmenter
from tutor_app.speech.segmenter import SpeechStarted as SegSpeechStarted
from tutor_app.speech.segmenter import UtteranceEnded
from tutor_app.tutor import events as ev

log = logging.getLogger(__name__)

LEVEL_SAMPLES = SAMPLE_RATE // 20  # MicLevel about 20 times a second


class Listener:
    def __init__(self, options: Any, vad: Any, emit: Callable[[ev.CallEvent], None],
                 tutor_speaking: Callable[[], bool], barge_in: Callable[[], None],
                 transcribe_later: Callable[[Any], Any],
                 utterance: Callable[[Any, float, Any], None]) -> None:
        """`options`: LoopOptions. `transcribe_later(audio) -> Future`; `utterance(audio,
        eos, transcript_future)` hands a finished turn to the engine thread."""
        self.options = options
        self.vad = vad
        self._emit = emit
        self._tutor_speaking = tutor_speaking
        self._barge_in = barge_in
        self._transcribe_later = transcribe_later
        self._utterance_out = utterance
        self.muted = False
        self._segmenter = Segmenter(options.segmenter)
        self._echo = EchoGate(options.echo)
        self._frames: list[Any] = []  # frames since segmenter index `_base`
        self._base = 0
        self._index = 0  # segmenter index of the next frame
        self._utt_start = 0
        self._last_speech = 0
        self._early: tuple[int, int, Any] | None = None  # (start, end, Future)
        self._inflight: Any = None  # the last early STT Future
        self._recent: deque = deque(maxlen=self._echo.frames(options.echo.loud_min_ms
                                                             + options.segmenter.preroll_ms) + 4)
        self._was_gated = False
        self._pending: Any = None
        self._level_acc = 0.0
        self._level_n = 0
        self._frames_cond = threading.Condition()
        self.frames_seen = 0

    def feed(self, samples) -> None:
        """16 kHz mono float32 samples of any length."""
        import numpy as np

        pending = samples if self._pending is None else np.concatenate([self._pending, samples])
        while pending.size >= FRAME_SAMPLES:
            frame, pending = pending[:FRAME_SAMPLES], pending[FRAME_SAMPLES:]
            self._frame(frame)
        self._pending = pending

    def restart(self) -> None:
        """A new stream (the microphone came back): forget everything in flight."""
        self.vad.reset()
        self._pending = None
        self.reset()

    def reset(self) -> None:
        self._segmenter.reset()
        self._frames.clear()
        self._base = 0
        self._index = 0
        self._early = None

    def wait_frames(self, n: int, timeout: float = 10.0) -> bool:
        with self._frames_cond:
            return self._frames_cond.wait_for(lambda: self.frames_seen >= n, timeout)

    # -- per frame -----------------------------------------------------------------------
    def _frame(self, frame) -> None:
        import numpy as np

        rms = float(np.sqrt(np.mean(frame * frame)))
        self._level(rms, len(frame))
        try:
            if self.muted:
                self.reset()
                return
            probability = self.vad.probability(frame)
            self._recent.append((frame, probability))
            speaking = self._tutor_speaking()
            if not self._echo.listen(speaking):
                if not self._was_gated:
                    self.reset()  # the speaker may be heard from here on
                    self._was_gated = True
                if speaking and self._echo.loud_barge_in(probability, rms):
                    self._speaker_mode_barge_in()
                return
            self._was_gated = False
            self._segment(frame, probability)
        finally:
            with self._frames_cond:
                self.frames_seen += 1
                self._frames_cond.notify_all()

    def _level(self, rms: float, n: int) -> None:
        self._level_acc += rms * rms * n
        self._level_n += n
        if self._level_n >= LEVEL_SAMPLES:
            level = 0.0 if self.muted else (self._level_acc / self._level_n) ** 0.5
            self._level_acc = 0.0
            self._level_n = 0
            self._emit(ev.MicLevel(min(1.0, level)))

    def _speaker_mode_barge_in(self) -> None:
        self._barge_in()
        self._echo.open()
        self._was_gated = False
        # The loud speech was gated so far: replay it (and its pre-roll) into turn-taking.
        recent = list(self._recent)
        self.reset()
        for frame, probability in recent:
            self._segment(frame, probability)

    def _segment(self, frame, probability: float) -> None:
        self._frames.append(frame)
        index = self._index
        self._index += 1
        was_speaking = self._segmenter.speaking
        for event in self._segmenter.feed(probability):
            if isinstance(event, SegSpeechStarted):
                self._utt_start, self._last_speech, self._early = event.start_frame, event.frame, None
                self._emit(ev.SpeechStarted())
                if self.options.echo.barge_in and self._echo.headset and self._tutor_speaking():
                    self._barge_in()
            elif isinstance(event, UtteranceEnded):
                self._utterance(event)
        if was_speaking and self._segmenter.speaking:
            self._maybe_early_stt(index, probability)
        if not self._segmenter.speaking:
            self._trim()

    def _maybe_early_stt(self, index: int, probability: float) -> None:
        if probability >= self.options.segmenter.low:
            self._last_speech = index
            self._early = None  # still talking: an earlier guess is stale
            return
        early = self.options.early_stt_ms
        if not early or self._early is not None:
            return
        if self._inflight is not None and not self._inflight.done():
            return  # a stale guess still decoding: never queue a second one before the real turn
        if index - self._last_speech == self.options.segmenter.frames(early):
            start, end = self._utt_start, self._last_speech + 1
            self._inflight = self._transcribe_later(self._cut(start, end))
            self._early = (start, end, self._inflight)

    def _cut(self, start: int, end: int):
        import numpy as np

        a = max(0, start - self._base)
        b = max(a, end - self._base)
        return np.concatenate(self._frames[a:b]) if b > a else np.zeros(0, dtype=np.float32)

    def _utterance(self, event: UtteranceEnded) -> None:
        audio = self._cut(event.start_frame, event.end_frame)
        early, self._early = self._early, None
        if not audio.size:
            return
        if early is not None and early[:2] == (event.start_frame, event.end_frame):
            transcript = early[2]
        else:
            transcript = self._transcribe_later(audio)
        log.debug("utterance of %.2f s (%s)", audio.size / SAMPLE_RATE, event.reason)
        self._utterance_out(audio, time.perf_counter(), transcript)

    def _trim(self) -> None:
        """Idle: keep only what a new utterance could still start in (pre-roll, a blip
        that may grow into speech)."""
        o = self.options.segmenter
        keep = o.frames(o.preroll_ms) + o.frames(o.silence_ms) + 4 * o.frames(o.min_speech_ms)
        extra = len(self._frames) - keep
        if extra > 0:
            del self._frames[:extra]
            self._base += extra
