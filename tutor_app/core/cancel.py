"""Cancellation for interruptible work: a token checked between chunks.

`Cancellable` is what a model stream or an install reads; `TurnHandle` is what a tutor
turn reads (a live call's `call.tutor_turn.TutorTurn`, or a plain `CancelToken` for a
turn that is the learner's from the start, as in `tutor-app chat`).
"""
from __future__ import annotations

import threading
from typing import Protocol, runtime_checkable


class Cancellable(Protocol):
    @property
    def cancelled(self) -> bool: ...


@runtime_checkable
class Waitable(Protocol):
    """A cancel signal a thread can block on (a live call's turn, a plain token)."""

    def wait(self, timeout: float | None = None) -> bool:
        """Until cancelled (True) or `timeout` (False)."""
        ...


class TurnHandle(Cancellable, Protocol):
    @property
    def committed(self) -> bool:
        """The turn is really the learner's (its words may be stored and shown)."""
        ...

    def wait_committed(self) -> bool:
        """Until committed (True) or retracted (False)."""
        ...


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

    # A plain token's turn is committed from the start.
    committed = True

    def wait_committed(self) -> bool:
        return True
