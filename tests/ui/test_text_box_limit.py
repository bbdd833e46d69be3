"""The call page's text box has the limit of `tutor-app chat` (issue #33): a message over
it is refused in one line, nothing is started or sent, and the text stays in the box
whole (Qt's default would have cut a paste at 32,767 characters)."""
from __future__ import annotations

import pytest

from tutor_app.memory.storage.schema import MAX_MESSAGE_BYTES
from tutor_app.ui.bridge import CallBridge
from tutor_app.ui.call_view import IDLE, CallView

_bridges: list[CallBridge] = []


@pytest.fixture(autouse=True)
def _close_bridges(qtbot):
    yield
    while _bridges:
        _bridges.pop().close()


def test_an_overlong_message_is_refused_in_one_line_and_kept_in_the_box(qtbot, backend):
    bridge = CallBridge(backend)
    _bridges.append(bridge)
    view = CallView(bridge)
    qtbot.addWidget(view)
    view.show()
    problems: list[tuple[str, str]] = []
    view.problemRaised.connect(lambda kind, message: problems.append((kind, message)))

    pasted = "a" * (MAX_MESSAGE_BYTES - 2) + "한"  # 3 bytes: one byte over the limit
    view.text_input.insert(pasted)  # as a paste: maxLength applies
    view.text_input.returnPressed.emit()

    assert view.text_input.text() == pasted  # nothing lost
    assert view.phase == IDLE and backend.calls == []  # nothing started, nothing sent
    assert problems == [("other", f"This message is too long to send ({MAX_MESSAGE_BYTES + 1:,} bytes; the limit "
                                  f"is {MAX_MESSAGE_BYTES:,}). It is still in the box: shorten it and send it again.")]

    view.text_input.backspace()  # at the limit now: it goes
    with qtbot.waitSignal(bridge.callStarted, timeout=3000):
        view.text_input.returnPressed.emit()
    qtbot.waitUntil(lambda: any(c[0] == "send_text" for c in backend.calls), timeout=3000)
    sent = next(c[1] for c in backend.calls if c[0] == "send_text")
    assert len(sent.encode("utf-8")) == MAX_MESSAGE_BYTES - 2 and view.text_input.text() == ""
