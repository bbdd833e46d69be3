"""Helpers shared by the benchmarks."""
from __future__ import annotations

import os
import statistics
import sys

# A typical tutor reply (41 words, 4 sentences; the fake streams one word per token),
# shared by the tutor and call benchmarks so their numbers compare.
TYPICAL_REPLY = ("That sounds really interesting. Could you tell me a little more about it? "
                 "For example, what did you enjoy most, and was anything difficult for you? "
                 "Take your time, and try to answer in full sentences, because that is great practice.")


def fake_server_module():
    """The project's fake Anthropic server (tests/fakes), for benchmarks with a fixed
    LLM timing. Only in a source checkout."""
    from tutor_app.errors import TutorError
    from tutor_app.paths import source_root

    root = source_root()
    if not (root / "tests" / "fakes" / "anthropic_server.py").is_file():
        raise TutorError("this benchmark needs the fake Anthropic server from a source checkout "
                         f"(tests/fakes/ not found under {root})")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from tests.fakes import anthropic_server

    return anthropic_server


def percentile(values: list[float], pct: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def p50(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def machine_line() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"machine: {os.cpu_count()} CPU cores, load average {load:.2f} (other work slows every number)"


class EventLog:
    """Call events as they come, waited on without polling."""

    def __init__(self) -> None:
        import threading

        self.events: list = []
        self._cond = threading.Condition()

    def __call__(self, event) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def of(self, kind) -> list:
        with self._cond:
            return [e for e in self.events if isinstance(e, kind)]

    def wait(self, predicate, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(predicate, timeout)

    def wait_answered(self, timeout: float) -> bool:
        """Until every learner turn with words has had its tutor turn done."""
        from tutor_app.call import events as ev

        return self.wait(lambda: len(self.of(ev.TutorTurnDone)) >= len([u for u in self.of(ev.UserUtterance) if u.text]),
                         timeout)

    def wait_kind(self, kind, count: int, timeout: float) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: sum(isinstance(e, kind) for e in self.events) >= count, timeout):
                raise TimeoutError(f"bench: no {count} x {kind.__name__} within {timeout:.0f} s")
