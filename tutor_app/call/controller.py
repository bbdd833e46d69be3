"""The live call behind the desktop UI (and `tutor-app call --live`): a small facade.

    controller = CallController(app)                 # or CallController(engine=..., stt=..., ...)
    session_id = controller.start_call(off_record=False, sink=on_event)
    controller.send_text("I had a job interview today.")   # typed turn, spoken aloud too
    controller.set_muted(True)
    controller.end_call()   # CallEnded now, ReportReady later (background call-end work)

Events (call/events.py) reach `sink` from worker threads, one at a time and in the
documented order; the sink must return quickly (the Qt bridge re-posts them as queued
signals). With no microphone the call still starts: Problem(kind="no-microphone") and
typed turns only. With no speaker, replies are shown but not spoken. A bug on one of the
call's threads ends the call by itself: CallAborted, then the events of `end_call()`.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, cast

from tutor_app.call import events as ev
from tutor_app.core.protocols import TextToSpeech, VoiceActivity
from tutor_app.speech.ports import SpeechToText, TurnJudge
from tutor_app.tutor.recovery import CallLease

if TYPE_CHECKING:
    from tutor_app.call.loop import CallLoop
    from tutor_app.call.options import LoopOptions
    from tutor_app.settings import Settings
    from tutor_app.speech.aec import EchoCanceller, FarEndTap
    from tutor_app.speech.audio_io import Capture
    from tutor_app.speech.playback import Player
    from tutor_app.tutor.call_end import CallEndJob
    from tutor_app.tutor.engine import Conversation, TutorEngine

log = logging.getLogger(__name__)


class CallController:
    def __init__(self, app: Any = None, *, engine: TutorEngine | None = None,
                 stt: SpeechToText | Callable[[], SpeechToText] | None = None, vad: VoiceActivity | None = None,
                 tts: TextToSpeech | Callable[[], TextToSpeech] | None = None, settings: Settings | None = None,
                 sd: Any = None, options: LoopOptions | None = None,
                 judge: TurnJudge | Literal[False] | None = None, greet: bool = False) -> None:
        """Services come from `app` (App) unless given; `stt`/`tts` may be zero-argument
        factories. `app` is the App (tutor_app/app.py, above this layer: untyped here).
        `sd` is the sounddevice module (a fake in tests); `options` LoopOptions;
        `judge` the end-of-turn judge (default: the app's, None when its model cannot load;
        False: none, the fixed-silence rule). `greet`: the tutor speaks first in every call
        this controller starts (the GUI's and `call --live`; call/opening.py) unless
        `start_call` says otherwise."""
        self._app = app
        self._engine = engine
        self._stt = stt
        self._vad = vad
        self._tts = tts
        self._settings = settings
        self._sd = sd
        self._options = options
        self._judge = judge
        self._greet = greet
        self.loop: CallLoop | None = None
        self.session: Conversation | None = None
        self.end_work: CallEndJob[None] | None = None  # join() it to wait for the report
        self._sink: ev.EventSink = ev.ignore
        self._lock = threading.Lock()
        self._lease: CallLease | None = None  # held from start until the call-end work is done
        # The engine the running call started on: its end goes to the same profile even if
        # the learner switched profiles meanwhile (the app's `engine` is then another one).
        self._call_engine: TutorEngine | None = None

    # -- services --------------------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        if self._settings is not None:
            return self._settings
        settings: Settings = self._app.settings if self._app else self.engine.settings
        return settings

    @property
    def engine(self) -> TutorEngine:
        engine: TutorEngine = self._engine or self._app.engine
        return engine

    def _vad_now(self) -> VoiceActivity:
        vad: VoiceActivity = self._vad if self._vad is not None else self._app.vad
        return vad

    # -- interface -------------------------------------------------------------------------
    def start_call(self, off_record: bool = False, sink: ev.EventSink = ev.ignore, text_only: bool = False,
                   greet: bool | None = None) -> str:
        """`text_only`: a typed chat for a learner who cannot talk now: the microphone is
        never opened, replies are shown, not spoken, and there is no spoken opening.
        `greet`: False for no spoken opening; None: the controller's default."""
        import time

        from tutor_app.call.loop import CallLoop
        from tutor_app.call.speaker import Speaker
        from tutor_app.call.tutor_turn import TurnControl
        from tutor_app.speech.sound_devices import NoDeviceError, load_sounddevice

        with self._lock:
            if self.loop is not None:
                raise RuntimeError("a call is already running: end it first")
            asked_at = time.perf_counter()  # the greeting's first_audio counts from here
            self._sink = sink
            self._call_engine = engine = self.engine
            self.session = session = engine.start_call(None, off_record=off_record)
            self._lease = None if off_record else CallLease(self.settings.paths.live_dir, session.session_id)
            problems: list[ev.Problem] = []
            sd = None
            try:
                if not text_only:
                    sd = self._sd or load_sounddevice()
            except NoDeviceError as exc:
                problems.append(ev.Problem("no-microphone", str(exc)))
            options, echo = self._loop_options(sd, problems, engine)
            capture: Capture | None = None
            player: Player | None = None
            if sd is not None:
                capture, problem = self._open_capture(sd, echo=echo)
                if problem:
                    problems.append(problem)
                player, problem = self._open_player(sd, far_tap=echo.tap if echo is not None else None)
                if problem:
                    problems.append(problem)
            loop_box: list[CallLoop] = []
            speaker = Speaker(self._tts_factory(), player, TurnControl(),
                              on_start=lambda turn, text, t: loop_box[0].on_sentence_started(turn, text, t),
                              on_problem=lambda kind, msg: loop_box[0].on_problem(kind, msg),
                              on_failure=lambda where, exc: loop_box[0].failed(where, exc))
            log.info("live call %s: %s mode, barge-in %s%s", session.session_id, options.echo.mode,
                     "on" if options.interruption.enabled else "off", ", text only" if text_only else "")
            self.loop = CallLoop(session, self._stt_factory(), self._vad_now() if capture else None,
                                 speaker, capture, self._emit, options,
                                 reopen_capture=(lambda: self._open_capture(sd, quiet=True, echo=echo)[0])
                                 if sd else None,
                                 judge=self._judge_now() if capture else None,
                                 greet=not text_only and (self._greet if greet is None else greet),
                                 started_at=asked_at, on_abort=lambda: self._aborted(loop_box[0]))
            loop_box.append(self.loop)
            for problem in problems:
                self._emit(problem)
            self.loop.start()
            return session.session_id

    def send_text(self, text: str) -> None:
        if self.loop is not None:
            self.loop.submit_text(text)

    def set_muted(self, muted: bool) -> None:
        if self.loop is not None:
            self.loop.set_muted(muted)

    def end_call(self) -> None:
        self._end(None)

    # -- internals -------------------------------------------------------------------------
    def _end(self, only: CallLoop | None) -> None:
        """End the running call (`only`: that one, if it is still the running one)."""
        with self._lock:
            loop = self.loop
            if loop is None or (only is not None and loop is not only):
                return
            self.loop = None
            loop.stop()  # the call's one ordered stop: threads, microphone, speaker, player
            session, engine = self.session, self._call_engine
            assert session is not None and engine is not None  # set together with the loop
            session.ended = True
            self._emit(ev.StateChanged(ev.ENDED))
            self._emit(ev.CallEnded(session.session_id))
            self.end_work = self._finish(session, loop, self._lease, engine)
            self._lease = None

    def _aborted(self, loop: CallLoop) -> None:
        """A thread of `loop` failed (CallAborted is out): the call ends as if the learner
        ended it, on a thread of its own (the failed one may be a thread stop() joins)."""
        def end() -> None:
            try:
                self._end(loop)
            except Exception:  # noqa: BLE001 - CallAborted is out already; the traceback goes to the log
                log.exception("ending the failed call failed")

        threading.Thread(target=end, name="call-aborted", daemon=True).start()

    def _emit(self, event: ev.CallEvent) -> None:
        try:
            self._sink(event)
        except Exception:  # noqa: BLE001
            log.exception("call event sink failed on %r", event)

    def _judge_now(self) -> TurnJudge | None:
        if self._judge is False:  # asked for none: the fixed-silence rule
            return None
        if self._judge is not None:
            return self._judge
        judge: TurnJudge | None = getattr(self._app, "end_of_turn", None) if self._app is not None else None
        return judge

    def _stt_factory(self) -> SpeechToText | Callable[[], SpeechToText]:
        return self._stt if self._stt is not None else (lambda: self._app.stt)

    def _tts_factory(self) -> TextToSpeech | Callable[[], TextToSpeech]:
        return self._tts if self._tts is not None else (lambda: self._app.tts)

    def _tts_now(self) -> TextToSpeech:
        tts = self._tts_factory()
        if callable(tts) and not hasattr(tts, "synthesize"):
            tts = tts()
            self._tts = tts
        return cast(TextToSpeech, tts)  # a factory was called above

    def _loop_options(self, sd: Any, problems: list[ev.Problem],
                      engine: TutorEngine) -> tuple[LoopOptions, EchoCanceller | None]:
        """(LoopOptions, EchoCanceller or None): the audio mode decides whether the echo
        canceller runs; when it cannot, the call falls back to gated mode and says so."""
        from tutor_app.call.options import LoopOptions
        from tutor_app.speech.aec import AecOptions, CancellerUnavailable, EchoCanceller
        from tutor_app.speech.echo import GATED, HEADSET, SPEAKER
        from tutor_app.speech.sound_devices import list_devices

        speech = self.settings.speech
        echo: EchoCanceller | None = None
        why_not = ""
        if speech.audio_mode not in (HEADSET, GATED) and sd is not None:
            try:
                echo = EchoCanceller.load(AecOptions())
            except CancellerUnavailable as exc:
                why_not = str(exc)
                log.warning("%s: falling back to gated audio", exc)
                problems.append(ev.Problem("echo", f"{exc}. The microphone is muted while the tutor speaks "
                                                   "(use a headset to talk over the tutor)."))
        if self._options is not None:
            options = self._options
        else:
            options = LoopOptions.from_settings(self.settings, list_devices(sd) if sd else [],
                                                canceller=echo is not None, why_not=why_not, engine=engine)
        return options, (echo if options.echo.mode == SPEAKER else None)

    def _open_capture(self, sd: Any, quiet: bool = False,
                      echo: EchoCanceller | None = None) -> tuple[Capture | None, ev.Problem | None]:
        from tutor_app.speech.audio_io import Capture
        from tutor_app.speech.sound_devices import NoDeviceError, resolve_device

        try:
            device = resolve_device(sd, self.settings.speech.input_device, "input")
            capture = Capture(sd, device, echo=echo)
            capture.start()
            return capture, None
        except NoDeviceError as exc:
            message = f"{exc}. You can still type your turns."
        except Exception as exc:  # noqa: BLE001 - PortAudio errors: unusable microphone
            message = f"cannot open the microphone ({exc}). You can still type your turns."
        if quiet:
            raise NoDeviceError(message)
        return None, ev.Problem("no-microphone", message)

    def _open_player(self, sd: Any, far_tap: FarEndTap | None = None) -> tuple[Player | None, ev.Problem | None]:
        from tutor_app.speech.playback import Player
        from tutor_app.speech.sound_devices import NoDeviceError, resolve_device

        try:
            device = resolve_device(sd, self.settings.speech.output_device, "output")
            player = Player(sd, device, int(self._tts_now().sample_rate), far_tap=far_tap)
            player.start()
            return player, None
        except NoDeviceError as exc:
            message = f"{exc}: replies are shown but not spoken"
        except Exception as exc:  # noqa: BLE001
            message = f"cannot play audio ({exc}): replies are shown but not spoken"
        return None, ev.Problem("no-speaker", message)

    def _finish(self, session: Conversation, loop: CallLoop, lease: CallLease | None,
                engine: TutorEngine) -> CallEndJob[None]:
        """Call-end work on the call-end runner (tutor/call_end.py); ReportReady always
        follows (a report from this call's turns alone when the full call-end work fails
        or is off the record)."""
        from tutor_app.tutor.call_end import submit
        from tutor_app.tutor.lifecycle import process_call
        from tutor_app.tutor.report import build_report

        sid = session.session_id
        ended_at = engine.services.clock()  # now, not when the runner gets to the job

        def work() -> None:
            report: dict[str, Any] | None = None
            pauses = list(loop.listener.pauses_ms)
            if not session.off_record:  # off the record: nothing stored or sent for extraction
                try:
                    outcome = process_call(engine, sid, session.turns, session.started_at, ended_at,
                                           pauses_ms=pauses)
                    report = outcome.report.to_dict() if outcome.report is not None else None
                except Exception as exc:  # noqa: BLE001 - retried at the next start (tutor/recovery.py)
                    log.exception("call-end work failed")
                    self._emit(ev.Problem("other", f"Saving what you said failed ({type(exc).__name__}); "
                                                   "it is retried next time."))
            if lease is not None:  # the call has its end time now: recovery needs no lease
                lease.release()
            if report is None:
                report = build_report(sid, session.started_at, ended_at, list(session.turns),
                                      pauses_ms=pauses).to_dict()
            self._emit(ev.ReportReady(sid, report))

        return submit(f"call-end-{sid}", work)
