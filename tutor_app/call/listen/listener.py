"""Turn-taking on the live microphone: the audio thread's work, no threads of its own.

The Listener is a processor. It owns the state of the call's listening - the recent
frames and their echo references (MicFrames), the requests in flight (Futures of
transcripts and verdicts), the speculative tutor turn - and applies four strategies,
each a module of its own that decides from what it is given and does nothing itself:

- the echo gate (echo_gate.py): in gated mode, is a frame heard at all, or a loud barge-in;
- segmenting (segmenting.py): utterances from VAD probabilities, the pauses inside them;
- endpointing (endpointing.py): early STT, the end-of-turn judge, speculate / commit /
  retract the tutor's turn;
- interruption (interruption.py): speech over the tutor - duck, pause by its sound
  (floor.py), its words so far, barge-in, or backchannel / nothing (a paused tutor
  resumes), applied to the call by over_tutor.py's `OverTheTutor`; sounds too short to
  confirm are overlap.py's `ShortSpeech`.

Per 512-sample frame: level meter -> Silero probability (of the raw microphone instead
when it is louder than the tutor's echo can make it: near_end.py) -> echo gate -> segmenting ->
endpointing while the learner is silent, interruption while they talk over the tutor.
Everything it does to the rest of the call goes through `ListenerPort` (the CallLoop), so
tests drive it with scripted frames and a fake port.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Protocol

from tutor_app.call import events as ev
from tutor_app.call.listen.echo_gate import EchoGate, Gate
from tutor_app.call.listen.endpointing import Check, Decoded, Do, Endpointing, Ready, TranscriptSource
from tutor_app.call.listen.frames import MicFrames
from tutor_app.call.listen.near_end import NearEnd
from tutor_app.call.listen.over_tutor import WORDS_WAIT_S, OverTheTutor, Span
from tutor_app.call.listen.overlap import EXPECT, Ref, ShortSpeech
from tutor_app.call.listen.segmenting import Segmenting
from tutor_app.call.listen.turn_taking import end_of_speech_time
from tutor_app.call.options import LoopOptions, frames
from tutor_app.call.tutor_turn import RESUMED
from tutor_app.core.types import FRAME_MS, SAMPLE_RATE
from tutor_app.speech.segmenter import SpeechStarted, UtteranceEnded

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

    from tutor_app.core.protocols import LiveVad

log = logging.getLogger(__name__)

LEVEL_SAMPLES = SAMPLE_RATE // 20  # MicLevel about 20 times a second


class ListenerPort(Protocol):
    """What the Listener may do to the call (CallLoop implements it)."""

    def emit(self, event: ev.CallEvent) -> None: ...
    def tutor_audible(self) -> bool: ...
    def interrupt(self) -> None: ...
    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def duck(self, on: bool) -> None: ...
    def transcribe_later(self, audio: Any, expect: Any = None) -> Any: ...
    def drop(self, future: Any) -> None: ...
    def hear_ahead(self, audio: Any) -> None: ...
    def judge_later(self, audio: Any, transcript: Any) -> Any | None: ...
    def utterance(self, audio: Any, eos: float, transcript: Any, speculative: bool, held: bool = False) -> Any: ...
    def backchannel(self, text: str) -> None: ...
    def tutor_words(self) -> str: ...


class Listener:
    def __init__(self, options: LoopOptions, vad: Any, port: ListenerPort,
                 transcripts: TranscriptSource | None = None, near_vad: LiveVad | None = None) -> None:
        """`near_vad`: a live VAD stream of its own for the raw microphone (near_end.py);
        None: speech over the tutor is heard only as the canceller passes it."""
        self.options = options
        self.vad = vad
        self._near_vad = near_vad
        self._near = NearEnd()
        self.port = port
        self.transcripts = transcripts or Decoded(port)
        self.muted = False
        seg = options.endpointing.segmenter()
        self._gate = EchoGate(options.echo, options.interruption)
        self._seg = Segmenting(options.endpointing)
        self._ends = Endpointing(options.endpointing, options.speculation)
        self._short = ShortSpeech(options, port)  # voice over the tutor too short to confirm
        self._mic = MicFrames()  # recent frames by segmenter index (and the canceller's input)
        self._over = OverTheTutor(options, port, self._mic, self._seg, self.transcripts, self._count)
        # The frames the gate shut out, replayed into turn-taking at a gated barge-in.
        self._recent: deque[tuple[np.ndarray, float, Ref | None]] = deque(
            maxlen=frames(options.interruption.loud_min_ms + seg.preroll_ms) + 4)
        self._inflight: Any = None  # the last early transcript's Future
        # The last silent frame of an utterance and when it was handled: `poll()` takes the
        # steps that wait on a transcript or a verdict there, between frames.
        self._silent_at: tuple[int, float] | None = None
        # Called (from any thread) when a transcript or a verdict the turn waits for is in:
        # the audio thread then calls `poll()` (call/mic.py); a no-op without a microphone.
        self.wake: Callable[[], None] = lambda: None
        self._level_acc = 0.0
        self._level_n = 0
        self._frames_cond = threading.Condition()
        self.frames_seen = 0
        self.pauses_ms: list[float] = []  # the learner's within-turn pauses (thinking time)
        # How turns ended: "judge" (a complete verdict), "sentence" (a likely one), "silence",
        # "retracted" (the learner went on), "backchannel", "nothing" (short speech over the
        # tutor that was neither), "not heard" (speech over the tutor STT failed on).
        self.ends: dict[str, int] = {}
        # Where the words of each tutor's turn started (speculated; some are retracted later)
        # were asked for: at a fading voiced frame or in the silence (the benches print it).
        self.guesses: dict[str, int] = {}

    def feed(self, samples: np.ndarray, raw: np.ndarray | None = None, far: np.ndarray | None = None,
             broke: bool = False) -> None:
        """16 kHz mono float32 samples of any length. `raw` / `far`: the microphone and the
        far end they were echo-cancelled from, when a canceller runs; `broke`: its pairing
        broke (the microphone and far end before the break tell the gate the echo's level)."""
        if broke:
            self._gate.unsettle(self.port.tutor_audible(), [r for _, _, r in self._recent if r is not None])
        for frame, ref in self._mic.split(samples, raw, far):
            self._frame(frame, ref)

    def poll(self) -> None:
        """The audio thread, between frames: a transcript or a verdict came in after the
        last frame was handled - take the steps it allows now, not up to a frame (32 ms)
        later. Times count from that frame, as if it were handled now."""
        at = self._silent_at
        if at is not None and self._seg.speaking and self._ends.check is not None:
            self._silent(*at)
        self._await_words()

    def restart(self) -> None:
        """A new stream (the microphone came back): forget everything in flight."""
        self.vad.reset()
        self._mic.drop_partial()
        self.reset()

    def reset(self) -> None:
        """Forget the utterance in flight (muted, the gate shut, a new stream): a speculation
        is retracted, a ducked tutor restored; frames count from 0 again."""
        self._retract()
        self._over.reset()
        self._ends.reset()
        self._seg.reset()
        self._short.reset()
        self._mic.clear()

    def wait_frames(self, n: int, timeout: float = 10.0) -> bool:
        """Tests and benches: until `n` microphone frames were processed in total."""
        with self._frames_cond:
            return self._frames_cond.wait_for(lambda: self.frames_seen >= n, timeout)

    # -- per frame -----------------------------------------------------------------------
    def _frame(self, frame: np.ndarray, ref: Ref | None = None) -> None:
        import numpy as np

        self._silent_at = None  # set again only if this frame is a silence that may end the turn
        rms = float(np.sqrt(np.mean(frame * frame)))
        self._level(rms, len(frame))
        try:
            if self.muted:
                self.reset()
                return
            probability = self._probability(frame, ref)
            self._recent.append((frame, probability, ref))
            if not self._gate.full_duplex:
                gate = self._gate.frame(self.port.tutor_audible(), probability, rms, ref)
                if gate == Gate.SHUT:
                    self.reset()  # the speaker may be heard from here on
                if gate == Gate.BARGE_IN:
                    self._gated_barge_in()
                if gate != Gate.LISTEN:
                    return
            self._segment(frame, probability, ref)
        finally:
            with self._frames_cond:
                self.frames_seen += 1
                self._frames_cond.notify_all()

    def _probability(self, frame: np.ndarray, ref: Ref | None) -> float:
        """The frame's probability of speech: the VAD's on what the canceller passed, or on
        the raw microphone when that is louder than the tutor's echo can make it (a voice
        AEC3's suppressor hid: near_end.py). The raw stream runs while the tutor is heard
        (from a fresh state each time it starts again): the learner's turns cost nothing."""
        probability = float(self.vad.probability(frame))
        if ref is None or self._near_vad is None:
            return probability
        was = self._near.judging
        louder = self._near.frame(ref[0], ref[1])
        if not self._near.judging:
            return probability
        if not was:
            self._near_vad.reset()
        raw = self._near_vad.probability(ref[0])
        return raw if louder and raw > probability else probability

    def _level(self, rms: float, n: int) -> None:
        self._level_acc += rms * rms * n
        self._level_n += n
        if self._level_n >= LEVEL_SAMPLES:
            level = 0.0 if self.muted else (self._level_acc / self._level_n) ** 0.5
            self._level_acc = 0.0
            self._level_n = 0
            self.port.emit(ev.MicLevel(min(1.0, level)))

    def _gated_barge_in(self) -> None:
        """Loud speech over the tutor in gated mode stops it; that speech (and its pre-roll)
        was shut out so far: it is replayed into turn-taking."""
        self.port.interrupt()
        recent = list(self._recent)
        self.reset()
        for frame, probability, ref in recent:
            self._segment(frame, probability, ref)

    def _segment(self, frame: np.ndarray, probability: float, ref: Ref | None) -> None:
        index = self._seg.index
        self._mic.append(frame, ref)
        self._settle_speculation()
        # Voice before the awaited words came: decided first (waiting, bounded), so that new
        # speech never starts while the last one is undecided.
        voice = probability >= self.options.endpointing.threshold
        self._await_words(block=voice)
        if voice and ref is not None and not self._seg.speaking and self._over_tutor():
            self._mic.fit_ahead()  # speech may start here: its confirmation then fits nothing
        step = self._seg.feed(probability)
        for event in step.events:
            if isinstance(event, SpeechStarted):
                self._started(event)
            elif isinstance(event, UtteranceEnded):
                self._ended(event)
        if step.was_speaking and self._seg.speaking:
            if step.voiced:
                self._voiced(index)
                if step.fading and self._seg.speaking and self._ends.fading(self._ready()):
                    self._transcribe(fading=True)  # maybe the voice's last frame: the guess 32 ms sooner
            else:
                self._over.quiet()
                self._silent(index)
            self._over.words_in()
        if not self._seg.speaking:
            self._short_speech(index, probability)
            if not self._over.awaited:  # else its frames are still wanted
                self._mic.keep_last(self._seg.idle_frames)
        self._short.poll()

    def _over_tutor(self) -> bool:
        """The tutor is heard over the learner (full duplex) and may be interrupted."""
        return self.options.interruption.enabled and self._gate.full_duplex and self.port.tutor_audible()

    def _started(self, event: SpeechStarted) -> None:
        self._ends.check = None
        self.port.emit(ev.SpeechStarted())
        self._short.reset()
        audible = self._gate.full_duplex and self.port.tutor_audible()
        self.transcripts.started(event.start_frame, streamable=not audible)
        self._over.started(event.start_frame, audible, self._recent)

    # -- inside an utterance ---------------------------------------------------------------
    def _voiced(self, index: int) -> None:
        if self._ends.speculation is not None:
            self._retract()
            if not self._seg.speaking:
                return  # too late: that turn is the tutor's; this speech starts the next one
        pause = self._seg.voice(index)
        if pause is not None:
            self.pauses_ms.append(pause)
        check = self._ends.check
        if check is not None and not check.transcript.done():
            # A guess at a pause the learner talked on through: its decode would only hold up
            # the guess at the next pause (the STT worker decodes one at a time).
            self.transcripts.drop(check.transcript)
        self._ends.voiced()
        first = self._seg.start
        self.transcripts.heard(first, index + 1, lambda: self._words(first, index + 1))
        self._over.voiced(index)

    def _silent(self, index: int, handled_at: float | None = None) -> None:
        """A silence that may end the turn: endpointing decides, step by step. `handled_at`:
        when frame `index` was handled (`poll`); None: now."""
        handled_at = time.perf_counter() if handled_at is None else handled_at
        self._silent_at = (index, handled_at)
        silence = self._seg.silence(index)
        while (do := self._ends.step(silence, self._ready())) is not None:
            if do == Do.TRANSCRIBE:
                self._transcribe()
                continue
            check = self._ends.check
            assert check is not None  # every other step is about the words asked for
            if do == Do.JUDGE:
                check.verdict = self.port.judge_later(self._words(check.start, check.end), check.transcript)
                if check.verdict is None:
                    self._ends.no_judge(self._over.undecided)
                else:
                    check.verdict.add_done_callback(lambda _f: self.wake())
            elif do == Do.VERDICT:
                verdict = _verdict(check)
                if self._ends.verdict(verdict) == Do.SPECULATE:
                    self._speculate(check, silence, handled_at)
                    log.debug("turn judged complete (%s): speculating", getattr(verdict, "reason", ""))
            elif do == Do.SPECULATE:
                self._speculate(check, silence, handled_at)
            elif do == Do.RELEASE:
                spec = self._ends.speculation
                if spec is not None and spec.turn is not None:
                    spec.turn.release()  # the sentence wait is over: the reply may play
            elif do == Do.COMMIT:
                self._commit()
                return
            elif do == Do.OVER_TUTOR:
                self._over.ended_with(check.transcript)
                self._ends.check = None  # over, or an interruption whose end is judged afresh
                return

    def _transcribe(self, fading: bool = False) -> None:
        """Ask for the words of the utterance up to its last voiced frame (TRANSCRIBE)."""
        start, end = self._seg.start, self._seg.last_voice + 1
        expect = EXPECT if self._over.undecided else None  # over the tutor: a short sound's words
        self._inflight = self.transcripts.request(start, end, self._words(start, end), expect)
        self._ends.asked(start, end, self._inflight, fading)
        self._inflight.add_done_callback(lambda _f: self.wake())

    def _ready(self) -> Ready:
        check = self._ends.check
        return Ready(stt_busy=self._inflight is not None and not self._inflight.done(),
                     transcript=check is not None and check.transcript.done(),
                     verdict=check is not None and check.verdict is not None and check.verdict.done(),
                     over_tutor=self._over.undecided)

    # -- the tutor's turn --------------------------------------------------------------------
    def _speculate(self, check: Check, silence: int, handled_at: float) -> None:
        """Start the tutor's turn on the check's span, before the turn is certain."""
        eos = end_of_speech_time(handled_at, silence, FRAME_MS)
        turn = self.port.utterance(self._words(check.start, check.end), eos, check.transcript, True,
                                   held=self._ends.holds(silence))
        self._ends.speculated(turn, silence)
        self._count(self._ends.how)
        where = "fading frame" if check.fading else "silence"
        self.guesses[where] = self.guesses.get(where, 0) + 1

    def _commit(self) -> None:
        """Quiet long enough: the speculation is the learner's turn for good."""
        spec = self._ends.speculation
        if spec is not None and spec.turn is not None:
            spec.turn.commit()
        self._settle_speculation(due=True)

    def _settle_speculation(self, due: bool = False) -> None:
        """A committed speculation ends the utterance for good; so does one without words
        (no turn: nothing to answer) once its commit is `due`."""
        spec = self._ends.speculation
        if spec is not None and (spec.turn.committed if spec.turn is not None else due):
            self._ends.reset()
            self._seg.end_now()

    def _retract(self) -> None:
        spec = self._ends.take_speculation()
        if spec is None or spec.turn is None:
            return
        if spec.turn.cancel(RESUMED):
            self._count("retracted")
        else:  # committed meanwhile: the utterance is over; what follows is a new one
            self._seg.end_now()
            self._ends.reset()

    # -- the end of an utterance -------------------------------------------------------------
    def _ended(self, event: UtteranceEnded) -> None:
        """The segmenter's own silence window (or the length limit) closed the utterance."""
        span = (event.start_frame, event.end_frame)
        spec, check = self._ends.close()
        if spec is not None and (spec.start, spec.end) == span:
            if spec.turn is not None:  # (None: no words, nothing to answer)
                spec.turn.commit()  # speculated already: now it is certain
            return
        if spec is not None and spec.turn is not None:
            spec.turn.cancel(RESUMED)
        if self._over.undecided:  # its words decide, when they come (not waited for here)
            words = check.transcript if check is not None else self.transcripts.request(
                *span, self._words(*span), EXPECT)
            self._over.await_words(span, words, event.reason)
            words.add_done_callback(lambda _f: self.wake())
            self._await_words()
            return
        self._hand_on(span, event.reason, check)

    def _await_words(self, block: bool = False) -> None:
        """The words of speech over the tutor that ended undecided, if they are in (or now,
        when `block`): an interruption is the learner's turn."""
        taken = self._over.take_words(block)
        if taken is not None:  # its words were judged as a short sound's; the turn's keep their pauses
            self._hand_on(*taken)

    def _hand_on(self, span: Span, reason: str, check: Check | None = None) -> None:
        """The utterance `span` is the learner's turn: its words to the tutor."""
        audio = self._words(*span)
        if not audio.size:
            return
        same = check is not None and (check.start, check.end) == span
        transcript = check.transcript if same and check is not None else self.transcripts.request(*span, audio)
        eos = end_of_speech_time(time.perf_counter(), self._seg.index - span[1], FRAME_MS)
        log.debug("utterance of %.2f s (%s)", audio.size / SAMPLE_RATE, reason)
        self._count("silence")
        self.port.utterance(audio, eos, transcript, False)

    # -- helpers -------------------------------------------------------------------------------
    def _count(self, how: str) -> None:
        self.ends[how] = self.ends.get(how, 0) + 1

    def _words(self, start: int, end: int) -> np.ndarray:
        return self._over.words(start, end)

    def _short_speech(self, index: int, probability: float) -> None:
        """Voice over the tutor too short for the segmenter: maybe a backchannel (overlap.py)."""
        span = self._short.frame(index, probability, self._gate.full_duplex and self.port.tutor_audible())
        self._seg.forget_before(self._short.kept_until)  # a kept backchannel starts no utterance
        if span:  # fitted on every frame there is: the tutor alone after it too
            self._short.look(self._mic.linear(span[0], self._mic.end), span)


def _verdict(check: Check) -> Any:
    """The judge's verdict on the check's span, or None (no decision: keep listening) when
    the judge failed - or the transcript it judges did: then the turn's STT failure reaches
    the learner when the turn is handed on (the call loop reports a failed turn)."""
    try:
        return check.verdict.result(timeout=WORDS_WAIT_S)  # asked when done; bounded all the same
    except Exception as exc:  # noqa: BLE001 - a failed judge means "no judge" for this turn
        if check.transcript.done() and check.transcript.exception() is not None:
            log.warning("speech recognition failed on a turn (%s): the end-of-turn judge had no words",
                        type(check.transcript.exception()).__name__)
        else:
            log.warning("end-of-turn judge failed: %s", type(exc).__name__)
        return None
