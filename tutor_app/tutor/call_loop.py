"""A live call: microphone -> VAD turn-taking -> the engine's streamed turn -> Piper ->
speaker, with barge-in, echo handling, device loss and latency stamps. No Qt.

Threads (DESIGN.md "Threads"):
- PortAudio callbacks (speech/audio_io.py) only copy samples and count.
- audio thread: 512-sample frames -> Silero probability -> echo gate -> Segmenter;
  SpeechStarted is announced, an ended utterance is queued for the engine thread, and
  speech over the tutor is a barge-in (cancel the turn, clear the player).
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
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tutor_app.core.cancel import CancelToken, TurnCounter
from tutor_app.speech.echo import EchoGate, EchoOptions
from tutor_app.speech.segmenter import FRAME_SAMPLES, SAMPLE_RATE, Segmenter, SegmenterOptions
from tutor_app.speech.segmenter import SpeechStarted as SegSpeechStarted
from tutor_app.speech.segmenter import UtteranceEnded
from tutor_app.tutor import events as ev

log = logging.getLogger(__name__)

SORRY_CUT = "Sorry, I lost my train of thought there. Could you say that again?"
SORRY_FAILED = "Sorry, something went wrong on my side. Could you say that again?"
LEVEL_SAMPLES = SAMPLE_RATE // 20  # MicLevel about 20 times a second


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
    early_stt_ms: int = 160

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
        self._muted = False
        self._state = ev.LISTENING
        self._paused = False
        self._segmenter = Segmenter(self.options.segmenter)
        self._echo = EchoGate(self.options.echo)
        self._frames: list[Any] = []  # frames since segmenter index `_base`
        self._base = 0
        self._index = 0  # segmenter index of the next frame
        self._utt_start = 0
        self._last_speech = 0
        self._early: tuple[int, int, Any] | None = None  # (start, end, Future) of an early STT
        self._stt_lock = threading.Lock()
        self._stt_pool: Any = None
        self._recent: deque = deque(maxlen=self._echo.frames(self.options.echo.loud_min_ms
                                                             + self.options.segmenter.preroll_ms) + 4)
        self._was_gated = False
        self._level_acc = 0.0
        self._level_n = 0
        self._frames_cond = threading.Condition()
        self.frames_seen = 0
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
        self._muted = bool(muted)

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
        with self._frames_cond:
            return self._frames_cond.wait_for(lambda: self.frames_seen >= n, timeout)

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
        import numpy as np

        self.vad.reset()
        pending = np.zeros(0, dtype=np.float32)
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
                    pending = np.zeros(0, dtype=np.float32)
                continue
            samples, _level = item
            pending = np.concatenate([pending, samples]) if pending.size else samples
            while pending.size >= FRAME_SAMPLES and not self._stop.is_set():
                frame, pending = pending[:FRAME_SAMPLES], pending[FRAME_SAMPLES:]
                self._frame(frame)

    def _frame(self, frame) -> None:
        import numpy as np

        rms = float(np.sqrt(np.mean(frame * frame)))
        self._level(rms, len(frame))
        try:
            if self._muted:
                self._reset_turn_taking()
                return
            probability = self.vad.probability(frame)
            self._recent.append((frame, probability))
            speaking = self._tutor_speaking()
            if not self._echo.listen(speaking):
                if not self._was_gated:
                    self._reset_turn_taking()  # the speaker may be heard from here on
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
            level = 0.0 if self._muted else (self._level_acc / self._level_n) ** 0.5
            self._level_acc = 0.0
            self._level_n = 0
            self._emit(ev.MicLevel(min(1.0, level)))

    def _speaker_mode_barge_in(self) -> None:
        self.barge_in()
        self._echo.open()
        self._was_gated = False
        # The loud speech was gated so far: replay it (and its pre-roll) into turn-taking.
        recent = list(self._recent)
        self._reset_turn_taking()
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
                    self.barge_in()
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
        if not early or self._early is not None or self.stt is None:
            return
        if index - self._last_speech == self.options.segmenter.frames(early):
            start, end = self._utt_start, self._last_speech + 1
            self._early = (start, end, self._transcribe_later(self._cut(start, end)))

    def _cut(self, start: int, end: int):
        import numpy as np

        a = max(0, start - self._base)
        b = max(a, end - self._base)
        return np.concatenate(self._frames[a:b]) if b > a else np.zeros(0, dtype=np.float32)

    def _utterance(self, event: UtteranceEnded) -> None:
        audio = self._cut(event.start_frame, event.end_frame)
        early, self._early = self._early, None
        if not audio.size or self.stt is None:
            return
        if early is not None and early[:2] == (event.start_frame, event.end_frame):
            transcript = early[2]
        else:
            transcript = self._transcribe_later(audio)
        log.debug("utterance of %.2f s (%s)", audio.size / SAMPLE_RATE, event.reason)
        self._jobs.put(_Job(audio=audio, eos=time.perf_counter(), transcript=transcript))

    def _trim(self) -> None:
        """Idle: keep only what a new utterance could still start in (pre-roll, a blip
        that may grow into speech)."""
        o = self.options.segmenter
        keep = o.frames(o.preroll_ms) + o.frames(o.silence_ms) + 4 * o.frames(o.min_speech_ms)
        extra = len(self._frames) - keep
        if extra > 0:
            del self._frames[:extra]
            self._base += extra

    def _reset_turn_taking(self) -> None:
        self._segmenter.reset()
        self._frames.clear()
        self._base = 0
        self._index = 0
        self._early = None

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
                self.vad.reset()
                self._reset_turn_taking()
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
        services = [("speech recognition", lambda: self.stt if self.capture is not None else None),
                    ("speech synthesis", lambda: self.speaker.tts if self.speaker.player is not None else None),
                    ("tutor model", self._chat_model)]
        for name, get in services:
            try:
                warm = getattr(get(), "warm_up", None)
                if warm is not None:
                    warm()
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

        clock = StageClock()
        clock.start = clock._last = job.eos  # stamps count from the end of the learner's speech
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
        if result.error:
            self._emit(ev.Problem("llm", f"The tutor model failed: {result.error}"))
            if result.reply and not interrupted and not self._stop.is_set():
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
