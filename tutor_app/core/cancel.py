"""Cancellation for interruptible work (barge-in): a token checked between chunks."""
from __future__ import annotations

import threading


class CancelToken:
    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._event.wait(timeout)


class TurnCounter:
    """Monotonic turn generation: work tagged with an older generation is stale."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = 0
        self._token = CancelToken()

    def next_turn(self) -> tuple[int, CancelToken]:
        with self._lock:
            self._token.cancel()
            self._generation += 1
            self._token = CancelToken()
            return self._generation, self._token

    def is_current(self, generation: int) -> bool:
        with self._lock:
            return generation == self._generation
