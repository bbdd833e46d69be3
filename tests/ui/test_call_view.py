"""The call view over the bridge, with a scripted backend emitting from worker threads."""
from __future__ import annotations

import pytest

from tests.ui.conftest import turn
from tutor_app.call import events as ev
from tutor_app.ui.bridge import CallBridge
from tutor_app.ui.call_view import IDLE, IN_CALL, CallView

_bridges: list[CallBridge] = []
_closed: list[CallBridge] = []  # kept alive: events already queued may still be delivered


@pytest.fixture(autouse=True)
def _close_bridges(qtbot):
    yield
    while _bridges:  # stop event delivery before qtbot deletes the widgets
        bridge = _bridges.pop()
        bridge.close()
        _closed.append(bridge)


def _view(qtbot, backend):
    bridge = CallBridge(backend)
    _bridges.append(bridge)
    view = CallView(bridge)
    qtbot.addWidget(view)
    view.show()
    return view, bridge


def _texts(view):
    return [(b.role, b.text) for b in view.transcript.bubbles()]


def test_call_start_turns_and_end(qtbot, backend):
    view, bridge = _view(qtbot, backend)
    assert view.phase == IDLE and view.call_button.accessibleName() == "Start call"
    with qtbot.waitSignal(bridge.callStarted, timeout=3000):
        view.call_button.click()
    assert view.phase == IN_CALL and view.call_button.accessibleName() == "End call"
    qtbot.waitUntil(lambda: view.state_label.text() == "Listening", timeout=3000)

    states = []
    bridge.stateChanged.connect(states.append)
    backend.emit_async(turn("Hi, I'm Minji.", ["Hi Minji!", "How are you today?"]))
    qtbot.waitUntil(lambda: len(view.transcript.bubbles()) == 2 and states[-1:] == ["listening"], timeout=3000)
    assert _texts(view) == [("learner", "Hi, I'm Minji."), ("tutor", "Hi Minji! How are you today?")]
    assert states == ["thinking", "speaking", "listening"]
    assert view.emotion_chip.isVisible() and view.emotion_chip.text() == "You sound happy"

    # a typed turn goes through the backend and comes back as events
    view.text_input.setText("I work as a nurse.")
    view.text_input.returnPressed.emit()
    qtbot.waitUntil(lambda: len(view.transcript.bubbles()) == 4, timeout=3000)
    assert ("send_text", "I work as a nurse.") in backend.calls
    assert _texts(view)[2:] == [("learner", "I work as a nurse."), ("tutor", "Nice to meet you. What do you do?")]

    reports = []
    view.reportReady.connect(lambda sid, r: reports.append((sid, r)))
    view.call_button.click()  # end
    qtbot.waitUntil(lambda: view.phase == IDLE and bool(reports), timeout=3000)
    assert reports[0][0] == "s1" and reports[0][1]["words"] == 180
    assert view.state_label.text() == "Call ended"
    assert view.off_record.isEnabled()


def test_tutor_sentences_appear_one_by_one(qtbot, backend):
    view, bridge = _view(qtbot, backend)
    with qtbot.waitSignal(bridge.callStarted, timeout=3000):
        view.start_call()
    with qtbot.waitSignal(bridge.tutorSentence, timeout=3000):
        backend.emit_async([ev.UserUtterance("hello", 0.8), ev.StateChanged(ev.SPEAKING), ev.TutorSentence("First one.")])
    qtbot.waitUntil(lambda: len(view.transcript.bubbles()) == 2, timeout=3000)
    assert view.transcript.bubbles()[-1].text == "First one."
    assert view.state_label.text() == "Speaking"
    with qtbot.waitSignal(bridge.tutorSentence, timeout=3000):
        backend.emit_async([ev.TutorSentence("Second one.")])
    assert view.transcript.bubbles()[-1].text == "First one. Second one."


def test_barge_in_truncates_the_tutor_bubble(qtbot, backend):
    view, bridge = _view(qtbot, backend)
    with qtbot.waitSignal(bridge.callStarted, timeout=3000):
        view.start_call()
    backend.emit_async([
        ev.UserUtterance("Tell me about London.", 2.0), ev.StateChanged(ev.SPEAKING),
        ev.TutorSentence("London is a big city."), ev.TutorSentence("It has many museums."),
        ev.SpeechStarted(),  # the learner talks over the tutor
        ev.TutorTurnDone("London is a big city. It has", interrupted=True),
        ev.StateChanged(ev.LISTENING), ev.UserUtterance("Sorry, wait!", 0.9),
    ])
    qtbot.waitUntil(lambda: len(view.transcript.bubbles()) == 3 and not view.transcript.bubbles()[-1].pending,
                    timeout=3000)
    learner, tutor, learner2 = view.transcript.bubbles()
    assert tutor.interrupted and tutor.text == "London is a big city. It has …"
    assert "museums" not in tutor.text
    assert (learner2.role, learner2.text) == ("learner", "Sorry, wait!")


def test_mute_with_space_and_end_with_escape(qtbot, backend):
    from PySide6.QtCore import Qt

    view, bridge = _view(qtbot, backend)
    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow, timeout=3000)  # window shortcuts need an active window
    with qtbot.waitSignal(bridge.callStarted, timeout=3000):
        qtbot.keyClick(view, Qt.Key_Space)  # Space starts a call
    qtbot.keyClick(view, Qt.Key_Space)
    qtbot.waitUntil(lambda: ("set_muted", True) in backend.calls, timeout=3000)
    assert view.muted and view.mute_button.isChecked()
    qtbot.waitUntil(lambda: view.state_label.text() == "Muted", timeout=3000)
    with qtbot.waitSignal(bridge.callEnded, timeout=3000):
        qtbot.keyClick(view, Qt.Key_Escape)
    assert view.phase == IDLE and not view.muted


