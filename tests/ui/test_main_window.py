"""The main window: opens at once with no models and says what to do; a whole call
through the real bridge with a scripted backend ends on its report."""
from __future__ import annotations

import hashlib

from tests.ui.conftest import ScriptedBackend
from tutor_app.registry.manifest import ModelRegistry
from tutor_app.ui.main_window import MainWindow
from tutor_app.ui.services import UiServices


def _missing_registry(tmp_path):
    manifest = tmp_path / "models.toml"
    manifest.write_text(f"""
[[model]]
name = "whisper-missing"
role = "stt"
default = true
source = "package"
package = "no-such-model-package==1.0"
module = "no_such_model_package_xyz"
license = "MIT"
size_mb = 78
[model.files]
"model.bin" = "{hashlib.sha256(b'x').hexdigest()}"
""")
    return ModelRegistry.load(tmp_path / "models", manifest)


def test_opens_with_no_models_and_shows_what_to_do(qtbot, settings, tmp_path):
    registry = _missing_registry(tmp_path)
    warmed = []
    services = UiServices(settings=settings, registry=lambda: registry,
                          warm_up_steps=lambda: [("speech recognition", lambda: warmed.append(1))])
    window = MainWindow(services)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.warmedUp, timeout=5000) as got:
        pass
    assert got.args[0].missing == ["speech recognition (whisper-missing)"]
    assert warmed == []  # nothing to warm up without the models
    assert window.banner.isVisible() and "whisper-missing" in window.banner.message
    assert window.warm_label.text() == "Models missing"
    assert window.call_view.title.text() == "Almost ready" and "Models page" in window.call_view.hint.text()
    window.banner._action.click()  # "Open models"
    from tutor_app.ui.models_panel import ModelsPanel

    assert isinstance(window.stack.currentWidget(), ModelsPanel)
    panel = window.stack.currentWidget()
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1, timeout=5000)
    assert "install: whisper-missing" in panel.summary.text()
    assert "pip install --no-deps no-such-model-package" in panel.problems.text()


def test_full_call_ends_on_the_report(qtbot, settings, tmp_path, monkeypatch):
    manifest = tmp_path / "models.toml"
    manifest.write_text("")  # no models needed by this fake engine
    registry = ModelRegistry.load(tmp_path / "models", manifest)
    backend = ScriptedBackend()
    steps = []
    services = UiServices(settings=settings, registry=lambda: registry, make_backend=lambda: backend,
                          warm_up_steps=lambda: [("voice", lambda: steps.append("voice"))])
    window = MainWindow(services)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.warmedUp, timeout=5000):
        pass
    assert steps == ["voice"] and window.warm_label.text() == "Ready" and not window.banner.isVisible()
    assert window.call_view.title.text() == "Ready when you are"
    view = window.call_view
    with qtbot.waitSignal(window.bridge.callStarted, timeout=3000):
        view.call_button.click()
    view.text_input.setText("Hello there")
    view.send_typed()
    qtbot.waitUntil(lambda: len(view.transcript.bubbles()) == 2, timeout=3000)
    view.end_call()
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.history, timeout=3000)
    assert window.history.report.report["words"] == 180
    assert window.history.calls.count() == 1


def _window_in_call(qtbot, settings, tmp_path):
    """A main window (empty model manifest) with a call started on a scripted backend."""
    manifest = tmp_path / "models.toml"
    manifest.write_text("")
    registry = ModelRegistry.load(tmp_path / "models", manifest)
    backend = ScriptedBackend()
    window = MainWindow(UiServices(settings=settings, registry=lambda: registry, make_backend=lambda: backend))
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.bridge.callStarted, timeout=5000):
        window.call_view.start_call()
    return window, backend


def test_engine_problem_shows_banner(qtbot, settings, tmp_path):
    from tutor_app.call import events as ev

    window, backend = _window_in_call(qtbot, settings, tmp_path)
    with qtbot.waitSignal(window.bridge.problem, timeout=3000):
        backend.emit_async([ev.Problem("api-key", "Anthropic rejected the API key (401).")])
    assert window.banner.isVisible()
    assert "API key rejected" in window.banner.message and "401" in window.banner.message
    assert window.banner._action.text() == "Open settings"


