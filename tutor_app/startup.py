"""Startup as a service: check the models, warm up every part, warm up the live call,
and say how far it got through `progress(StartupProgress)` events. No Qt: the main
window runs `run_startup` on the call setup thread and only shows the events and
the `WarmResult`.

`run_steps` is the one "run each part's warm-up, log a failure and go on" loop; a live
call's own warm-up (call/warmup.py) uses it too.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tutor_app.errors import error_text

log = logging.getLogger(__name__)

ROLE_NAMES = {"stt": "speech recognition", "tts": "voice", "embedder": "memory search",
              "emotion": "emotion reader", "llm-local": "offline tutor model", "vad": "voice detection",
              "turn": "end-of-turn model"}
ESSENTIAL_ROLES = ("stt", "tts")  # without these there is no spoken call at all

WarmStep = tuple[str, Callable[[], Any]]  # (what, for the learner; the blocking work)


@dataclass
class WarmResult:
    missing: list[str] = field(default_factory=list)  # essential default models not usable: "role (name)"
    optional_missing: list[str] = field(default_factory=list)  # the call works without them
    problems: list[tuple[str, str]] = field(default_factory=list)  # (part, one line)


@dataclass(frozen=True)
class StartupProgress:
    done: int  # steps finished
    total: int  # all steps (0: not known yet)
    what: str  # "checking models", "loading voice", ..., "ready"


def run_startup(registry: Callable[[], Any],
                steps: Callable[[], Iterable[WarmStep]] | Iterable[WarmStep],
                progress: Callable[[StartupProgress], None] = lambda p: None,
                backend_warm_up: Callable[[], Any] | None = None) -> WarmResult:
    """The whole startup, blocking (run it off the GUI thread).

    `registry()`: the model registry (`statuses(verify=False)`); `steps`: the warm-up
    steps, or a callable giving them (called only once the essential models are there);
    `backend_warm_up`: warms the live call up, last (None: no engine in this build).
    A missing essential model returns at once: warming up would only fail. One broken
    part never stops the others; each becomes a `(part, one line)` problem.
    """
    result = WarmResult()
    progress(StartupProgress(0, 0, "checking models"))
    try:
        for s in registry().statuses(verify=False):
            if s.spec.default and not s.usable:
                what = f"{ROLE_NAMES.get(s.spec.role, s.spec.role)} ({s.spec.name})"
                if s.spec.role in ESSENTIAL_ROLES:
                    result.missing.append(what)
                else:
                    result.optional_missing.append(what)
    except Exception as exc:  # noqa: BLE001
        result.problems.append(("models", error_text(exc)))
    if result.missing:
        return result  # warming up would only fail: say what to install instead
    todo = list(steps() if callable(steps) else steps)
    failures = run_steps(todo, lambda i, what: progress(StartupProgress(i, len(todo), f"loading {what}")))
    result.problems.extend((what, error_text(exc)) for what, exc in failures)
    if backend_warm_up is not None:
        try:
            backend_warm_up()
        except Exception as exc:  # noqa: BLE001
            result.problems.append(("live call", error_text(exc)))
    progress(StartupProgress(len(todo), len(todo), "ready"))
    return result


def run_steps(steps: Sequence[WarmStep], on_start: Callable[[int, str], None] | None = None, *,
              traceback: bool = True) -> list[tuple[str, Exception]]:
    """Run each `(what, fn)` in order; a failure is logged (with its traceback unless
    `traceback=False`) and returned, and the rest still run."""
    failures: list[tuple[str, Exception]] = []
    for i, (what, fn) in enumerate(steps):
        if on_start is not None:
            on_start(i, what)
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - one broken part must not stop the rest
            if traceback:
                log.warning("warm-up of %s failed", what, exc_info=True)
            else:
                log.warning("loading/warming up %s failed: %s", what, exc)
            failures.append((what, exc))
    return failures


def warm_service(service: Any) -> Any:
    """Call the service's `warm_up()` if it has one; the service itself back."""
    warm = getattr(service, "warm_up", None)
    if callable(warm):
        warm()
    return service
