"""Run blocking work (model loading, installs, store queries, audio tests) off the GUI
thread and get the result back on it.

`run_task(fn, on_done=..., on_error=..., on_progress=...)` runs `fn` on the global
QThreadPool. Results come back through a relay QObject that lives on the GUI thread, so
callbacks always run there (Qt queues signals whose receiver lives in another thread).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

log = logging.getLogger(__name__)

_alive: set["_Relay"] = set()  # keeps relays alive until their task finished


class _Relay(QObject):
    done = Signal(object)
    failed = Signal(object)
    progress = Signal(int, int, str)

    def __init__(self, on_done, on_error, on_progress) -> None:
        super().__init__()
        self._on_done, self._on_error, self._on_progress = on_done, on_error, on_progress
        self.done.connect(self._done)
        self.failed.connect(self._failed)
        self.progress.connect(self._progress)

    @Slot(object)
    def _done(self, result: Any) -> None:
        _alive.discard(self)
        if self._on_done:
            self._on_done(result)

    @Slot(object)
    def _failed(self, exc: BaseException) -> None:
        _alive.discard(self)
        if self._on_error:
            self._on_error(exc)
        else:
            log.warning("background task failed: %s", exc)

    @Slot(int, int, str)
    def _progress(self, done: int, total: int, what: str) -> None:
        if self._on_progress:
            self._on_progress(done, total, what)


class _Task(QRunnable):
    def __init__(self, fn: Callable[..., Any], relay: _Relay, with_progress: bool) -> None:
        super().__init__()
        self._fn, self._relay, self._with_progress = fn, relay, with_progress

    def run(self) -> None:
        try:
            if self._with_progress:
                result = self._fn(lambda d, t, w="": self._relay.progress.emit(int(d), int(t), str(w)))
            else:
                result = self._fn()
        except BaseException as exc:  # noqa: BLE001 - reported to the GUI, never lost
            log.debug("background task raised", exc_info=True)
            self._relay.failed.emit(exc)
            return
        self._relay.done.emit(result)


def run_task(fn: Callable[..., Any], *, on_done: Callable[[Any], None] | None = None,
             on_error: Callable[[BaseException], None] | None = None,
             on_progress: Callable[[int, int, str], None] | None = None,
             pool: QThreadPool | None = None, executor: Callable[[Callable[[], None]], Any] | None = None) -> None:
    """Run `fn()` (or `fn(progress)` when on_progress is given) in the thread pool, or
    through `executor(callable)` (e.g. the call bridge's engine setup thread)."""
    relay = _Relay(on_done, on_error, on_progress)
    _alive.add(relay)
    task = _Task(fn, relay, on_progress is not None)
    if executor is not None:
        task.setAutoDelete(False)
        executor(lambda: _run_keep(task))
    else:
        (pool or QThreadPool.globalInstance()).start(task)


def _run_keep(task: "_Task") -> None:
    task.run()


def error_text(exc: BaseException) -> str:
    """One line for the learner: the message of our own errors, the type otherwise."""
    from tutor_app.errors import TutorError

    if isinstance(exc, TutorError):
        return str(exc)
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
