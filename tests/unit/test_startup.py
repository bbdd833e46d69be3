"""Startup as a Qt-free service: the model check, the warm-up steps, the live call's
warm-up, and the progress events the window shows."""
from __future__ import annotations

import ast
import logging
from types import SimpleNamespace

from tutor_app.errors import ModelMissingError
from tutor_app.startup import StartupProgress, WarmResult, run_startup, run_steps


def _status(name: str, role: str, usable: bool, default: bool = True):
    return SimpleNamespace(spec=SimpleNamespace(name=name, role=role, default=default), usable=usable)


class FakeRegistry:
    def __init__(self, *statuses) -> None:
        self._statuses = list(statuses)

    def statuses(self, verify: bool = True):
        assert verify is False  # startup never hashes every file
        return self._statuses


ALL_THERE = FakeRegistry(_status("whisper", "stt", True), _status("piper", "tts", True))


def test_progress_events_in_order():
    ran, events = [], []
    steps = [("voice", lambda: ran.append("voice")), ("memory", lambda: ran.append("memory"))]
    result = run_startup(lambda: ALL_THERE, steps, events.append,
                         backend_warm_up=lambda: ran.append("engine"))
    assert result == WarmResult()
    assert ran == ["voice", "memory", "engine"]
    assert events == [StartupProgress(0, 0, "checking models"), StartupProgress(0, 2, "loading voice"),
                      StartupProgress(1, 2, "loading memory"), StartupProgress(2, 2, "ready")]


def test_steps_may_come_from_a_callable():
    events = []
    result = run_startup(lambda: ALL_THERE, lambda: [("voice", lambda: None)], events.append)
    assert result == WarmResult() and events[-1] == StartupProgress(1, 1, "ready")


def test_missing_essential_model_returns_early():
    ran, events, asked = [], [], []
    registry = FakeRegistry(_status("whisper-small", "stt", False), _status("piper", "tts", True),
                            _status("emotion-x", "emotion", False))

    def steps():
        asked.append(1)
        return [("speech recognition", lambda: ran.append(1))]

    result = run_startup(lambda: registry, steps, events.append, backend_warm_up=lambda: ran.append(2))
    assert result.missing == ["speech recognition (whisper-small)"]
    assert result.optional_missing == ["emotion reader (emotion-x)"]
    assert ran == [] and asked == []  # warming up would only fail
    assert events == [StartupProgress(0, 0, "checking models")]  # no "ready"


def test_optional_missing_model_is_reported_and_steps_run():
    ran = []
    registry = FakeRegistry(_status("whisper", "stt", True), _status("piper", "tts", True),
                            _status("minilm", "embedder", False), _status("extra", "stt", False, default=False),
                            _status("odd", "custom-role", False))
    result = run_startup(lambda: registry, [("voice", lambda: ran.append("voice"))])
    assert result.missing == [] and result.problems == []
    assert result.optional_missing == ["memory search (minilm)", "custom-role (odd)"]  # non-defaults not listed
    assert ran == ["voice"]


def test_one_failing_step_is_a_problem_and_the_rest_run(caplog):
    ran, events = [], []

    def broken():
        raise ModelMissingError("the voice model is not installed")

    steps = [("speech recognition", lambda: ran.append("stt")), ("voice", broken),
             ("memory", lambda: ran.append("memory")), ("emotion reader", lambda: 1 / 0)]
    with caplog.at_level(logging.WARNING, logger="tutor_app.startup"):
        result = run_startup(lambda: ALL_THERE, steps, events.append)
    assert ran == ["stt", "memory"]
    assert result.problems == [("voice", "the voice model is not installed"),
                               ("emotion reader", "ZeroDivisionError: division by zero")]
    assert [r.getMessage() for r in caplog.records] == ["warm-up of voice failed", "warm-up of emotion reader failed"]
    assert all(r.exc_info for r in caplog.records)
    assert events[-1] == StartupProgress(4, 4, "ready")


def test_backend_warm_up_failure_is_the_call_engine():
    def engine():
        raise RuntimeError("live calls are not available in this build")

    events = []
    result = run_startup(lambda: ALL_THERE, [], events.append, backend_warm_up=engine)
    assert result.problems == [("live call", "RuntimeError: live calls are not available in this build")]
    assert events[-1] == StartupProgress(0, 0, "ready")


def test_registry_failure_is_a_models_problem_and_startup_goes_on():
    def registry():
        raise OSError("models folder unreadable")

    ran = []
    result = run_startup(registry, [("voice", lambda: ran.append(1))])
    assert result.problems == [("models", "OSError: models folder unreadable")] and ran == [1]


def test_run_steps_without_traceback_logs_one_line(caplog):
    with caplog.at_level(logging.WARNING, logger="tutor_app.startup"):
        failures = run_steps([("memory", lambda: 1 / 0), ("emotion", lambda: None)], traceback=False)
    assert [what for what, _ in failures] == ["memory"]
    assert [r.getMessage() for r in caplog.records] == ["loading/warming up memory failed: division by zero"]
    assert not caplog.records[0].exc_info


def test_startup_imports_no_qt():
    import tutor_app.startup as startup

    tree = ast.parse(open(startup.__file__, encoding="utf-8").read())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any(n.startswith(("PySide6", "tutor_app.ui")) for n in names), names