def test_problem_goes_to_the_banner_and_off_record_is_passed(qtbot, backend):
    view, bridge = _view(qtbot, backend)
    problems = []
    view.problemRaised.connect(lambda k, m: problems.append((k, m)))
    view.off_record.setChecked(True)
    with qtbot.waitSignal(bridge.callStarted, timeout=3000):
        view.start_call()
    assert backend.calls[0] == ("start_call", True, False)
    with qtbot.waitSignal(bridge.problem, timeout=3000):
        backend.emit_async([ev.Problem("no-microphone", "No microphone found: plug one in or type.", fatal=True)])
    assert problems == [("no-microphone", "No microphone found: plug one in or type.")]
    # The microphone is gone for good: the call goes on typed; ending it brings the report.
    assert view.phase == IN_CALL and view.text_only and not view.mute_button.isEnabled()
    with qtbot.waitSignal(bridge.reportReady, timeout=3000):
        view.call_button.click()
    assert view.phase == IDLE


def test_start_failure_is_one_line(qtbot):
    class Broken:
        def start_call(self, off_record, sink, text_only=False, greet=None):
            raise RuntimeError("PortAudio: device unavailable")

    view, bridge = _view(qtbot, Broken())
    problems = []
    view.problemRaised.connect(lambda k, m: problems.append(m))
    with qtbot.waitSignal(bridge.callFailed, timeout=3000):
        view.start_call()
    assert view.phase == IDLE
    assert problems == ["The call could not start: PortAudio: device unavailable"]


def test_speech_without_words_leaves_no_bubble(qtbot, backend):
    view, bridge = _view(qtbot, backend)
    with qtbot.waitSignal(bridge.callStarted, timeout=3000):
        view.start_call()
    view.transcript._pending_timer.setInterval(50)  # the engine sent no utterance for it
    with qtbot.waitSignal(bridge.speechStarted, timeout=3000):
        backend.emit_async([ev.SpeechStarted()])
    assert [b.text for b in view.transcript.bubbles()] == ["…"]
    qtbot.waitUntil(lambda: view.transcript.bubbles() == [], timeout=3000)
    with qtbot.waitSignal(bridge.userUtterance, timeout=3000):
        backend.emit_async([ev.SpeechStarted(), ev.UserUtterance("", 0.4)])
    assert view.transcript.bubbles() == []


def _active(qtbot, view) -> None:
    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow, timeout=3000)  # window shortcuts need an active window


def test_typing_starts_a_text_chat_with_the_microphone_off(qtbot, backend):
    """"Can't talk right now? Type below": the first typed message starts a text-only chat
    (nothing is listened to), and the box says so before anything is typed."""
    view, bridge = _view(qtbot, backend)
    assert "microphone" in view.text_input.placeholderText() and "off" in view.text_input.placeholderText()
    view.text_input.setText("Hello, I can't talk right now.")
    with qtbot.waitSignal(bridge.callStarted, timeout=3000):
        view.text_input.returnPressed.emit()
    assert backend.calls[0] == ("start_call", False, True)  # (off the record, text only)
    qtbot.waitUntil(lambda: len(view.transcript.bubbles()) == 2, timeout=3000)
    assert ("send_text", "Hello, I can't talk right now.") in backend.calls
    assert view.text_only and not view.mute_button.isEnabled() and not view.meter._active
    assert "microphone is off" in view.hint.text()


def test_typing_during_a_spoken_call_adds_a_turn_to_it(qtbot, backend):
    view, bridge = _view(qtbot, backend)
    with qtbot.waitSignal(bridge.callStarted, timeout=3000):
        view.start_call()
    assert backend.calls[0] == ("start_call", False, False) and not view.text_only
    assert "added to the call" in view.text_input.placeholderText()
    view.text_input.setText("One typed turn.")
    view.send_typed()
    qtbot.waitUntil(lambda: ("send_text", "One typed turn.") in backend.calls, timeout=3000)
    assert [c[0] for c in backend.calls].count("start_call") == 1  # the same call


def test_space_and_escape_do_not_fire_while_typing(qtbot, backend):
    from PySide6.QtCore import Qt

    view, bridge = _view(qtbot, backend)
    _active(qtbot, view)
    view.text_input.setFocus()
    qtbot.waitUntil(view.text_input.hasFocus, timeout=3000)
    qtbot.keyClicks(view.text_input, "a b")
    qtbot.keyClick(view.text_input, Qt.Key_Space)
    assert view.text_input.text() == "a b " and view.phase == IDLE and backend.calls == []
    with qtbot.waitSignal(bridge.callStarted, timeout=3000):
        qtbot.keyClick(view.text_input, Qt.Key_Return)
    qtbot.keyClick(view.text_input, Qt.Key_Space)
    qtbot.keyClicks(view.text_input, "x")
    qtbot.keyClick(view.text_input, Qt.Key_Escape)  # leaves the box; the chat goes on
    assert view.phase == IN_CALL and ("end_call",) not in backend.calls
    assert not view.text_input.hasFocus() and view.text_input.text() == " x"
    assert not [c for c in backend.calls if c[0] == "set_muted"]
    with qtbot.waitSignal(bridge.callEnded, timeout=3000):
        qtbot.keyClick(view, Qt.Key_Escape)  # outside the box Esc ends the call
