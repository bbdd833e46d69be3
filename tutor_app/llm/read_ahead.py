"""A local model reads the next prompt's start while the learner listens and answers.

A local model reads every token of a prompt before it writes the first token of the reply
(the bundled 135M model: ~14 ms a token on one thread of a slow 2-core laptop, so the ~60
tokens of a turn's history and line cost ~0.9 s of the learner's wait). Most of the next
prompt is known as soon as the tutor has answered: the persona and rules (kept by
llm/prefix_cache.py), the history window with this answer in it, the chat template's
opening of the learner's line. Only the line itself is not. `ReadAhead` reads that known
start in the idle seconds while the learner answers (the engine starts it once the reply
has played), so the turn reads only the line.

It never stands in a request's way: it reads a chunk of tokens at a time under the
model's lock, and a request (a turn, a second sample, the call-end extraction) asks for
the lock through `request()`, which ends the read ahead at its next chunk. Its thread runs
at a lower priority (Linux) so that the call's audio and the voice go first. A wrong guess
costs nothing but idle time: llama.cpp compares the tokens in its context with a request's
before it reuses any of them.
"""
from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)

NICE = 10  # the read ahead's thread: below the audio, speech recognition and voice threads


class ReadAhead:
    """The model's lock, shared between requests and one background read ahead at a time."""

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self._state = threading.Lock()  # guards the two counters below
        self._waiting = 0  # requests asking for the model
        self._generation = 0  # bumped by a request or a newer read ahead: the running one ends
        self._thread: threading.Thread | None = None

    @contextmanager
    def request(self) -> Iterator[None]:
        """Hold the model for a request; a read ahead stops at its next chunk and is not
        resumed (the request changes what the context holds)."""
        with self._state:
            self._waiting += 1
            self._generation += 1
        try:
            self._lock.acquire()
        finally:
            with self._state:
                self._waiting -= 1
        try:
            yield
        finally:
            self._lock.release()

    def start(self, step: Callable[[], bool]) -> None:
        """Call `step` under the model's lock, again and again, until it returns True (all
        read), it raises, a request comes or another read ahead starts."""
        with self._state:
            self._generation += 1
            generation = self._generation
        thread = threading.Thread(target=self._run, args=(step, generation), name="llm-read-ahead", daemon=True)
        self._thread = thread
        thread.start()

    def stop(self) -> None:
        """End a running read ahead at its next chunk (closing the model)."""
        with self._state:
            self._generation += 1

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the latest read ahead to end (tests, benches); True when it has."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _current(self, generation: int) -> bool:
        with self._state:
            return self._generation == generation and not self._waiting

    def _run(self, step: Callable[[], bool], generation: int) -> None:
        _lower_priority()
        while self._current(generation):
            with self._lock:
                if not self._current(generation):  # a request came while this thread waited
                    return
                try:
                    if step():
                        return
                except Exception as exc:  # noqa: BLE001 - an optimisation only: the request reads it all
                    log.warning("read ahead stopped (%s: %s)", type(exc).__name__, exc)
                    return


def _lower_priority() -> None:
    """This thread at NICE (Linux, where a thread's nice value is its own); elsewhere as it is."""
    if not sys.platform.startswith("linux"):
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
    except OSError:  # a sandbox that forbids it: run at the normal priority
        pass
