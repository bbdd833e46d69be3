"""core/heap.py: the objects a call starts with are out of the cyclic collector's way while
it runs, and back once the last call holding them ends (and garbage among them is then
collected as usual). The call loop freezes once its models are warm and thaws at its stop."""
from __future__ import annotations

import gc
import weakref

from tests.unit.test_call_threads import _end, _start
from tutor_app.core.heap import HEAP, HeapFreeze


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_frozen_objects_are_not_scanned_until_the_last_holder_thaws():
    heap = HeapFreeze()
    cycle = _Cycle()
    gone = weakref.ref(cycle)
    heap.freeze()
    heap.freeze()  # a second holder
    try:
        del cycle
        gc.collect()
        assert gone() is not None  # frozen: garbage or not, the collector does not look at it
        assert gc.get_freeze_count() > 0
        heap.thaw()
        assert heap.frozen and gc.get_freeze_count() > 0
    finally:
        heap.thaw()
    assert not heap.frozen and gc.get_freeze_count() == 0
    gc.collect()
    assert gone() is None  # thawed: collected as usual
    heap.thaw()  # one thaw too many changes nothing
    assert gc.get_freeze_count() == 0


def test_a_call_holds_the_heap_frozen_from_ready_to_its_stop():
    ctl, _rec, _sd = _start()
    try:
        assert ctl.loop.ready.wait(10)
        assert HEAP.frozen and gc.get_freeze_count() > 0
    finally:
        _end(ctl)
    assert not HEAP.frozen and gc.get_freeze_count() == 0
