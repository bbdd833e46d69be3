"""The live call's audio thread: microphone blocks into the Listener, and a microphone that
vanished (unplugged, a stalled stream) pauses the call until it is back. `self` in these
functions is the CallLoop whose audio thread this is."""
from __future__ import annotations

import logging
import time
from typing import Any

from tutor_app.call import events as ev

log = logging.getLogger(__name__)


def read_microphone(self: Any) -> None:
    """The audio thread: microphone blocks into the Listener until the call stops."""
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
            if _device_lost(self):
                if not _recover(self):
                    return  # the microphone is gone for good; typed turns go on
            continue
        self.listener.feed(item.samples, item.raw, item.far, item.broke)


def _device_lost(self: Any) -> bool:
    cap = self.capture
    if cap.finished.is_set() or not cap.active:
        return True
    stall = self.options.stall_s
    return bool(stall) and time.monotonic() - cap.last_block_at > stall

def _recover(self: Any) -> bool:
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
