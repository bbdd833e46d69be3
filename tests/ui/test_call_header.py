"""The call screen's header says which tutor answers (cloud model or offline tutor, with
a way to the Models page) and whether the microphone hears; a call started by typing
asks for no spoken greeting."""
from __future__ import annotations

import pytest

from tutor_app.call import events as ev
from tutor_app.llm.active import active_tutor
from tutor_app.paths import AppPaths
from tutor_app.settings import Settings
from tutor_app.ui.bridge import CallBridge
from tutor_app.ui.call_view import IDLE, IN_CALL, CallView

_bridges: list[CallBridge] = []
_closed: list[CallBridge] = []  # kept alive: events already queued may still be delivered


@pytest.fixture(autouse=True)
def _close_bridges(qtbot):
    yield
    while _bridges:
        bridge = _bridges.pop()
        bridge.close()
        _closed.append(bridge)


def _view(qtbot, backend, settings: Settings, width: int = 560) -> CallView:
    bridge = CallBridge(backend, tutor=lambda: active_tutor(settings))
    _bridges.append(bridge)
    view = CallView(bridge)
    qtbot.addWidget(view)
    view.resize(width, 520)  # the call page of an 800x600 window (the sidebar takes the rest)
    view.show()
    return view


def _settings(data_dir, backend: str) -> Settings:
    return Settings.load(AppPaths.resolve(data_dir), llm_backend=backend)


def _inside(widget, view) -> bool:
    top_left = widget.mapTo(view, widget.rect().topLeft())
    bottom_right = widget.mapTo(view, widget.rect().bottomRight())
    return view.rect().contains(top_left) and view.rect().contains(bottom_right)


def test_the_header_names_the_cloud_model(qtbot, backend, data_dir, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    settings = _settings(data_dir, "anthropic")
    settings.llm.anthropic_model = "claude-haiku-4-5"
    view = _view(qtbot, backend, settings)
    label = view.tutor_label
    assert label.isVisible()
    assert "Claude (claude-haiku-4-5)" in label.text() and 'href="models"' in label.text()
    assert "Offline" not in label.text()
    qtbot.waitUntil(lambda: _inside(label, view), timeout=2000)


def test_the_header_names_the_offline_tutor_and_leads_to_the_models_page(qtbot, backend, data_dir):
    view = _view(qtbot, backend, _settings(data_dir, "local"), width=420)
    label = view.tutor_label
    assert "Offline tutor: basic" in label.text() and "Claude" not in label.text()
    with qtbot.waitSignal(view.modelsRequested, timeout=1000):
        label.linkActivated.emit("models")
    qtbot.waitUntil(lambda: _inside(label, view), timeout=2000)  # wraps, never pushes out of the page


def test_the_header_shows_the_microphone_state(qtbot, backend, data_dir):
    view = _view(qtbot, backend, _settings(data_dir, "local"))
    assert not view.mic_label.isVisible()  # no call: nothing to say
    with qtbot.waitSignal(view.bridge.callStarted, timeout=3000):
        view.call_button.click()
    assert view.phase == IN_CALL and view.mic_label.text() == "Mic: listening"
    view.set_muted(True)
    assert view.mic_label.text() == "Mic: muted"
    view.set_muted(False)
    with qtbot.waitSignal(view.bridge.problem, timeout=3000):
        backend.emit_async([ev.Problem("no-microphone", "No microphone found. You can still type your turns.")])
    assert view.mic_label.text() == "Mic: not available"
    assert backend.greet  # started with the call button: the tutor speaks first


def test_a_call_started_by_typing_asks_for_no_greeting(qtbot, backend, data_dir):
    view = _view(qtbot, backend, _settings(data_dir, "local"))
    assert view.phase == IDLE
    view.text_input.setText("Hello there")
    with qtbot.waitSignal(view.bridge.callStarted, timeout=3000):
        view.send_typed()
    assert backend.greet is False


def test_a_fallback_in_the_call_says_the_offline_tutor_answers(qtbot, backend, data_dir, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    view = _view(qtbot, backend, _settings(data_dir, "anthropic"))
    with qtbot.waitSignal(view.bridge.callStarted, timeout=3000):
        view.call_button.click()
    with qtbot.waitSignal(view.bridge.problem, timeout=3000):
        backend.emit_async([ev.Problem("offline", "local tutor (slow)")])
    assert "Claude" in view.tutor_label.text() and "offline tutor is answering" in view.tutor_label.text()
    view.end_call()
    qtbot.waitUntil(lambda: view.phase == IDLE, timeout=3000)
    assert "offline tutor is answering" not in view.tutor_label.text()  # the next call starts on the cloud again
