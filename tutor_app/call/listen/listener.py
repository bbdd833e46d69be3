"""Turn-taking on the live microphone (the audio thread's work, no threads of its own).

Per 512-sample frame: level meter -> Silero probability -> echo gate (gated mode; speaker
mode after an audio stall) -> Segmenter -> call/listen/turn_taking.py's rules: early STT, the end-of-turn
judge, speculation / commit / retraction, barge-in vs backchannel over the tutor, and the
learner's within-turn pauses. Everything it does to the rest of the call goes through
`ListenerPort` (the CallLoop), so tests drive it with scripted frames and a fake port.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from tutor_app.core.types import SAMPLE_RATE
from tutor_app.speech.echo import EchoGate
from tutor_app.speech.segmenter import Segmenter
from tutor_app.speech.segmenter import SpeechStarted as SegSpeechStarted
from tutor_app.speech.segmenter import UtteranceEnded
from tutor_app.call import events as ev
from tutor_app.call.listen.overlap import EXPECT, ShortSpeech
from tutor_app.call.listen.frames import MicFrames
from tutor_app.call.listen.turn_taking import (BACKCHANNEL, INTERRUPTION, TurnTakingOptions, backchannel_heard,
                                         end_of_speech_time, over_the_tutor)
from tutor_app.call.tutor_turn import RESUMED

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

LEVEL_SAMPLES = SAMPLE_RATE // 20  # MicLevel about 20 times a second


class ListenerPort(Protocol):
    """What the Listener may do to the call (CallLoop implements it)."""

    def emit(self, event: ev.CallEvent) -> None: ...
    def tutor_audible(self) -> bool: ...
    def interrupt(self) -> None: ...
    def duck(self, on: bool) -> None: ...
    def transcribe_later(self, audio: Any, expect: Any = None) -> Any: ...
    def judge_later(self, audio: Any, transcript: Any) -> Any | None: ...
    def utterance(self, audio: Any, eos: float, transcript: Any, speculative: bool) -> Any: ...
    def backchannel(self, text: str) -> None: ...
    def tutor_words(self) -> str: ...


@dataclass
class _Check:
    """The end-of-turn question asked for one span (start, end) of the current utterance."""

    start: int
    end: int
    transcript: Any  # Future of the STT result of that span
    verdict: Any = None  # Future of the judge's Verdict, once asked
    decided: bool = False
    likely: bool = False  # judged "likely" complete: ends after the shorter sentence wait


class Listener:
    def __init__(self, options: Any, vad: Any, port: ListenerPort) -> None:
        """`options`: LoopOptions (segmenter, echo, turns: TurnTakingOptions, early_stt_ms)."""
        self.options = options
        self.turns: TurnTakingOptions = options.turns
        self.vad = vad
        self.port = port
        self.muted = False
        self._segmenter = Segmenter(options.segmenter)
        self._echo = EchoGate(options.echo)
        self._mic = MicFrames()  # recent frames by segmenter index (and the canceller's input)
        self._overlapped = False  # the current utterance began while the tutor was audible
        self._short = ShortSpeech(options, port)  # voice over the tutor too short to confirm
        self._index = 0  # segmenter index of the next frame
        self._utt_start = 0
        self._last_speech = 0
        self._check: _Check | None = None
        self._inflight: Any = None  # the last early STT Future
        self._spec: tuple[int, int, Any] | None = None  # (start, end, TutorTurn) of a speculation
        self._commit_frames = 0  # silence (frames) at which the speculation is committed
        self._overlap_voiced: int | None = None  # voiced frames of speech over the tutor (None: no overlap)
        self._overlap_words: Any = None  # Future of its words so far, asked once at `interrupt_ms`
        self._overlap_asked = False
        self._recent: deque[tuple[np.ndarray, float, Any]] = deque(maxlen=self._echo.frames(options.echo.loud_min_ms
                                                             + options.segmenter.preroll_ms) + 4)
        self._was_gated = False
        self._level_acc, self._level_n = 0.0, 0
        self._frames_cond = threading.Condition()
        self.frames_seen = 0
        self.pauses_ms: list[float] = []  # the learner's within-turn pauses (thinking time)
        # How turns ended: "judge" (a complete verdict), "sentence" (a likely one), "silence", "retracted"
        # (the learner went on), "backchannel", "nothing" (short speech over the tutor that was neither).
        self.ends: dict[str, int] = {}

    def feed(self, samples: np.ndarray, raw: np.ndarray | None = None, far: np.ndarray | None = None,
             broke: bool = False) -> None:
        """16 kHz mono float32 samples of any length; `raw` / `far`: the microphone and far end
        they were echo-cancelled from, when a canceller runs; `broke`: its pairing broke."""
        if broke:  # the microphone and far end before the break: the echo's level for the gate
            self._echo.unsettle(self.port.tutor_audible(), [r for _, _, r in self._recent if r is not None])
        for frame, ref in self._mic.split(samples, raw, far):
            self._frame(frame, ref)

    def restart(self) -> None:
        """A new stream (the microphone came back): forget everything in flight."""
        self.vad.reset()
        self._mic.drop_partial()
        self.reset()

    def reset(self) -> None:
        self._retract()
        self._end_overlap()
        self._segmenter.reset()
        self._short.reset()
        self._mic.clear()
        self._index, self._check = 0, None

    def wait_frames(self, n: int, timeout: float = 10.0) -> bool:
        with self._frames_cond:
            return self._frames_cond.wait_for(lambda: self.frames_seen >= n, timeout)

    # -- per frame -----------------------------------------------------------------------
    def _frame(self, frame: np.ndarray, ref: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        import numpy as np

        rms = float(np.sqrt(np.mean(frame * frame)))
        self._level(rms, len(frame))
        try:
            if self.muted:
                self.reset()
                return
            probability = self.vad.probability(frame)
            self._recent.append((frame, probability, ref))
            if not self._echo.full_duplex:
                speaking = self.port.tutor_audible()
                if not self._echo.listen(speaking):
                    if not self._was_gated:
                        self.reset()  # the speaker may be heard from here on
                        self._was_gated = True
                    if speaking and self._echo.loud_barge_in(probability, rms, ref):
                        self._gated_barge_in()
                    return
                self._was_gated = False
            self._segment(frame, probability, ref)
        finally:
            with self._frames_cond:
                self.frames_seen += 1
                self._frames_cond.notify_all()

    def _level(self, rms: float, n: int) -> None:
        self._level_acc += rms * rms * n
        self._level_n += n
        if self._level_n >= LEVEL_SAMPLES:
            level = 0.0 if self.muted else (self._level_acc / self._level_n) ** 0.5
            self._level_acc, self._level_n = 0.0, 0
            self.port.emit(ev.MicLevel(min(1.0, level)))

    def _gated_barge_in(self) -> None:
        self.port.interrupt()
        self._echo.open()
        self._was_gated = False
        # The loud speech was gated so far: replay it (and its pre-roll) into turn-taking.
        recent = list(self._recent)
        self.reset()
        for frame, probability, ref in recent:
            self._segment(frame, probability, ref)

    def _segment(self, frame: np.ndarray, probability: float, ref: tuple[np.ndarray, np.ndarray] | None) -> None:
        self._mic.append(frame, ref)
        index = self._index
        self._index += 1
        self._settle_speculation()
        was_speaking = self._segmenter.speaking
        for event in self._segmenter.feed(probability):
            if isinstance(event, SegSpeechStarted):
                self._utt_start, self._last_speech, self._check = event.start_frame, event.frame, None
                self._overlap_words, self._overlap_asked = None, False
                self.port.emit(ev.SpeechStarted())
                self._short.reset()
                self._overlapped = self._echo.full_duplex and self.port.tutor_audible()
                if self.options.echo.barge_in and self._overlapped:
                    seg = self.options.segmenter  # the voice that confirmed it, and what AEC3 hid before it:
                    self._overlap_voiced = seg.frames(seg.min_speech_ms) + self._mic.hidden_before(event.start_frame)
                    self.port.duck(True)
            elif isinstance(event, UtteranceEnded):
                self._ended(event)
        if was_speaking and self._segmenter.speaking:
            if probability >= self.options.segmenter.low:
                self._voiced(index)
            else:
                self._silent(index)
            self._words_so_far()
        if not self._segmenter.speaking:
            self._short_speech(index, probability)
            self._trim()
        self._short.poll()

    # -- inside an utterance ---------------------------------------------------------------
    def _voiced(self, index: int) -> None:
        gap = index - self._last_speech - 1
        if self._spec is not None:
            self._retract()
            if not self._segmenter.speaking:
                return  # too late: that turn is the tutor's; this speech starts the next one
        if gap > 0 and gap * self.options.segmenter.frame_ms >= self.turns.min_pause_ms:
            self.pauses_ms.append(round(gap * self.options.segmenter.frame_ms))
        self._last_speech = index
        self._check = None  # still talking: an earlier guess is stale
        if self._overlap_voiced is not None:
            self._overlap_voiced += 1
            voiced_ms = self._overlap_voiced * self.options.segmenter.frame_ms
            if voiced_ms >= self.turns.backchannel_max_ms:
                log.debug("speech over the tutor: %d voiced frames, an interruption", self._overlap_voiced)
                self._interrupt()
            elif voiced_ms >= self.turns.interrupt_ms and not self._overlap_asked:
                self._overlap_asked = True
                self._overlap_words = self.port.transcribe_later(self._words(self._utt_start, index + 1), EXPECT)

    def _words_so_far(self) -> None:
        """Speech over the tutor: its words at `interrupt_ms` of voice are in (any frame)."""
        if self._overlap_words is not None and self._overlap_words.done():
            words, self._overlap_words = _text(self._overlap_words), None
            if (self._overlap_voiced is not None
                    and over_the_tutor(words, self.port.tutor_words(), self.turns.interrupt_ms, so_far=True)
                    == INTERRUPTION):
                log.debug("speech over the tutor: %d words so far, an interruption", len(words.split()))
                self._interrupt()

    def _silent(self, index: int) -> None:
        """Early STT: `early_stt_ms` into a silence that may end the turn, the utterance so far
        goes to STT (used if the turn ends there, same start and end frame); then the judge."""
        silence = index - self._last_speech
        seg = self.options.segmenter
        early = self.options.early_stt_ms or self.turns.check_ms
        if self._check is None and silence >= seg.frames(early):
            if self._inflight is not None and not self._inflight.done():
                return  # a stale guess still decoding: never queue a second one before the real turn
            start, end = self._utt_start, self._last_speech + 1
            expect = EXPECT if self._overlap_voiced is not None else None  # over the tutor: any span, if short of voice
            self._inflight = self.port.transcribe_later(self._words(start, end), expect)
            self._check = _Check(start, end, self._inflight)
        check = self._check
        if check is None or check.decided:
            if (check is not None and check.likely and self._spec is None
                    and silence >= seg.frames(self.turns.sentence_wait_ms)):
                check.likely = False
                self._speculate(check, silence, "sentence")
            if self._spec is not None and silence >= self._commit_frames:
                if self._spec[2] is not None:
                    self._spec[2].commit()  # quiet long enough: the turn is the learner's
                self._settle_speculation(due=True)
            return
        if check.verdict is None and silence >= seg.frames(self.turns.check_ms):
            check.verdict = self.port.judge_later(self._words(check.start, check.end), check.transcript)
            if check.verdict is None and self._overlap_voiced is None:
                check.decided = True  # no judge: the VAD-only rule ends the turn
                return
        if check.verdict is not None and check.verdict.done() or (
                self._overlap_voiced is not None and silence >= seg.frames(self.turns.check_ms)
                and check.transcript.done()):
            self._decide(check, silence)

    def _decide(self, check: _Check, silence: int) -> None:
        check.decided = True
        if self._overlap_voiced is not None:
            self._overlap_ended(_text(check.transcript))
            self._check = None  # over, or an interruption whose end is judged afresh (`_interrupt`)
            return
        verdict = _result(check.verdict)
        if verdict is None or not self.turns.speculate:
            return  # keep listening: the segmenter's long silence window ends it otherwise
        if not getattr(verdict, "complete", True):
            check.likely = bool(getattr(verdict, "likely", False))  # `_silent` ends it at the sentence wait
            return
        self._speculate(check, silence, "judge")
        log.debug("turn judged complete (%s): speculating", getattr(verdict, "reason", ""))

    def _speculate(self, check: _Check, silence: int, how: str) -> None:
        """Start the tutor's turn on this span; committed `commit_ms - check_ms` of silence
        later (or at its first sample), retracted if the learner goes on before."""
        seg = self.options.segmenter
        eos = end_of_speech_time(time.perf_counter(), silence, seg.frame_ms)
        turn = self.port.utterance(self._words(check.start, check.end), eos, check.transcript, True)
        self._spec = (check.start, check.end, turn)
        self._commit_frames = max(seg.frames(self.turns.commit_ms),
                                  silence + seg.frames(self.turns.commit_ms - self.turns.check_ms))
        self._count(how)

    def _settle_speculation(self, due: bool = False) -> None:
        """A committed speculation ends the utterance for good; so does one without words
        (no turn: nothing to answer) once its commit is `due`."""
        spec = self._spec
        if spec is not None and (spec[2].committed if spec[2] is not None else due):
            self._spec = self._check = None
            self._segmenter.end_now()

    def _retract(self) -> None:
        spec, self._spec = self._spec, None
        if spec is None or spec[2] is None:
            return
        if not spec[2].cancel(RESUMED):
            # Committed meanwhile: the utterance is over; what follows is a new one.
            self._segmenter.end_now()
            self._check = None
        else:
            self._count("retracted")

    def _interrupt(self) -> None:
        """Speech over the tutor stops it. The silence so far is no pause (AEC3 hid a learner
        who talked on over the tutor): it is counted afresh from here, free of echo."""
        self._overlap_voiced = None
        self.port.interrupt()
        self.port.duck(False)
        self._segmenter.hold()
        self._last_speech = max(self._last_speech, self._index - 1)

    def _overlap_ended(self, text: str) -> bool:
        """Short speech over the tutor ended (`_voiced` interrupts at backchannel_max_ms of
        voice): True when it was an interruption and is a turn, False when it is over."""
        voiced_ms = (self._overlap_voiced or 0) * self.options.segmenter.frame_ms
        what = over_the_tutor(text, self.port.tutor_words(), voiced_ms)
        log.debug("speech over the tutor ended: %d words, %s", len(text.split()), what)
        if what == INTERRUPTION:
            self._interrupt()
            return True
        self._end_overlap()
        self._count(what)
        if what == BACKCHANNEL:
            self.port.backchannel(backchannel_heard(text, voiced_ms))
        self._segmenter.end_now(what)
        return False

    def _end_overlap(self) -> None:
        if self._overlap_voiced is not None:
            self._overlap_voiced = None
            self.port.duck(False)

    def _ended(self, event: UtteranceEnded) -> None:
        """The segmenter's own silence window (or the length limit) closed the utterance."""
        spec, check = self._spec, self._check
        self._spec = self._check = None
        if spec is not None and spec[:2] == (event.start_frame, event.end_frame):
            if spec[2] is not None:  # (None: no words, nothing to answer)
                spec[2].commit()  # speculated already: now it is certain
            return
        if spec is not None and spec[2] is not None:
            spec[2].cancel(RESUMED)
        if self._overlap_voiced is not None:
            if not self._overlap_ended(_text(check.transcript if check is not None else self.port.transcribe_later(
                    self._words(event.start_frame, event.end_frame), EXPECT))):
                return
            check = None  # its words were judged as a short sound's; the turn's keep their pauses
        audio = self._words(event.start_frame, event.end_frame)
        if not audio.size:
            return
        same = check is not None and (check.start, check.end) == (event.start_frame, event.end_frame)
        transcript = check.transcript if same and check is not None else self.port.transcribe_later(audio)
        silence = self._index - event.end_frame
        eos = end_of_speech_time(time.perf_counter(), silence, self.options.segmenter.frame_ms)
        log.debug("utterance of %.2f s (%s)", audio.size / SAMPLE_RATE, event.reason)
        self._count("silence")
        self.port.utterance(audio, eos, transcript, False)

    def _count(self, how: str) -> None:
        self.ends[how] = self.ends.get(how, 0) + 1

    def _words(self, start: int, end: int) -> np.ndarray:  # undecided over the tutor: its voice alone
        return self._mic.words(start, end, over_tutor=self._overlapped, floor=self._overlap_voiced is None)

    def _short_speech(self, index: int, probability: float) -> None:
        """Voice over the tutor too short for the segmenter: maybe a backchannel (listen/overlap.py)."""
        span = self._short.frame(index, probability, self._echo.full_duplex and self.port.tutor_audible())
        self._segmenter.forget_before(self._short.kept_until)  # a kept backchannel starts no utterance
        if span:  # fitted on every frame there is: the tutor alone after it too
            self._short.look(self._mic.linear(span[0], self._mic.end), span)

    def _trim(self) -> None:
        """Idle: keep only what a new utterance could still start in (pre-roll, a blip
        that may grow into speech) - and the seconds the echo path is fitted on."""
        o = self.options.segmenter
        self._mic.keep_last(o.frames(o.preroll_ms) + o.frames(o.silence_ms) + 4 * o.frames(o.min_speech_ms))


def _result(future: Any) -> Any:
    if future is None:
        return None
    try:
        return future.result(timeout=10.0)  # the audio thread never waits for ever on STT or the judge
    except Exception as exc:  # noqa: BLE001 - a failed judge means "no judge" for this turn
        log.warning("end-of-turn judge failed: %s", exc)
        return None


def _text(future: Any) -> str:
    result = _result(future)
    return (getattr(result, "text", "") or "").strip()

