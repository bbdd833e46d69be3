"""The one background runner of call-end work. A live call's end (`CallController`), a
`Conversation.end()` and the recovery at start (tutor/recovery.py) submit jobs here; each
job runs the synchronous `lifecycle.process_call`, one at a time, in the order submitted.
`end-call` runs `process_call` on its own thread: the synchronous path.

One worker thread drains the queue. It is not a daemon: the process does not exit in the
middle of an extraction (it would only be redone at the next start). It ends when the
queue is empty, since an idle non-daemon thread would keep the process from ever exiting;
the next job starts a new one.

A job must never wait on another job of the same runner: that would wait forever."""
from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import Any, Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class CallEndJob(Generic[T]):
    """A submitted job. `join(timeout)` waits like the thread each job once had; then
    `result` holds what the work returned, or `error` why it failed (already logged)."""

    def __init__(self, name: str, work: Callable[[], T]) -> None:
        self.name = name
        self._work = work
        self._done = threading.Event()
        self.result: T | None = None
        self.error: BaseException | None = None

    def join(self, timeout: float | None = None) -> None:
        self._done.wait(timeout)

    def done(self) -> bool:
        return self._done.is_set()

    def _run(self) -> None:
        worker = threading.current_thread()
        runner_name, worker.name = worker.name, self.name  # the log lines name the call
        try:
            self.result = self._work()
        except BaseException as exc:  # noqa: BLE001 - one failed call end must not stop the runner
            self.error = exc
            log.exception("%s failed (retried at the next start)", self.name)
        finally:
            worker.name = runner_name
            self._done.set()


class CallEndRunner:
    """A queue and at most one worker thread running its jobs."""

    def __init__(self, name: str = "call-end") -> None:
        self.name = name
        self._jobs: deque[CallEndJob[Any]] = deque()
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None

    def submit(self, name: str, work: Callable[[], T]) -> CallEndJob[T]:
        job = CallEndJob(name, work)
        with self._lock:
            self._jobs.append(job)
            if self._worker is None:
                self._worker = threading.Thread(target=self._drain, name=self.name, daemon=False)
                self._worker.start()
        return job

    def _drain(self) -> None:
        while True:
            with self._lock:  # the same lock as submit: a job is never left without a worker
                if not self._jobs:
                    self._worker = None
                    return
                job = self._jobs.popleft()
            job._run()


_RUNNER = CallEndRunner()


def submit(name: str, work: Callable[[], T]) -> CallEndJob[T]:
    """Queue `work` on the process's call-end runner."""
    return _RUNNER.submit(name, work)
