"""Python's cyclic garbage collector, kept off a live call's path.

A full (oldest-generation) collection scans every tracked object and holds the GIL while
it does: with a call's models loaded that is ~265k objects and 140-190 ms, stalling the
audio thread, the player's callback and Python's side of every decode alike. In the GUI,
whose collector runs on a timer (ui/gc_guard.py), one came about every two minutes of use.

`HeapFreeze` moves what exists once the call's models are warm into the collector's
permanent generation (`gc.freeze`: the models live as long as the call anyway), so later
collections scan only what the call itself makes; at the end of the call the objects go
back (`gc.unfreeze`) and whatever garbage was among them is collected as usual, off the
call's path. Freezing does not collect first: that would be the long pause itself, while
the greeting plays. Objects freed by reference counting are freed as always.
"""
from __future__ import annotations

import gc
import logging
import threading

log = logging.getLogger(__name__)


class HeapFreeze:
    """One per process (`HEAP`): `freeze()` by each live call once warm, `thaw()` at its
    end; the heap thaws when the last frozen call ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0

    @property
    def frozen(self) -> bool:
        return self._holders > 0

    def freeze(self) -> None:
        with self._lock:
            self._holders += 1
            gc.freeze()  # again for a second holder: what it loaded is frozen too
            log.debug("heap frozen for the call: %d objects out of the collector's way", gc.get_freeze_count())

    def thaw(self) -> None:
        with self._lock:
            if self._holders == 0:
                return
            self._holders -= 1
            if self._holders == 0:
                gc.unfreeze()


HEAP = HeapFreeze()
