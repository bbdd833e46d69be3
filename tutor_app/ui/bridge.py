"""The only door between the widgets and the live call.

`CallBridge` wraps a plain-Python *call backend* (the real one is
`tutor_app.call.controller.CallController`) with this duck-typed interface:

    start_call(off_record: bool, sink: Callable[[CallEvent], None],
               text_only: bool = False, greet: bool | None = None) -> str
        # session id; text_only: no microphone, no voice; greet=False: no spoken opening
    send_text(text: str) -> None        # a typed turn
    set_muted(muted: bool) -> None
    end_call() -> None                  # then CallEnded, later ReportReady (background)

Events reach `sink` on the call's threads; the bridge re-emits each one as Qt signals that
are delivered on the GUI thread (queued), so widgets never touch the call's threads.

The backend's methods may block (building it, warming models up, opening the
microphone), so the bridge never calls them on the GUI thread: building, warm-up and
`start_call` run in order on one "call setup" thread (a call started during warm-up
simply waits for it); `send_text` runs on its own thread (a typed turn may block until
the reply is done); `set_muted` / `end_call` on a third, so ending is never stuck behind
a turn. Requests made while the call is still starting are held until it has started.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, cast

from PySide6.QtCore import QObject, Qt, Signal, Slot

from tutor_app.call import events as ev

log = logging.getLogger(__name__)


class CallBackend(Protocol):
    def start_call(self, off_record: bool, sink: ev.EventSink, text_only: bool = False,
                   greet: bool | None = None) -> str: ...
    def send_text(self, text: str) -> None: ...
    def set_muted(self, muted: bool) -> None: ...
    def end_call(self) -> None: ...


class CallBridge(QObject):
    # Every event, in arrival order, on the GUI thread.
    callEvent = Signal(object)  # not "event": that would hide QObject.event()
    # The same events, typed, for widgets that want only one kind.
    stateChanged = Signal(str)
    micLevel = Signal(float)
    speechStarted = Signal()
    userUtterance = Signal(object)  # ev.UserUtterance
    emotionRead = Signal(str, float)
    tutorSentence = Signal(str)
    tutorTurnDone = Signal(object)  # ev.TutorTurnDone
    problem = Signal(object)  # ev.Problem
    callAborted = Signal(object)  # ev.CallAborted: a bug ended the call (CallEnded follows)
    callEnded = Signal(str)
    reportReady = Signal(str, object)  # session id, report dict
    # Lifecycle of our own requests.
    callStarted = Signal(str)  # session id
    callFailed = Signal(str)  # start_call raised: one line

    _incoming = Signal(object)  # emitted on the call's threads only

    def __init__(self, backend: CallBackend | None = None, parent: QObject | None = None,
                 factory: Callable[[], CallBackend] | None = None, tutor: Callable[[], Any] | None = None) -> None:
        super().__init__(parent)
        self._backend = backend
        self._factory = factory  # builds the backend lazily on the setup thread
        self._tutor = tutor  # -> llm.active.ActiveTutor: which tutor model answers
        self._closed = False
        self._started = False
        self._held: list[tuple[str, tuple]] = []  # control requests made while starting
        self.session_id: str | None = None
        self.in_call = False
        self._setup = ThreadPoolExecutor(max_workers=1, thread_name_prefix="call-setup")
        self._text = ThreadPoolExecutor(max_workers=1, thread_name_prefix="call-text")
        self._control = ThreadPoolExecutor(max_workers=1, thread_name_prefix="call-control")
        # Queued: the slot runs on this object's (the GUI) thread whatever thread emits.
        self._incoming.connect(self._dispatch, Qt.ConnectionType.QueuedConnection)

    @property
    def available(self) -> bool:
        return self._backend is not None or self._factory is not None

    def backend(self) -> CallBackend:
        """The backend, built on first use. Call only on the setup thread (run_setup)."""
        if self._backend is None:
            if self._factory is None:
                raise RuntimeError(self.tr("live calls are not available in this build"))
            self._backend = self._factory()
        return self._backend

    @property
    def closed(self) -> bool:
        return self._closed

    def tutor(self) -> Any | None:
        """Which tutor model answers (llm/active.ActiveTutor: kind, label, detail), read
        from the settings (nothing loads); None when the app did not say."""
        if self._tutor is None:
            return None
        try:
            return self._tutor()
        except Exception:  # noqa: BLE001 - a label must not break the call screen
            log.warning("which tutor answers: unknown", exc_info=True)
            return None

    def run_setup(self, fn: Callable[[], Any]) -> Future | None:
        """Run `fn` on the call setup thread, in order with start_call (warm-up)."""
        if self._closed:
            return None
        return self._setup.submit(fn)

    # -- requests (GUI thread) -------------------------------------------------------
    def start_call(self, off_record: bool = False, text_only: bool = False, greet: bool = True) -> None:
        """`text_only`: a typed chat; the microphone is never opened (nor the voice).
        `greet`: the tutor speaks first (never in a text chat)."""
        if not self.available:
            self.callFailed.emit(self.tr("live calls are not available in this build"))
            return
        if self.in_call:
            return
        self.in_call = True
        self._started = False

        def start() -> None:
            try:
                sid = self.backend().start_call(bool(off_record), self.sink, text_only=bool(text_only),
                                                greet=bool(greet) and not text_only)
            except Exception as exc:  # noqa: BLE001 - shown as one line, the app goes on
                log.warning("start_call failed", exc_info=True)
                self._incoming.emit(_StartFailed(_one_line(exc)))
                return
            self._incoming.emit(_Started(str(sid)))

        self._submit(self._setup, start)

    def send_text(self, text: str) -> None:
        text = text.strip()
        if text and self.in_call:
            self._request("send_text", text)

    def set_muted(self, muted: bool) -> None:
        if self.in_call:
            self._request("set_muted", bool(muted))

    def end_call(self) -> None:
        if self.in_call:
            self._request("end_call")

    def sink(self, event: Any) -> None:
        """The EventSink given to the backend: safe to call from any thread."""
        if not self._closed:
            try:
                self._incoming.emit(event)
            except RuntimeError:  # the Qt side is already gone (app quitting)
                self._closed = True

    def close(self) -> None:
        """Stop delivering events (window closing); ends a running call first."""
        if self._closed:
            return
        self._closed = True  # first: nothing reaches the widgets from here on
        if self.in_call and self._started:
            backend = cast(CallBackend, self._backend)  # started: the backend exists
            self._control.submit(lambda: _quietly(backend.end_call))
        elif self.in_call:  # still starting: end it right after it has started (same thread)
            self._setup.submit(lambda: _quietly(lambda: self.backend().end_call()))
        for pool in (self._setup, self._text, self._control):
            pool.shutdown(wait=False, cancel_futures=False)

    # -- internals --------------------------------------------------------------------
    def _submit(self, pool: ThreadPoolExecutor, fn) -> None:
        if not self._closed:
            pool.submit(fn)

    def _request(self, name: str, *args: Any) -> None:
        if self._started:
            self._call(name, *args)
        else:
            self._held.append((name, args))

    def _call(self, name: str, *args: Any) -> None:
        backend = self._backend
        pool = self._text if name == "send_text" else self._control

        def run() -> None:
            try:
                getattr(backend, name)(*args)
            except Exception as exc:  # noqa: BLE001
                log.warning("%s failed", name, exc_info=True)
                self._incoming.emit(ev.Problem("other", _one_line(exc)))

        self._submit(pool, run)

    @Slot(object)
    def _dispatch(self, event: Any) -> None:
        if self._closed:
            return  # queued before close(): the widgets may be gone
        if isinstance(event, _Started):
            self.session_id = event.session_id
            self._started = True
            self.callStarted.emit(event.session_id)
            held, self._held = self._held, []
            for name, args in held:
                self._call(name, *args)
            return
        if isinstance(event, _StartFailed):
            self.in_call = self._started = False
            self._held.clear()
            self.callFailed.emit(event.message)
            return
        self.callEvent.emit(event)
        if isinstance(event, ev.StateChanged):
            self.stateChanged.emit(event.state)
        elif isinstance(event, ev.MicLevel):
            self.micLevel.emit(float(event.rms))
        elif isinstance(event, ev.SpeechStarted):
            self.speechStarted.emit()
        elif isinstance(event, ev.UserUtterance):
            self.userUtterance.emit(event)
        elif isinstance(event, ev.EmotionRead):
            self.emotionRead.emit(event.label, float(event.score))
        elif isinstance(event, ev.TutorSentence):
            self.tutorSentence.emit(event.text)
        elif isinstance(event, ev.TutorTurnDone):
            self.tutorTurnDone.emit(event)
        elif isinstance(event, ev.Problem):
            # Even a fatal problem (the microphone gone for good) leaves the call to be
            # ended: its end-of-call work and report follow as after any call.
            self.problem.emit(event)
        elif isinstance(event, ev.CallAborted):
            self.callAborted.emit(event)
        elif isinstance(event, ev.CallEnded):
            self.in_call = self._started = False
            self.callEnded.emit(event.session_id)
        elif isinstance(event, ev.ReportReady):
            self.reportReady.emit(event.session_id, dict(event.report))


@dataclass(frozen=True)
class _Started:
    session_id: str


@dataclass(frozen=True)
class _StartFailed:
    message: str


def _quietly(fn: Callable[[], Any]) -> None:
    try:
        fn()
    except Exception:  # noqa: BLE001 - closing: nobody left to tell
        log.warning("ending the call on close failed", exc_info=True)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text
