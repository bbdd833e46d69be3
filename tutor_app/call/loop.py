"""A live call: microphone -> VAD turn-taking -> the engine's streamed turn -> Piper ->
speaker, with barge-in, echo handling, device loss and latency stamps. No Qt.

Threads (the table in docs/DESIGN-NOTES.md, "Live call"):
- PortAudio callbacks (speech/audio_io.py, speech/playback.py) only copy samples and count.
- audio thread (`call-audio`, call/mic.py): microphone blocks -> Listener
  (call/listen/listener.py); it announces SpeechStarted, hands ended (or speculatively
  ended) utterances to the turns thread, and sends the interruption messages when the
  learner talks over the tutor: `pause()` (their voice says they take the floor),
  then `resume()` (their words say it was a backchannel or nothing) or `interrupt()`.
- turns thread (`call-turns`, call/turns.py): one job at a time: STT result ->
  Conversation.turn (streams sentences into the speaker) -> waits until the reply was
  played or cut -> TutorTurnDone.
- TTS/playback thread (call/speaker.py) and the player's notifier thread.
Each tutor turn is one `TutorTurn` (call/tutor_turn.py): its generation, its cancel
signal, its commit, what was heard. Nothing else says whether a turn goes on.

Each resource has one owner: the microphone loop the capture stream, the speaker the
player, the call's STT (`CallStt`, call/transcripts.py: the model, its one worker) and
this loop the judge pool (made before any thread runs, shut down once the audio thread,
their only client, has ended). `stop()` is the call's one ordered stop.
A bug on any of the call's threads ends the call with one CallAborted (`failed()`).

Latency stamps (ms on time.perf_counter after the learner's last voiced sample) land in
each turn's `timings_ms`: stt_done, first_token, first_sentence, first_audio (the first
sample handed to the output device; the device's own latency comes on top).
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from tutor_app.call import events as ev
from tutor_app.call import opening
from tutor_app.call.listen.listener import Listener
from tutor_app.call.mic import MicrophoneLoop
from tutor_app.call.options import LoopOptions as LoopOptions  # re-exported: callers import it here
from tutor_app.call.transcripts import CallStt
from tutor_app.call.turns import Job, Turns
from tutor_app.call.tutor_turn import BARGE_IN, TurnControl, TutorTurn
from tutor_app.call.warmup import warm_up
from tutor_app.core.heap import HEAP
from tutor_app.core.protocols import VadStreams, VoiceActivity
from tutor_app.core.types import SAMPLE_RATE, Transcript
from tutor_app.speech.ports import SpeechToText, TurnJudge
from tutor_app.tutor.heard import heard

if TYPE_CHECKING:
    import numpy as np

    from tutor_app.call.speaker import Speaker
    from tutor_app.speech.audio_io import Capture
    from tutor_app.speech.bias import BiasList
    from tutor_app.speech.end_of_turn import Verdict
    from tutor_app.tutor.engine import Conversation

log = logging.getLogger(__name__)

STT_WAIT_S = 10.0  # the longest the audio thread waits on a transcript (never for ever)


class CallLoop:
    def __init__(self, session: Conversation, stt: SpeechToText | Callable[[], SpeechToText],
                 vad: VoiceActivity | None, speaker: Speaker, capture: Capture | None, sink: ev.EventSink,
                 options: LoopOptions | None = None, reopen_capture: Callable[[], Capture | None] | None = None,
                 judge: TurnJudge | None = None, greet: bool = False, started_at: float | None = None,
                 on_abort: Callable[[], None] | None = None) -> None:
        """`judge(audio, transcript_text) -> Verdict` decides whether a paused turn is
        complete (call/listen/judge.py); None = the VAD-only rule. `greet`: the tutor
        speaks first (call/opening.py); `started_at`: perf_counter when the call was
        asked for (the greeting's first_audio counts from it). `speaker` and `capture`
        are handed over: `stop()` closes them. `on_abort`: a thread of the call failed
        (CallAborted is out); whoever started the call ends it (not on this thread)."""
        self.vad = vad
        self.speaker = speaker
        self.control: TurnControl = speaker.control
        self.options = (options or LoopOptions()).with_judge(judge is not None)
        self.judge = judge
        self.greet = greet
        self.started_at = started_at
        self._sink = sink
        self._on_abort = on_abort
        self._aborted = False  # under _emit_lock: one CallAborted per call
        self._emit_lock = threading.Lock()
        self._stop = threading.Event()
        self._state = ev.LISTENING
        # Made here, before any thread runs: only the audio thread submits; stop() shuts them down.
        self.recognition = CallStt(stt, lambda: getattr(self.session, "stt_bias", None), self.options.recognition)
        self._pools = {"stt": self.recognition.pool, "judge": ThreadPoolExecutor(1, thread_name_prefix="call-judge")}
        # The raw microphone's own VAD stream: the learner's voice the canceller hid (near_end.py).
        near_vad = vad.stream() if isinstance(vad, VadStreams) else None
        self.listener = Listener(self.options, vad, self, self.recognition.source(), near_vad)
        self.mic = MicrophoneLoop(capture, self.listener, self.options, self._stop, self._emit,
                                  lambda: self._state, reopen_capture) if capture is not None else None
        self.turns = Turns(session, speaker, self.recognition, self, self._stop)
        self.results = self.turns.results  # TurnResult per finished turn (bench, tests)
        self.ready = threading.Event()  # models warm, audio running
        self._frozen = False  # this call holds the heap frozen (core/heap.py)
        self._threads: list[threading.Thread] = []

    @property
    def session(self) -> Conversation:
        """The call's conversation (the turns thread's: call/turns.py)."""
        return self.turns.session

    @property
    def stt(self) -> SpeechToText:
        """The STT model (a factory given is called on first use: call/transcripts.py)."""
        return self.recognition.model

    @property
    def capture(self) -> Capture | None:
        """The microphone's stream now (the microphone loop owns it)."""
        return self.mic.capture if self.mic is not None else None

    def _pool(self, name: str) -> Executor:
        """"stt" or "judge" (tests submit a no-op to wait for what is queued before it)."""
        return self._pools[name]

    # -- ListenerPort (called on the audio thread) ----------------------------------------
    def emit(self, event: ev.CallEvent) -> None:
        self._emit(event)

    def tutor_audible(self) -> bool:
        return self.speaker.audible(self.control.current)

    def tutor_words(self) -> str:
        """What the current turn has said so far (its sentences, as written)."""
        turn = self.control.current
        if turn is None:
            return ""
        with self.control.lock:
            return " ".join(s.text for s in turn.sentences)

    def interrupt(self) -> None:
        """The one interruption message: the current turn is cancelled, playback stops."""
        turn = self.control.interrupt(BARGE_IN)
        self.speaker.stop_audio()
        if turn is not None:
            log.info("barge-in: the learner spoke over turn %d", turn.gen)

    def pause(self) -> None:
        """The learner's voice says they take the floor: the turn's playback holds where it
        is until `resume()` (a backchannel, nothing: it plays on) or `interrupt()`."""
        if (turn := self.control.pause()) is not None:
            log.info("pause: the learner spoke over turn %d", turn.gen)
        self.speaker.pause_audio()

    def resume(self) -> None:
        if (turn := self.control.resume()) is not None:
            log.info("resume: turn %d plays on", turn.gen)
        self.speaker.resume_audio(self.options.interruption.resume_back_ms / 1000)

    def duck(self, on: bool) -> None:
        self.speaker.set_gain(self.options.interruption.duck_gain if on else 1.0)

    def transcribe_later(self, audio: np.ndarray, expect: BiasList | None = None) -> Future[Transcript]:
        """STT on its own thread (one at a time), so it can start before the turn ends.
        `expect`: the words to expect instead of this call's names (a backchannel)."""
        return self.recognition.transcribe_later(audio, expect)

    def drop(self, future: Future[Transcript]) -> None:
        """Those words are not wanted any more: the decode never starts or stops early."""
        self.recognition.drop(future)

    def hear_ahead(self, audio: np.ndarray) -> None:
        """The utterance so far: the STT worker reads its VAD pass ahead of the words."""
        self.recognition.hear_ahead(audio)

    def judge_later(self, audio: np.ndarray, transcript: Future[Transcript]) -> Future[Verdict] | None:
        from tutor_app.call.listen.judge import judge_later

        if self.judge is None:
            return None
        return judge_later(self.judge, self._pool("judge"), audio, transcript, self.recognition.encoded(transcript))

    def utterance(self, audio: np.ndarray, eos: float, transcript: Future[Transcript],
                  speculative: bool, held: bool = False) -> TutorTurn | None:
        """An utterance for the turns thread; `speculative`: its turn starts now, before the
        turn is certain (`held`: it may not play until the listener releases it)."""
        job = Job(audio=audio, eos=eos, transcript=transcript, seconds=round(len(audio) / SAMPLE_RATE, 2))
        if speculative:
            job.stt_result = transcript.result(timeout=STT_WAIT_S)  # done: the judge had it already
            job.text = (job.stt_result.text or "").strip()
            verdict = heard(job.stt_result)
            if verdict.reason == "empty":
                return None
            # Not understood (tutor/heard.py): the fixed line is the speculative answer, and
            # the words are never shown as the learner's.
            job.turn = self.control.begin(speculative=True, on_commit=(lambda _t: self.turns.show_learner(job))
                                          if verdict.understood else None, held=held)
        self.turns.put(job)
        return job.turn

    def backchannel(self, text: str) -> None:
        turn = self.control.current
        if turn is not None:
            with self.control.lock:
                turn.backchannels.append(text)
        self._emit(ev.Backchannel(text))

    # -- control -------------------------------------------------------------------------
    def start(self) -> None:
        self._emit(ev.StateChanged(ev.LISTENING))
        turns = threading.Thread(target=self._turns_run, name="call-turns", daemon=True)
        self._threads.append(turns)
        turns.start()
        if self.mic is not None:
            audio = threading.Thread(target=self._audio_run, name="call-audio", daemon=True)
            self._threads.append(audio)
            audio.start()

    def submit_text(self, text: str) -> None:
        text = (text or "").strip()
        if not text:
            return
        if self.tutor_audible():
            self.interrupt()  # typing over the tutor interrupts it, like speaking does
        self.turns.put(Job(text=text, eos=time.perf_counter()))

    def set_muted(self, muted: bool) -> None:
        self.listener.muted = bool(muted)

    @property
    def frames_seen(self) -> int:
        return self.listener.frames_seen

    def stop(self, timeout: float = 15.0) -> None:
        """The call's one ordered stop (any thread but the call's own; once is enough):
        1. nothing new starts: the stop flag, the current turn cancelled, playback dropped;
        2. the microphone closes (a stream being reopened right now closes at once);
        3. the turns and audio threads end;
        4. the STT and judge pools shut down (the audio thread, their only client, is gone);
        5. the speaker closes: its TTS thread ends, then its player and notifier."""
        self._stop.set()
        self.control.close()
        self.speaker.stop_audio()
        stats = self.mic.stats if self.mic is not None else None
        if self.mic is not None:
            self.mic.close()
        self.turns.close()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout=timeout)
                if thread.is_alive():
                    log.warning("the call's %s thread did not stop in %.0f s", thread.name, timeout)
        self.recognition.shutdown()
        self._pools["judge"].shutdown(wait=False, cancel_futures=True)
        player = self.speaker.player
        log.info("call audio: input %s; output underflows %s",
                 stats, getattr(getattr(player, "stats", None), "underflows", None))
        self.speaker.close()
        if self._frozen:  # the turns thread is gone: nothing freezes after this
            self._frozen = False
            HEAP.thaw()

    def wait_frames(self, n: int, timeout: float = 10.0) -> bool:
        """Tests and benches: until `n` microphone frames were processed in total."""
        return self.listener.wait_frames(n, timeout)

    # -- events --------------------------------------------------------------------------
    def _emit(self, event: ev.CallEvent) -> None:
        try:
            with self._emit_lock:  # one event at a time, in order, whatever the thread
                self._sink(event)
        except Exception:  # noqa: BLE001 - a sink bug must not stop the call
            log.exception("call event sink failed on %r", event)

    def set_state(self, state: str) -> None:
        self._state = state
        if self.mic is None or not self.mic.paused:
            self._emit(ev.StateChanged(state))

    def failed(self, where: str, exc: BaseException) -> None:
        """The catch-all of every thread of the call (`where`: audio, turns, speech,
        playback, greeting): a bug ends the call, with one CallAborted and one log line, whichever
        thread and however many fail. Failures while the call stops are no news."""
        if self._stop.is_set():
            log.debug("the call's %s thread failed while stopping", where, exc_info=exc)
            return
        with self._emit_lock:
            first, self._aborted = not self._aborted, True
        if not first:
            log.debug("the call's %s thread failed too", where, exc_info=exc)
            return
        log.error("the call's %s thread failed: the call ends", where, exc_info=exc)
        self.control.close()  # nothing more is said; waiters on a turn wake
        self.speaker.stop_audio()
        self._emit(ev.CallAborted(where, type(exc).__name__))
        if self._on_abort is not None:
            self._on_abort()

    def _guarded(self, where: str, work: Callable[[], object]) -> None:
        try:
            work()
        except Exception as exc:  # noqa: BLE001 - the thread's catch-all: the call ends with a message
            self.failed(where, exc)

    def on_sentence_started(self, turn: TutorTurn, text: str, t: float) -> None:
        """Speaker callback: a sentence's first sample went out."""
        if self._state != ev.SPEAKING:
            self.set_state(ev.SPEAKING)
        self._emit(ev.TutorSentence(text))

    def on_problem(self, kind: str, message: str) -> None:
        self._emit(ev.Problem(kind, message))

    # -- audio thread --------------------------------------------------------------------
    def _audio_run(self) -> None:
        if self.mic is not None:
            self._guarded("audio", self.mic.run)

    # -- turns thread --------------------------------------------------------------------
    def _turns_run(self) -> None:
        self._guarded("turns", self._turns)

    def _turns(self) -> None:
        # The greeting plays first; the warm-up runs while it is heard, not in front of it.
        greeting = opening.speak(self, opening.compose(self)) if self.greet else None
        if self.options.warm_up:
            warm_up(self)
            getattr(self.session, "stt_bias", None)  # the memory read, before the first turn
            getattr(self.session, "practice_plan", None)  # and the call's practice plan
        if not self._frozen and not self._stop.is_set():
            HEAP.freeze()  # the models are loaded: no full collection scans them mid-call
            self._frozen = True
        self.ready.set()
        if greeting is not None:
            self.turns.active = greeting.turn
            opening.finish(self, greeting, self.started_at)
            self.turns.end_turn()
        self.turns.serve()
