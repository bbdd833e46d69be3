"""A first-token deadline for a streamed reply: a voice turn cannot wait out an HTTP
client's batch-job timeouts (a stalled server sending no headers cost 3 x 30 s).

`within_deadline(start, seconds, cancel)` runs the stream `start(token)` on a helper
thread and yields its deltas; when nothing has arrived after `seconds` it raises
`LLMUnavailableError` at once and tells the abandoned stream to stop (through the token
it was given, checked between events; a request still waiting for headers ends at its
own, shorter stream timeout and its answer is dropped). A turn cancelled while it waits
(barge-in, or a speculative turn the learner talked on through) ends the wait at once,
with no deltas: the caller's next turn does not wait out the budget, and a cancelled
turn is no failure (no fallback, no warning).
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

from tutor_app.core.cancel import Cancellable, Waitable
from tutor_app.llm.errors import LLMUnavailableError

_DELTA, _END, _ERROR = "delta", "end", "error"


class _Abandonable:
    """The token the pumped stream sees: cancelled by the caller's token or by abandon."""

    def __init__(self, outer: Cancellable | None) -> None:
        self._outer = outer
        self.abandoned = threading.Event()

    @property
    def cancelled(self) -> bool:
        return self.abandoned.is_set() or bool(self._outer is not None and self._outer.cancelled)


def within_deadline(start: Callable[[Cancellable], Iterator[str]], seconds: float, cancel: Cancellable | None = None,
                    name: str = "the tutor model") -> Iterator[str]:
    token = _Abandonable(cancel)
    items: queue.Queue[tuple[str, Any]] = queue.Queue()

    def pump() -> None:
        try:
            for delta in start(token):
                items.put((_DELTA, delta))
                if token.abandoned.is_set():
                    return
            items.put((_END, None))
        except BaseException as exc:  # noqa: BLE001 - handed to the consuming thread
            items.put((_ERROR, exc))

    threading.Thread(target=pump, name="llm-stream", daemon=True).start()
    if isinstance(cancel, Waitable):
        threading.Thread(target=_end_on_cancel, args=(cancel, seconds, items), name="llm-cancel", daemon=True).start()
    waiting_first = True
    try:
        while True:
            try:
                kind, value = items.get(timeout=seconds if waiting_first else None)
            except queue.Empty:
                raise LLMUnavailableError(f"no answer from {name} within {seconds:g} s") from None
            if kind == _END:
                return
            if kind == _ERROR:
                raise value
            waiting_first = False
            yield value
    finally:
        token.abandoned.set()  # a consumer that stops early (or gave up) stops the stream too


def _end_on_cancel(cancel: Waitable, seconds: float, items: "queue.Queue[tuple[str, Any]]") -> None:
    """Ends the wait for the first token when the turn is cancelled; lives at most the
    budget (after the first token the engine reads the cancel between deltas)."""
    if cancel.wait(seconds):
        items.put((_END, None))
