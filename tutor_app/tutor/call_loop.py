"""A live call: microphone -> VAD turn-taking -> the engine's streamed turn -> Piper ->
speaker, with barge-in, echo handling, device loss and latency stamps. No Qt.

Threads (DESIGN.md "Threads"):
- PortAudio callbacks (speech/audio_io.py) only copy samples and count.
- audio thread: microphone blocks -> Listener (tutor/call_listen.py: Silero -> echo
  gate -> Segmenter); SpeechStarted is announced, an ended utterance is queued for the
  engine thread, speech over the tutor is a barge-in (cancel the turn, clear the
  player); a vanished microphone pauses the call until it is back.
- engine thread: one job at a time: STT -> CallSession.turn (streams sentences into the
  speaker) -> waits until the reply was played or cut -> TutorTurnDone.
- TTS/playback thread (tutor/call_speaker.py) and the player's notifier thread.

Latency stamps (ms on time.perf_counter after the end of speech was detected, i.e. after
the silence window that ends a turn) land in each turn's `timings_ms`: stt_done,
first_token, first_sentence, first_audio. STT may start inside that silence window
(`early_stt_ms`), so stt_done can be near 0.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tutor_app.core.cancel import CancelToken, TurnCounter
from tutor_app.speech.echo import EchoOptions
from tutor_app.speech.segmenter import SAMPLE_RATE, SegmenterOptions
from tutor_app.tutor import events as ev
from tutor_app.tutor.call_listen import Listener

log = logging.getLogger(__name__)

SORRY_CUT = "Sorry, I lost my train of thought there. Could you say that again?"
SORRY_FAILED = "Sorry, something went wrong on my side. Could you say that again?"


@dataclass(frozen=True)
class LoopOptions:
    segmenter: SegmenterOptions = field(default_factory=SegmenterOptions)
    echo: EchoOptions = field(default_factory=EchoOptions)
    stall_s: float | None = 3.0  # no microphone block this long = the device is gone
    reopen_every_s: float = 1.0  # while paused, try the microphone again this often
    give_up_s: float = 120.0  # then stop trying (typed turns still work)
    warm_up: bool = True  # load/warm STT and TTS before the first turn
    # Start STT this long into the silence that may end the turn, instead of waiting for
    # the whole silence window: if the turn does end there, the transcript is (nearly)
    # ready at the end of speech; if the learner goes on, the guess is dropped. 0 = off.
    early_stt_ms: int = 64

    @classmethod
    def from_settings(cls, speech, devices=None, **overrides) -> "LoopOptions":
        """`devices` (audio_io.list_devices) decide the echo mode when it is "auto"."""
        return cls(segmenter=SegmenterOptions.from_settings(speech),
                   echo=EchoOptions.from_settings(speech, devices), **overrides)


@dataclass
class _Job:
    text: str = ""
    audio: Any = None  # 16 kHz float32 samples of an utterance, or None for typed text
    eos: float = 0.0  # perf_counter at the end of the learner's speech (or of typing)
    transcript: Any = None  # Future of the STT result for `audio`


class CallLoop:
    def __init__(self, session: Any, stt: Any, vad: Any, speaker: Any, capture: Any | None,
                 sink: ev.EventSink, options: LoopOptions | None = None,
                 reopen_capture: Callable[[], Any] | None = None) -> None:
        self.session = session
        self._stt = stt  # a SpeechToText, or a zero-argument factory (loaded on first use)
        self.vad = vad
        self.speaker = speaker
        self.capture = capture
        self.options = options or LoopOptions()
        self._sink = sink
        self._reopen = reopen_capture
        self._emit_lock = threading.Lock()
        self._stop = threading.Event()
        self._jobs: queue.Queue = queue.Queue()
        self._counter = TurnCounter()
        self._gen = 0  # generation of the turn being run (0 = none)
        self._token = CancelToken()
        self._cut_gen = -1  # the turn a barge-in stopped: no more gating for it
        self._state = ev.LISTENING
        self._paused = False
        self._stt_lock = threading.Lock()
        self._stt_pool: Any = None
        self.listener = Listener(self.options, vad, self._emit, self._tutor_speaking, self.barge_in,
                                 self._transcribe_later, self._utterance)
        self.results: list[Any] = []  # TurnResult per finished turn (bench, tests)
        self.ready = threading.Event()  # models warm, audio running
        self._threads: list[threading.Thread] = []

    @property
    def stt(self) -> Any:
        with self._stt_lock:  # the audio and engine threads may both ask first
            if callable(self._stt) and not hasattr(self._stt, "transcribe"):
                self._stt = self._stt()
            return self._stt

    def _transcribe_later(self, audio):
        """STT on its own thread (one at a time), so it can start before the turn ends."""
        from concurrent.futures import ThreadPoolExecutor

        from tutor_app.core.types import AudioClip

        if self._stt_pool is None:
            self._stt_pool = ThreadPoolExecutor(1, thread_name_prefix="call-stt")
        return self._stt_pool.submit(lambda: self.stt.transcribe(AudioClip(audio, SAMPLE_RATE)))

    # -- control -------------------------------------------------------------------------
    def start(self) -> None:
        self._emit(ev.StateChanged(ev.LISTENING))
        engine = threading.Thread(target=self._engine_run, name="call-engine", daemon=True)
        self._threads.append(engine)
        engine.start()
        if self.capture is not None:
            audio = threading.Thread(target=self._audio_run, name="call-audio", daemon=True)
            self._threads.append(audio)
            audio.start()

    def submit_text(self, text: str) -> None:
        text = (text or "").strip()
        if not text:
            return
        if self._tutor_speaking():
            self.barge_in()  # typing over the tutor interrupts it, like speaking does
        self._jobs.put(_Job(text=text, eos=time.perf_counter()))

    def set_muted(self, muted: bool) -> None:
        self.listener.muted = bool(muted)

    @property
    def frames_seen(self) -> int:
        return self.listener.frames_seen

    def stop(self, timeout: float = 15.0) -> None:
        self._stop.set()
        self._token.cancel()
        self.speaker.cut()
        self._jobs.put(None)
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout=timeout)
        if self._stt_pool is not None:
            self._stt_pool.shutdown(wait=False, cancel_futures=True)
        player = self.speaker.player
        log.info("call audio: input %s; output underflows %s",
                 getattr(self.capture, "stats", None), getattr(getattr(player, "stats", None), "underflows", None))
        if self.capture is not None:
            self.capture.stop()

    def barge_in(self) -> None:
        gen = self._gen
        if not gen:
            return
        log.info("barge-in: the learner spoke over turn %d", gen)
        self._cut_gen = gen
        self._token.cancel()
        self.speaker.cut(gen)

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

    def _set_state(self, state: str) -> None:
        self._state = state
        if not self._paused:
            self._emit(ev.StateChanged(state))

    def on_sentence_started(self, gen: int, text: str, t: float) -> None:
        """Speaker callback: a sentence's first sample went out."""
        if self._state != ev.SPEAKING:
            self._set_state(ev.SPEAKING)
        self._emit(ev.TutorSentence(text))

    def on_problem(self, kind: str, message: str) -> None:
        self._emit(ev.Problem(kind, message))

    def _tutor_speaking(self) -> bool:
        return self._gen != self._cut_gen and bool(self._gen) and self.speaker.speaking

    # -- audio thread --------------------------------------------------------------------
    def _audio_run(self) -> None:
        self.listener.restart()
        lost = (0, 0)
        while not self._stop.is_set():
            stats = self.capture.stats
            if (stats.overflows, stats.dropped) != lost:
                # Under load the device or our queue ran over: audio was lost, say so once per burst.
                log.warning("microphone input lost: %d overflow(s), %d block(s) dropped so far",
                            stats.overflows, stats.dropped)
                lost = (stats.overflows, stats.dropped)
            item = self.capture.read(timeout=0.1)
            if item is None:
                if self._device_lost():
                    if not self._recover():
                        return  # the microphone is gone for good; typed turns go on
                continue
            self.listener.feed(item[0])

    def _utterance(self, audio, eos: float, transcript) -> None:
        self._jobs.put(_Job(audio=audio, eos=eos, transcript=transcript))

    def _device_lost(self) -> bool:
        cap = self.capture
        if cap.finished.is_set() or not cap.active:
            return True
        stall = self.options.stall_s
        return bool(stall) and time.monotonic() - cap.last_block_at > stall

    def _recover(self) -> bool:
        """Pause, then try the microphone again until it is back (True) or we give up."""
        self._paused = True
        self._emit(ev.Problem("device-lost", "The microphone was disconnected: the call is paused "
                                             "until it is back (you can still type)."))
        self._emit(ev.StateChanged(ev.PAUSED))
        self.capture.stop()
        started = time.monotonic()
        while not self._stop.wait(self.options.reopen_every_s):
            try:
                capture = self._reopen() if self._reopen else None
            except Exception as exc:  # noqa: BLE001 - still gone: try again later
                log.debug("microphone not back yet: %s", exc)
                capture = None
            if capture is not None:
                self.capture = capture
                self.listener.restart()
                self._paused = False
                log.info("microphone back: the call resumes")
                self._emit(ev.StateChanged(self._state))
                return True
            if time.monotonic() - started > self.options.give_up_s:
                break
        if not self._stop.is_set():
            self._emit(ev.Problem("device-lost", "The microphone did not come back: end the call or "
                                                 "type your turns.", fatal=True))
        return False

    # -- engine thread -------------------------------------------------------------------
    def _engine_run(self) -> None:
        if self.options.warm_up:
            self._warm_up()
        self.ready.set()
        while True:
            job = self._jobs.get()
            if job is None or self._stop.is_set():
                return
            try:
                self._run_turn(job)
            except Exception as exc:  # noqa: BLE001 - a failed turn must not end the call
                log.exception("turn failed")
                self._emit(ev.Problem("other", f"That turn failed ({type(exc).__name__}); still listening."))
                gen = self._gen
                if gen and not self._stop.is_set():
                    # The learner saw their words go out: answer, and close the turn for the UI.
                    self.speaker.say(gen, SORRY_FAILED)
                    self.speaker.wait_done(gen, timeout=30)
                    self.speaker.forget(gen)
                    self._emit(ev.TutorTurnDone(SORRY_FAILED))
                self._gen = 0
                self._set_state(ev.LISTENING)

    def _warm_up(self) -> None:
        engine = getattr(getattr(self.session, "engine", None), "services", None)
        services = [("speech recognition", lambda: self.stt if self.capture is not None else None),
                    ("speech synthesis", lambda: self.speaker.tts if self.speaker.player is not None else None),
                    ("tutor model", self._chat_model),
                    ("memory", lambda: getattr(engine, "memory", None)),  # the embedder: seconds
                    ("emotion", lambda: getattr(engine, "emotion", None))]
        for name, get in services:
            try:
                service = get()
                warm = getattr(service, "warm_up", None)
                if warm is not None:
                    warm()
                elif name == "emotion" and service is not None:
                    service.score("Hello.")
            except Exception as exc:  # noqa: BLE001 - the first real use reports it properly
                log.warning("loading/warming up %s failed: %s", name, exc)

    def _chat_model(self) -> Any:
        """The engine's tutor model (its first use imports the SDK and connects: seconds)."""
        services = getattr(getattr(self.session, "engine", None), "services", None)
        factory = getattr(services, "chat_model", None)
        return factory() if callable(factory) else None

    def _run_turn(self, job: _Job) -> None:
        from tutor_app.core.types import AudioClip
        from tutor_app.tutor.turn import StageClock

        clock = StageClock(start=job.eos)  # stamps count from the end of the learner's speech
        seconds = None
        text = job.text
        if job.audio is not None:
            seconds = round(len(job.audio) / SAMPLE_RATE, 2)
            transcript = job.transcript.result() if job.transcript is not None else \
                self.stt.transcribe(AudioClip(job.audio, SAMPLE_RATE))
            text = (transcript.text or "").strip()
            clock.mark("stt")
            clock.since_start("stt_done")
            if not text:
                log.info("an utterance of %.1f s had no words: no turn", seconds)
                self._emit(ev.UserUtterance("", seconds))  # the UI drops its "..." bubble
                return
        if self._stop.is_set():
            return
        gen, token = self._counter.next_turn()
        self._gen, self._token = gen, token
        self._emit(ev.UserUtterance(text, seconds))

        def on_emotion(scores) -> None:
            top = next((s for s in scores if s.label != "neutral"), scores[0] if scores else None)
            if top is not None:
                self._emit(ev.EmotionRead(top.label, float(top.score)))
            self._set_state(ev.THINKING)

        def spoken(reply: str) -> str:
            self.speaker.wait_done(gen)
            clock.mark("playback")  # the rest of the reply playing out (not the persist stage)
            heard, _cut = self.speaker.heard(gen)
            return heard

        result = self.session.turn(text, lambda s: self.speaker.say(gen, s), token,
                                   speech_seconds=seconds, clock=clock, on_emotion=on_emotion, spoken=spoken)
        if job.audio is not None:
            result.transcript = text
        interrupted = gen == self._cut_gen
        result.interrupted = interrupted
        shown = result.reply
        if result.error and result.error.startswith("offline:"):
            # Answered in full by the local fallback model: a notice, not a failure.
            self._emit(ev.Problem("offline", result.error.removeprefix("offline:").strip()))
        elif result.error:
            self._emit(ev.Problem("llm", f"The tutor model failed: {result.error}"))
            from tutor_app.tutor.engine import SORRY_OFFLINE

            # The engine already apologised when nothing came at all; a cut reply needs one.
            if result.reply and result.reply != SORRY_OFFLINE and not interrupted and not self._stop.is_set():
                self.speaker.say(gen, SORRY_CUT)  # cut mid-reply: never end on half a sentence
                self.speaker.wait_done(gen)
                shown = f"{result.reply} {SORRY_CUT}"
        first_audio = self.speaker.first_audio(gen)
        if first_audio is not None:
            result.timings_ms["first_audio"] = round((first_audio - clock.start) * 1000, 2)
        self.speaker.forget(gen)
        self.results.append(result)
        log.info("turn %d latency (ms after end of speech): %s", gen, {
            k: result.timings_ms.get(k) for k in ("stt_done", "first_token", "first_sentence", "first_audio")})
        self._emit(ev.TutorTurnDone(shown, interrupted, result.guardrail, dict(result.timings_ms)))
        self._gen = 0
        self._set_state(ev.LISTENING)