def test_problems_at_call_start_are_listed_together(qtbot, settings, tmp_path):
    from tutor_app.call import events as ev

    window, backend = _window_in_call(qtbot, settings, tmp_path)
    with qtbot.waitSignal(window.bridge.problem, timeout=3000):
        backend.emit_async([ev.Problem("other", "no speaker found: replies are shown but not spoken"),
                            ev.Problem("no-microphone", "no microphone found. You can still type your turns.")])
    qtbot.waitUntil(lambda: "speaker" in window.banner.message and "microphone" in window.banner.message,
                    timeout=3000)
    lines = window.banner.message.split("<br>")
    assert lines[0].startswith("<b>No microphone</b>")  # the most severe first
    assert lines[1] == "No speaker found: replies are shown but not spoken"
    assert window.banner.property("level") == "error"
    window.call_view.end_call()
    qtbot.waitUntil(lambda: window.call_view.phase == "idle", timeout=3000)
    window.call_view.start_call()  # a new call starts with a clean slate
    assert not window.banner.isVisible()


def test_space_only_acts_on_the_call_page(qtbot, settings, tmp_path):
    from PySide6.QtCore import Qt

    manifest = tmp_path / "models.toml"
    manifest.write_text("")
    registry = ModelRegistry.load(tmp_path / "models", manifest)
    backend = ScriptedBackend()
    window = MainWindow(UiServices(settings=settings, registry=lambda: registry, make_backend=lambda: backend))
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    window.show_page("progress")
    qtbot.keyClick(window.history.calls, Qt.Key_Space)
    assert window.call_view.phase == "idle" and backend.calls == []
    window.show_page("call")
    with qtbot.waitSignal(window.bridge.callStarted, timeout=3000):
        qtbot.keyClick(window.call_view, Qt.Key_Space)


def test_a_typed_chat_ends_on_its_report_too(qtbot, settings, tmp_path):
    """Typing with no call running starts a text chat (microphone off); its end opens the
    report, as a spoken call's does."""
    window, backend = None, ScriptedBackend()
    manifest = tmp_path / "models.toml"
    manifest.write_text("")
    registry = ModelRegistry.load(tmp_path / "models", manifest)
    window = MainWindow(UiServices(settings=settings, registry=lambda: registry, make_backend=lambda: backend))
    qtbot.addWidget(window)
    window.show()
    view = window.call_view
    view.text_input.setText("I can't talk now, I'm on a train.")
    with qtbot.waitSignal(window.bridge.callStarted, timeout=3000):
        view.send_typed()
    assert backend.calls[0] == ("start_call", False, True)
    qtbot.waitUntil(lambda: len(view.transcript.bubbles()) == 2, timeout=3000)
    view.call_button.click()  # "End call"
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.history, timeout=3000)
    assert window.history.calls.count() == 1 and window.history.report.report["session_id"] == "s1"


def test_a_call_cut_off_by_a_crash_is_told_and_listed(qtbot, settings, tmp_path):
    """The start's recovery finished a call whose process had died: a banner says so and
    the call is in Past calls (tests/integration/test_recovery.py runs the real one)."""
    from tests.ui.conftest import REPORT

    manifest = tmp_path / "models.toml"
    manifest.write_text("")
    registry = ModelRegistry.load(tmp_path / "models", manifest)
    lost = dict(REPORT, session_id="crashed")
    window = MainWindow(UiServices(settings=settings, registry=lambda: registry, lost_calls=lambda: [lost]))
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.lostCallsShown, timeout=5000):
        window.show()
    assert window.banner.isVisible()
    assert window.banner.message == "<b>Your last call ended unexpectedly</b> — its report is ready"
    assert window.history.calls.count() == 1 and window.history.report.report["session_id"] == "crashed"
    window.banner._action.click()  # "Open report"
    assert window.stack.currentWidget() is window.history
