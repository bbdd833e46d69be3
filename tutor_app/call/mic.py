"""The live call's audio thread: microphone blocks into the Listener, and a microphone that
vanished (unplugged, a stalled stream) pauses the call until it is back.

`MicrophoneLoop` owns the capture stream. Only its audio thread replaces the stream (a
microphone that came back); `close()`, the call's stop on another thread, takes the
stream under the same lock, so a stream is never closed while it is swapped in, and one
the audio thread opens after the stop is closed at once instead of left running.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from tutor_app.call import events as ev
from tutor_app.speech.audio_io import Woken

if TYPE_CHECKING:
    import numpy as np

    from tutor_app.call.options import LoopOptions
    from tutor_app.speech.audio_io import Capture, CaptureStats

log = logging.getLogger(__name__)


class MicListener(Protocol):
    """What the microphone feeds (call/listen/listener.py `Listener`)."""

    def feed(self, samples: np.ndarray, raw: np.ndarray | None = None, far: np.ndarray | None = None,
             broke: bool = False) -> None: ...
    def restart(self) -> None: ...
    def poll(self) -> None: ...

    wake: Callable[[], None]


class Behind:
    """How far the audio thread is behind the microphone: from a block's first sample at the
    converter to the block handled. Logged (DEBUG) when it passes BEHIND_S and when it has
    caught up again, with the most it was: everything the listener decides is that late
    for the learner, whatever the app's own stamps say."""

    BEHIND_S = 0.15

    def __init__(self) -> None:
        self.most_s = 0.0  # the most over the call
        self._episode = 0.0  # the most since it passed BEHIND_S (0: not behind)

    def block(self, captured_at: float | None, now: float | None = None) -> None:
        if captured_at is None:
            return
        lag = (time.perf_counter() if now is None else now) - captured_at
        self.most_s = max(self.most_s, lag)
        if lag >= self.BEHIND_S:
            if not self._episode:
                log.debug("the audio thread is %.0f ms behind the microphone", lag * 1000)
            self._episode = max(self._episode, lag)
        elif self._episode:
            log.debug("the audio thread caught up (it was up to %.0f ms behind)", self._episode * 1000)
            self._episode = 0.0


class MicrophoneLoop:
    def __init__(self, capture: Capture, listener: MicListener, options: LoopOptions, stop: threading.Event,
                 emit: Callable[[ev.CallEvent], None], state: Callable[[], str],
                 reopen: Callable[[], Capture | None] | None = None) -> None:
        """`capture`: the open stream, handed over (this loop closes it); `stop`: the call's
        stop flag; `state`: the call's state now (said again when the microphone is back);
        `reopen`: opens the microphone again, raising or None while it is still gone."""
        self._capture: Capture | None = capture
        self._lock = threading.Lock()  # the hand-over of `_capture` between the audio thread and close()
        self.closed = threading.Event()  # close() ran: no stream is open, none will be
        self.listener = listener
        # The listener's transcripts and verdicts wake this thread when they come in (the
        # stream now: the one reopened after a lost microphone too).
        listener.wake = self._wake
        self.options = options
        self._stop = stop
        self._emit = emit
        self._state = state
        self._reopen = reopen
        self.paused = False  # the microphone is gone: state changes wait until it is back
        self._behind = Behind()

    def _wake(self) -> None:
        capture = self.capture
        if capture is not None:
            capture.wake()

    @property
    def capture(self) -> Capture | None:
        """The stream now (None while the microphone is gone or after close)."""
        with self._lock:
            return self._capture

    @property
    def stats(self) -> CaptureStats | None:
        capture = self.capture
        return capture.stats if capture is not None else None

    def close(self) -> None:
        """Any thread: the stream closes now; one opened later closes at once. Idempotent."""
        with self._lock:
            capture, self._capture = self._capture, None
            self.closed.set()
        if capture is not None:
            capture.stop()

    def run(self) -> None:
        """The audio thread: microphone blocks into the Listener until the call stops, or
        the microphone is gone for good (typed turns go on)."""
        self.listener.restart()
        lost = (0, 0)
        while not self._stop.is_set():
            capture = self.capture
            if capture is None:
                return  # closed: the call is stopping
            stats = capture.stats
            if (stats.overflows, stats.dropped) != lost:
                # Under load the device or our queue ran over: audio was lost, say so once per burst.
                log.warning("microphone input lost: %d overflow(s), %d block(s) dropped so far",
                            stats.overflows, stats.dropped)
                lost = (stats.overflows, stats.dropped)
            item = capture.read(timeout=0.1)
            if item is None:
                if self._device_lost(capture) and not self._recover(capture):
                    return
                continue
            if isinstance(item, Woken):
                self.listener.poll()  # a transcript or verdict came in between blocks
                continue
            self.listener.feed(item.samples, item.raw, item.far, item.broke)
            self._behind.block(item.captured_at)

    def _device_lost(self, capture: Capture) -> bool:
        if capture.finished.is_set() or not capture.active:
            return True
        stall = self.options.stall_s
        return stall is not None and stall > 0 and time.monotonic() - capture.last_block_at > stall

    def _swap(self, new: Capture | None) -> bool:
        """Hand `new` in for the stream now; False (and `new` closed at once) when close()
        ran first: the call is stopping and took the stream itself."""
        with self._lock:
            swapped = not self.closed.is_set()
            if swapped:
                self._capture = new
        if not swapped and new is not None:
            new.stop()
        return swapped

    def _recover(self, lost: Capture) -> bool:
        """Pause, then try the microphone again until it is back (True) or we give up."""
        self.paused = True
        self._emit(ev.Problem("device-lost", "The microphone was disconnected: the call is paused "
                                             "until it is back (you can still type)."))
        self._emit(ev.StateChanged(ev.PAUSED))
        if not self._swap(None):
            return False  # close() took the lost stream and closed it
        lost.stop()
        started = time.monotonic()
        while not self._stop.wait(self.options.reopen_every_s):
            try:
                capture = self._reopen() if self._reopen else None
            except Exception as exc:  # noqa: BLE001 - still gone: try again later
                log.debug("microphone not back yet: %s", exc)
                capture = None
            if capture is not None:
                if not self._swap(capture):
                    return False  # the call stopped while it was opening: closed at once
                self.listener.restart()
                self.paused = False
                log.info("microphone back: the call resumes")
                self._emit(ev.StateChanged(self._state()))
                return True
            if time.monotonic() - started > self.options.give_up_s:
                break
        if not self._stop.is_set():
            self._emit(ev.Problem("device-lost", "The microphone did not come back: end the call or "
                                                 "type your turns.", fatal=True))
        return False
