"""Run blocking work (model loading, installs, store queries, audio tests) off the GUI
thread and get the result back on it.

`run_task(fn, on_done=..., on_error=..., on_progress=..., context=widget)` runs `fn`
on a plain thread pool. Results travel through one long-lived dispatcher QObject that
lives on the GUI thread, so callbacks always run there, and they are skipped when
`context` (the widget that asked) has been deleted meanwhile.

Why not QRunnable + a relay QObject per task: the worker thread would sometimes drop
the last reference to a Qt object, deleting it on the wrong thread (a crash). Here the
worker holds no Qt object at all, and the dispatcher keeps a short ring of finished
payloads so that objects reachable from them are released on the GUI thread.
"""
from __future__ import annotations

import itertools
import logging
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

log = logging.getLogger(__name__)

_DONE, _ERROR, _PROGRESS = "done", "error", "progress"
_ids = itertools.count(1)
_pool: ThreadPoolExecutor | None = None
_dispatcher: "_Dispatcher | None" = None


class _Dispatcher(QObject):
    deliver = Signal(object)  # (task id, kind, payload, keep-alive)

    def __init__(self) -> None:
        super().__init__()
        self.pending: dict[int, tuple] = {}
        self._recent: deque = deque(maxlen=64)  # released later, on this thread
        self.deliver.connect(self._deliver)

    @Slot(object)
    def _deliver(self, message: tuple) -> None:
        task_id, kind, payload, _keep = message
        self._recent.append(message)
        entry = self.pending.get(task_id) if kind == _PROGRESS else self.pending.pop(task_id, None)
        if entry is None:
            return
        on_done, on_error, on_progress, context = entry
        if context is not None and not _alive(context):
            return  # the widget that asked is gone
        if kind == _PROGRESS:
            if on_progress:
                on_progress(*payload)
        elif kind == _DONE:
            if on_done:
                on_done(payload)
        elif on_error:
            on_error(payload)
        else:
            log.warning("background task failed: %s", payload)


def _alive(obj: QObject) -> bool:
    import shiboken6

    return shiboken6.isValid(obj)


def _get_dispatcher() -> _Dispatcher:
    global _dispatcher
    if _dispatcher is None:
        _dispatcher = _Dispatcher()  # created by the first call, which is on the GUI thread
    return _dispatcher


def _get_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ui-worker")
    return _pool


def run_task(fn: Callable[..., Any], *, on_done: Callable[[Any], None] | None = None,
             on_error: Callable[[BaseException], None] | None = None,
             on_progress: Callable[[int, int, str], None] | None = None,
             context: QObject | None = None,
             executor: Callable[[Callable[[], None]], Any] | None = None) -> None:
    """Run `fn()` (or `fn(progress)` when on_progress is given) in the worker pool, or
    through `executor(callable)` (e.g. the call bridge's call setup thread)."""
    dispatcher = _get_dispatcher()
    task_id = next(_ids)
    dispatcher.pending[task_id] = (on_done, on_error, on_progress, context)
    with_progress = on_progress is not None
    emit = dispatcher.deliver.emit

    def job() -> None:
        try:
            if with_progress:
                result = fn(lambda d, t, w="": emit((task_id, _PROGRESS, (int(d), int(t), str(w)), None)))
            else:
                result = fn()
        except BaseException as exc:  # noqa: BLE001 - reported to the GUI, never lost
            log.debug("background task raised", exc_info=True)
            emit((task_id, _ERROR, exc, fn))
            return
        emit((task_id, _DONE, result, fn))

    if executor is not None:
        executor(job)
    else:
        _get_pool().submit(job)
