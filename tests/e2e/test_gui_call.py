"""The whole learner journey in the real desktop window with real audio: open the window,
start a call with the call button, speak (a WAV into the virtual microphone), see both
bubbles, hear the reply (the virtual speaker is recorded), end the call with Esc, read
the call report, then find what was remembered in the Memory page and delete it there
(the real confirmation dialog answered), and close the window.

The tutor model is the fake Anthropic server (tests/fakes); speech, VAD, emotion and the
memory store are the real ones (tests/e2e/conftest.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton, QToolButton

from tests.e2e.conftest import SpeakerRecording, play_into_mic
from tests.fakes.anthropic_server import Reply
from tutor_app.speech.wer import normalize_words

pytestmark = [pytest.mark.audio, pytest.mark.slow]

SAID = "Please remember that my sister lives in London."  # a save trigger (tutor/turn_memory/gate.py)
REPLY = "Of course, I will remember that. How often do you visit her?"
REVIEW = {"corrections": [], "new_words": ["visit", "how often"]}
TURN_S = 90_000  # a spoken turn on a 2-core CPU: VAD, Whisper, emotion, memory, Piper


def words(text: str) -> set[str]:
    return set(normalize_words(text))


@pytest.fixture
def gui_gc(qapp):
    """As `tutor-app gui` does: garbage is collected on the GUI thread only (gc_guard.py)."""
    from tutor_app.ui.gc_guard import GuiThreadCollector

    collector = GuiThreadCollector(parent=qapp)
    yield
    collector.stop()
    collector.deleteLater()


def nav_button(window, text: str) -> QToolButton:
    return next(b for b in window.findChildren(QToolButton) if b.objectName() == "NavButton" and b.text() == text)


def answer_next_dialog(qtbot, button_text: str, seen: list[str]) -> QTimer:
    """Click `button_text` in the next modal message box, as the learner would."""
    timer = QTimer()

    def look() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            timer.stop()
            seen.append(box.text())
            button = next((b for b in box.findChildren(QPushButton) if b.text() == button_text), None)
            if button is not None:
                qtbot.mouseClick(button, Qt.LeftButton)
            else:
                box.reject()  # no such button: the test fails on its checks instead of hanging here

    timer.timeout.connect(look)
    timer.start(50)
    return timer


def test_whole_call_in_the_window(qtbot, gui_gc, call_app, fake_anthropic, learner_wav, tmp_path):
    from tutor_app.tutor.report import words_in
    from tutor_app.ui.main_window import MainWindow
    from tutor_app.ui.memory_panel import MemoryPanel
    from tutor_app.ui.services import UiServices

    fake_anthropic.push(Reply(REPLY), Reply(json.dumps(REVIEW)))  # the turn, then the call-end review
    clip = learner_wav(SAID)

    # -- open the window: it warms up the (already loaded) models and says it is ready
    window = MainWindow(UiServices.from_app(call_app))
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.warmedUp, timeout=60_000) as warmed:
        pass
    result = warmed.args[0]
    assert not result.missing and not result.problems, result
    view = window.call_view
    assert window.warm_label.text() == "Ready" and view.title.text() == "Ready when you are"

    # -- start the call with the call button
    # The tutor speaks first: its greeting is a tutor turn of its own.
    with qtbot.waitSignal(window.bridge.tutorTurnDone, timeout=TURN_S,
                          check_params_cb=lambda done: done.greeting) as greeted:
        with qtbot.waitSignal(window.bridge.callStarted, timeout=30_000):
            qtbot.mouseClick(view.call_button, Qt.LeftButton)
        assert view.phase == "in-call" and view.call_button.accessibleName() == "End call"
    assert greeted.args[0].reply.startswith("Hi") and not greeted.args[0].interrupted
    controller = window.bridge.backend()
    qtbot.waitUntil(controller.loop.ready.is_set, timeout=30_000)  # models warm, audio running
    frames = controller.loop.frames_seen
    qtbot.waitUntil(lambda: controller.loop.frames_seen >= frames + 10, timeout=10_000)  # the mic flows
    qtbot.waitUntil(lambda: view.state_label.text() == "Listening", timeout=10_000)

    # -- speak; see the learner bubble and the tutor's reply; hear it
    recording = SpeakerRecording(tmp_path / "speaker.wav")
    with qtbot.waitSignal(window.bridge.tutorTurnDone, timeout=TURN_S) as turn_done:
        player = play_into_mic(clip)
        qtbot.waitUntil(lambda: player.poll() is not None, timeout=20_000)
    frames = controller.loop.frames_seen
    qtbot.waitUntil(lambda: controller.loop.frames_seen >= frames + 16, timeout=10_000)  # the tail played out
    recorded = recording.stop()
    assert not turn_done.args[0].interrupted
    bubbles = view.transcript.bubbles()
    assert [b.role for b in bubbles] == ["tutor", "learner", "tutor"], [(b.role, b.text) for b in bubbles]
    _greeting, learner, tutor = bubbles
    assert not learner.pending and {"remember", "sister", "london"} <= words(learner.text), learner.text
    assert tutor.text == REPLY and not tutor.interrupted
    assert view.emotion_chip.isVisibleTo(window) and view.emotion_chip.text()
    qtbot.waitUntil(lambda: view.state_label.text() == "Listening", timeout=10_000)
    assert "sister" in str(fake_anthropic.requests[0].messages[-1]["content"]).lower()

    # -- end the call with Esc: the report of this call opens
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5_000)
    with qtbot.waitSignal(window.bridge.reportReady, timeout=60_000) as ready:
        qtbot.keyClick(view, Qt.Key_Escape)
    session_id = ready.args[0]
    assert session_id == window.bridge.session_id
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.history, timeout=5_000)
    assert view.phase == "idle" and view.call_button.accessibleName() == "Start call"
    report = window.history.report
    assert report.report["session_id"] == session_id and report.report["turns"] == 1
    assert report.report["words"] == len(words_in(learner.text)) and not report.report["speaking_estimated"]
    assert report.report["review_source"] == "model" and report.isVisible()
    assert report.words.value.text() == str(report.report["words"])
    chips = [w.text() for w in report.findChildren(type(report.heading)) if w.objectName() == "WordChip"]
    assert sorted(chips) == sorted(REVIEW["new_words"])
    assert window.history.calls.count() == 1
    assert len(fake_anthropic.requests) == 2  # the turn and the review; extraction skipped (one turn)

    # -- the Memory page shows what the learner asked to remember
    qtbot.mouseClick(nav_button(window, "Memory"), Qt.LeftButton)
    panel = window.stack.currentWidget()
    assert isinstance(panel, MemoryPanel)
    qtbot.waitUntil(lambda: any("sister" in r.text.lower() for r in panel.rows), timeout=15_000)
    row = next(r for r in panel.rows if "sister" in r.text.lower())
    assert row.text == learner.text and row.source == "trigger"  # stored verbatim, during the turn
    stored = call_app.memory.get(row.id)
    assert stored is not None and stored.text == learner.text

    # -- delete it through the panel: select its row, Delete, confirm in the dialog
    r = next(i for i in range(panel.table.rowCount()) if panel.table.item(i, 0).data(Qt.UserRole) == row.id)
    assert panel.table.item(r, 2).text() == "you asked"
    rect = panel.table.visualItemRect(panel.table.item(r, 0))
    qtbot.mouseClick(panel.table.viewport(), Qt.LeftButton, pos=rect.center())
    assert panel.selected_id() == row.id and panel.delete_button.isEnabled()
    asked: list[str] = []
    answering = answer_next_dialog(qtbot, "Delete", asked)
    qtbot.mouseClick(panel.delete_button, Qt.LeftButton)  # returns once the dialog is answered
    answering.stop()
    qtbot.waitUntil(lambda: panel.status.text() == "Deleted." or panel.status.text().startswith("Memory problem"),
                    timeout=15_000)
    assert panel.status.text() == "Deleted.", panel.status.text()  # the store's error, shown in the panel
    assert asked and learner.text in asked[0]
    assert call_app.memory.get(row.id) is None
    assert all(m.id != row.id for m in call_app.memory.list())
    transcript = call_app.memory.session_messages(session_id)
    # The exchange went with it (the learner's line and the tutor's reply); the greeting before it stays.
    assert [(m.role, m.text) for m, _vector in transcript] == [("assistant", _greeting.text)]
    assert all(r.id != row.id for r in panel.rows)

    # -- close the window
    window.close()
    assert not window.isVisible() and window.bridge.closed

    # -- what the virtual speaker played was the tutor's reply, spoken
    heard = call_app.stt.transcribe(recorded).text  # the session's Whisper
    assert {"remember", "often", "visit"} <= words(heard), heard
    samples, _rate = sf.read(str(recorded), dtype="float32")
    assert float(np.sqrt(np.mean(np.square(samples)))) > 1e-3  # not silence


def test_a_rejected_api_key_is_a_settings_banner_not_a_lost_connection(qtbot, gui_gc, call_app, fake_anthropic):
    """A 401 from the API: the learner hears and reads a plain apology, the window shows the
    API-key banner with a way to Settings, and the apology is not kept as the tutor's turn."""
    from tutor_app.tutor.engine import SORRY_KEY
    from tutor_app.ui.main_window import MainWindow
    from tutor_app.ui.services import UiServices

    fake_anthropic.push(Reply(status=401))
    window = MainWindow(UiServices.from_app(call_app))
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.warmedUp, timeout=60_000):
        pass
    view = window.call_view
    with qtbot.waitSignal(window.bridge.tutorTurnDone, timeout=TURN_S) as turn_done:
        view.text_input.setText("I am learning English for my new job.")
        view.send_typed()  # typing starts a (quiet) call too
    assert turn_done.args[0].reply == SORRY_KEY, turn_done.args[0]
    qtbot.waitUntil(lambda: window.banner.kind == "api-key", timeout=10_000)
    assert "Settings" in window.banner.message and window.banner._action_key == "settings"
    session_id = window.bridge.session_id
    with qtbot.waitSignal(window.bridge.reportReady, timeout=60_000):
        window.bridge.end_call()
    stored = [(m.role, m.text) for m, _ in call_app.memory.session_messages(session_id)]
    assert stored == [("user", "I am learning English for my new job.")]
    window.close()
