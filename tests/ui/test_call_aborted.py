"""A bug that ends the call (ev.CallAborted, then the call's end) reaches the learner as
one message, in their language, and the call view goes back to idle by itself."""
from __future__ import annotations

import pytest

from tests.ui.test_call_view import _view
from tutor_app.call import events as ev
from tutor_app.ui.call_view import IDLE


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_call_a_bug_ended_shows_one_message_and_goes_back_to_idle(qtbot, qapp, backend, language):
    from tutor_app.ui.translation import install_translation

    install_translation(qapp, language)
    try:
        view, bridge = _view(qtbot, backend)
        messages: list[tuple[str, str]] = []
        view.problemRaised.connect(lambda kind, message: messages.append((kind, message)))
        with qtbot.waitSignal(bridge.callStarted, timeout=3000):
            view.call_button.click()
        with qtbot.waitSignal(bridge.callEnded, timeout=3000):
            backend.emit_async([ev.CallAborted("audio", "ValueError"), ev.StateChanged(ev.ENDED),
                                ev.CallEnded(backend.session)])
        assert view.phase == IDLE and not bridge.in_call
        assert len(messages) == 1 and "(audio: ValueError)" in messages[0][1]
        assert ("새 통화" in messages[0][1]) == (language == "ko")
    finally:
        install_translation(qapp, "en")
