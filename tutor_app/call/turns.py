"""The turns thread of a live call (`call-turns`, started by call/loop.py): one job at a
time - an utterance's transcript (or typed text) -> Conversation.turn, which streams the
reply's sentences into the speaker -> wait until the reply was played or cut ->
TutorTurnDone. A speculative turn (begun by the audio thread before the turn was certain)
arrives with its TutorTurn; a retracted one leaves no trace.

The learner's bubble (UserUtterance) and their emotion are shown once a turn is theirs
(its commit, on whichever thread commits it); nothing here writes to disk except a
speaking-rate preference, saved on this thread.
"""
from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from tutor_app.call import events as ev
from tutor_app.core.types import EmotionScore, top_emotion
from tutor_app.tutor.hear_again import heard_again
from tutor_app.tutor.heard import NOT_HEARD, heard, not_heard_turn

if TYPE_CHECKING:
    from tutor_app.call.speaker import Speaker
    from tutor_app.call.transcripts import CallStt
    from tutor_app.call.tutor_turn import TurnControl, TutorTurn
    from tutor_app.tutor.engine import Conversation

log = logging.getLogger(__name__)

SORRY_CUT = "Sorry, I lost my train of thought there. Could you say that again?"
SORRY_FAILED = "Sorry, something went wrong on my side. Could you say that again?"


@dataclass
class Job:
    """One utterance (or typed line) for the turns thread."""

    text: str = ""
    audio: Any = None  # 16 kHz float32 samples of an utterance, or None for typed text
    eos: float = 0.0  # perf_counter at the learner's last voiced sample (or end of typing)
    transcript: Any = None  # Future of the STT result for `audio`
    turn: TutorTurn | None = None  # made by the audio thread for a speculative turn
    seconds: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _shown: bool = False
    _emotion: Any = None
    rate_change: tuple[float, float | None] | None = None  # (rate before, preference to keep) on commit
    stt_result: Any = None  # the Transcript, with word timings and pauses (fluency, tutor/fluency.py)


class TurnsPort(Protocol):
    """What the turns thread may do to the call (CallLoop implements it)."""

    def emit(self, event: ev.CallEvent) -> None: ...
    def set_state(self, state: str) -> None: ...


