"""The read ahead gives the model up to a request at its next chunk (llm/read_ahead.py).
Made deterministic with a lock that says when someone asks for it, and steps that wait on
events: no sleeps, no timing."""
from __future__ import annotations

import threading

from tutor_app.llm.read_ahead import ReadAhead


class TellingLock:
    """A lock that sets `asked` when a thread starts to acquire it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.asked = threading.Event()
        self.held_by_step = threading.Event()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if threading.current_thread().name != "llm-read-ahead":
            self.asked.set()
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()

    __enter__ = acquire

    def __exit__(self, *exc: object) -> None:
        self.release()


def test_a_request_ends_the_read_ahead_at_its_next_chunk():
    lock = TellingLock()
    ahead = ReadAhead(lock)  # type: ignore[arg-type]  # any lock-like object
    steps: list[int] = []
    inside = threading.Event()

    def step() -> bool:
        steps.append(len(steps))
        inside.set()
        assert lock.asked.wait(10)  # a request is waiting for the model
        return False  # more to read: only the request stops it

    ahead.start(step)
    assert inside.wait(10)
    with ahead.request():
        held = True  # the request has the model
    assert held and ahead.join(10)
    assert steps == [0]  # not one chunk more after the request asked


def test_a_read_ahead_runs_until_its_step_says_all_is_read():
    ahead = ReadAhead(threading.Lock())
    left = [3]

    def step() -> bool:
        left[0] -= 1
        return left[0] == 0

    ahead.start(step)
    assert ahead.join(10) and left == [0]


def test_a_newer_read_ahead_or_closing_ends_the_running_one():
    ahead = ReadAhead(threading.Lock())
    release, inside = threading.Event(), threading.Event()
    old: list[int] = []

    def old_step() -> bool:
        old.append(1)
        inside.set()
        assert release.wait(10)
        return False

    ahead.start(old_step)
    first = ahead._thread
    assert inside.wait(10)
    ahead.stop()  # the model closes
    release.set()
    assert first is not None
    first.join(10)
    assert not first.is_alive() and old == [1]
    new: list[int] = []
    ahead.start(lambda: new.append(1) or True)
    assert ahead.join(10) and new == [1]


def test_a_failing_step_ends_the_read_ahead_and_leaves_the_model_free():
    lock = threading.Lock()
    ahead = ReadAhead(lock)

    def step() -> bool:
        raise RuntimeError("llama.cpp refused")

    ahead.start(step)
    assert ahead.join(10)
    assert lock.acquire(blocking=False)  # released after the failure
    lock.release()