class Turns:
    """The turns thread's work and its state: the queue of jobs, the turn it runs."""

    def __init__(self, session: Conversation, speaker: Speaker, recognition: CallStt, port: TurnsPort,
                 stop: threading.Event) -> None:
        self.session = session
        self.speaker = speaker
        self.control: TurnControl = speaker.control
        self.recognition = recognition
        self.port = port
        self._stop = stop
        self._jobs: queue.Queue[Job | None] = queue.Queue()  # None: stop
        self.active: TutorTurn | None = None  # the turn being run
        self.results: list[Any] = []  # TurnResult per finished turn (bench, tests)

    def put(self, job: Job) -> None:
        self._jobs.put(job)

    def close(self) -> None:
        """`serve` returns once the job it runs is done."""
        self._jobs.put(None)

    def serve(self) -> None:
        """Jobs one at a time until `close` (or the call stops)."""
        while True:
            job = self._jobs.get()
            if job is None or self._stop.is_set():
                return
            try:
                self._run(job)
            except Exception as exc:  # noqa: BLE001 - a failed turn must not end the call
                log.exception("turn failed")
                self.port.emit(ev.Problem("other", f"That turn failed ({type(exc).__name__}); still listening."))
                turn = self.active
                if turn is not None and turn.committed and not self._stop.is_set():
                    # The learner saw their words go out: answer, and close the turn for the UI.
                    self.speaker.say(turn, SORRY_FAILED)
                    self.speaker.wait_done(turn)
                    self.port.emit(ev.TutorTurnDone(SORRY_FAILED))
                self.end_turn()

    # -- the learner's side, shown once the turn is theirs -----------------------------------
    def show_learner(self, job: Job) -> None:
        """The turn is the learner's (committed): their bubble, then the emotion once read.
        Any thread (the commit's): nothing here waits or writes to disk."""
        with job._lock:
            job._shown = True
            self.port.emit(ev.UserUtterance(job.text, job.seconds))
            if job._emotion is not None:
                self._show_emotion(job._emotion)

    def _emotion_read(self, job: Job, scores: list[EmotionScore]) -> None:
        top = top_emotion(scores)
        with job._lock:
            job._emotion = top
            if job._shown:
                self._show_emotion(top)

    def _show_emotion(self, top: EmotionScore | None) -> None:
        if top is not None:
            self.port.emit(ev.EmotionRead(top.label, float(top.score)))
        self.port.set_state(ev.THINKING)

    # -- one turn ----------------------------------------------------------------------------
    def _run(self, job: Job) -> None:
        from tutor_app.tutor.turn import StageClock

        if job.turn is not None and job.turn.cancelled:
            return  # retracted before it started: the learner went on talking
        clock = StageClock(start=job.eos)  # stamps count from the learner's last voiced sample
        if job.audio is not None and job.turn is None:
            transcript = job.transcript.result() if job.transcript is not None else \
                self.recognition.transcribe(job.audio)
            job.text = (transcript.text or "").strip()
            job.stt_result = transcript
            clock.mark("stt")
            clock.since_start("stt_done")
            if heard(transcript).reason == "empty":
                log.info("an utterance of %.1f s had no words: no turn", job.seconds or 0.0)
                self.port.emit(ev.UserUtterance("", job.seconds))  # the UI drops its "..." bubble
                return
        elif job.turn is not None:
            clock.mark("stt")
            clock.since_start("stt_done")  # the speculation was decided on this transcript
        remember = True  # False: Korean the multilingual model made out (tutor/hear_again.py), never stored
        if job.stt_result is not None:
            not_heard = not_heard_turn(job.stt_result, None, clock)
            if not_heard is not None:
                again = heard_again(getattr(getattr(self.session, "engine", None), "settings", None), job.audio,
                                    job.stt_result)
                if again is None:
                    self._not_heard(job, not_heard)
                    return
                job.text, remember = again.text, again.remember
                clock.mark("heard_again")
                if job.turn is not None and not self._shown_once_theirs(job):
                    return
        if self._stop.is_set():
            return
        self._rate_request(job)
        turn = job.turn or self.control.begin(on_commit=lambda _t: self.show_learner(job))
        self.active = turn

        def spoken(reply: str) -> str:
            self.speaker.wait_done(turn)
            clock.mark("playback")  # the rest of the reply playing out (not the persist stage)
            return self.speaker.heard(turn)

        try:
            result = self.session.turn(job.text, lambda sentence: self.speaker.say(turn, sentence), turn,
                                       speech_seconds=job.seconds, clock=clock,
                                       on_emotion=lambda scores: self._emotion_read(job, scores), spoken=spoken,
                                       transcript=job.stt_result, **({} if remember else {"remember": False}))
        finally:
            self._keep_rate(job, turn)
        if result.retracted:
            log.debug("speculative turn %d retracted: the learner went on", turn.gen)
            if job.rate_change is not None:
                self.speaker.tts.set_rate(job.rate_change[0])  # that request was never made
            self.end_turn(back_to_listening=False)
            return
        if job.audio is not None:
            result.transcript = job.text
        interrupted = turn.interrupted
        result.interrupted = interrupted
        shown = result.reply
        if result.problem == "fallback":
            # Answered in full by the local fallback model: a notice, not a failure.
            self.port.emit(ev.Problem("offline", f"local tutor ({result.fallback})"))
        elif result.problem == "api-key":
            self.port.emit(ev.Problem("api-key", "The tutor model did not accept the API key: check it in Settings."))
        elif result.error:
            self.port.emit(ev.Problem("llm", f"The tutor model failed: {result.error}"))
            # The engine already apologised when nothing came at all; a cut reply needs one.
            if result.problem == "cut" and not interrupted and not self._stop.is_set():
                self.speaker.say(turn, SORRY_CUT)  # cut mid-reply: never end on half a sentence
                self.speaker.wait_done(turn)
                shown = f"{result.reply} {SORRY_CUT}"
        if turn.first_audio is not None:
            result.timings_ms["first_audio"] = round((turn.first_audio - clock.start) * 1000, 2)
        with self.control.lock:
            backchannels = tuple(turn.backchannels)
        self.results.append(result)
        log.info("turn %d latency (ms after the last voiced sample): %s", turn.gen, {
            k: result.timings_ms.get(k) for k in ("stt_done", "first_token", "first_sentence", "first_audio")})
        self.port.emit(ev.TutorTurnDone(shown, interrupted, result.guardrail, dict(result.timings_ms), backchannels))
        self.end_turn()

    def _not_heard(self, job: Job, result: Any) -> None:
        """A spoken turn not understood (tutor/heard.py): never the learner's words, never
        stored; the tutor says the fixed line and listens again."""
        if self._stop.is_set():
            return
        turn = self.active = job.turn or self.control.begin()
        self.speaker.say(turn, NOT_HEARD)
        if not turn.wait_committed():  # a speculation the learner talked on through: nothing said
            self.end_turn(back_to_listening=False)
            return
        self.port.emit(ev.UserUtterance("", job.seconds))  # the UI drops its "..." bubble
        self.speaker.wait_done(turn)
        self.results.append(result)
        self.port.emit(ev.TutorTurnDone(self.speaker.heard(turn), turn.interrupted, not_heard=True))
        self.end_turn()

    def _shown_once_theirs(self, job: Job) -> bool:
        """A speculative turn begun as "not understood" showed nothing: the learner's words
        are shown once it is theirs. False: they talked on through it."""
        turn = self.active = job.turn
        if turn is None or not turn.wait_committed():
            self.end_turn(back_to_listening=False)
            return False
        self.show_learner(job)
        return True

    def _rate_request(self, job: Job) -> None:
        """ "Could you speak more slowly?" changes the voice from the reply's first sentence."""
        from tutor_app.tutor.rate import speak_as_asked

        settings = getattr(getattr(self.session, "engine", None), "settings", None)
        if settings is not None and self.speaker.player is not None:
            job.rate_change = speak_as_asked(self.speaker.tts, settings.tutor.level, job.text)

    def _keep_rate(self, job: Job, turn: TutorTurn) -> None:
        """A speaking-rate request of a turn that became the learner's is their preference
        for later calls: saved here, on the turns thread, never on the audio or TTS thread
        that committed the turn (it writes the settings file)."""
        settings = getattr(getattr(self.session, "engine", None), "settings", None)
        if job.rate_change is None or settings is None or not turn.committed:
            return
        from tutor_app.tutor.rate import remember_rate

        try:
            remember_rate(settings, job.rate_change[1])
        except Exception:  # noqa: BLE001 - not kept for later calls; this call's voice changed anyway
            log.warning("the speaking rate could not be saved", exc_info=True)

    def end_turn(self, back_to_listening: bool = True) -> None:
        """The active turn is over (its speaker state forgotten); the call listens again."""
        turn, self.active = self.active, None
        if turn is not None:
            self.control.finish(turn)
            self.speaker.forget(turn)
        if back_to_listening:
            self.port.set_state(ev.LISTENING)
