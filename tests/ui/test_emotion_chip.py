"""The call view's emotion chip speaks about the learner in calm words: after
"She don't like coffee..." the reader may say "disapproval"; the chip must not."""
from __future__ import annotations

from tests.ui.conftest import turn
from tutor_app.core.types import EMOTION_LABELS
from tutor_app.ui.bridge import CallBridge
from tutor_app.ui.call_view import CallView
from tutor_app.ui.emotion_words import FEELINGS


def test_the_chip_says_how_the_learner_sounds_never_the_raw_label(qtbot, backend):
    bridge = CallBridge(backend)
    view = CallView(bridge)
    qtbot.addWidget(view)
    view.show()
    with qtbot.waitSignal(bridge.callStarted, timeout=3000):
        view.call_button.click()
    backend.emit_async(turn("She don't like coffee in the morning.", ["Oh, why not?"], label="disapproval", score=0.58))
    qtbot.waitUntil(lambda: view.emotion_chip.isVisible(), timeout=3000)
    chip = view.emotion_chip
    assert chip.text() == "You sound upset" and "disapproval" not in chip.text().lower()
    assert "disapproval (58%)" in chip.toolTip()  # the raw reading stays available
    assert FEELINGS["upset"].colour in chip.styleSheet() and "#d2453f" not in chip.styleSheet()
    for label in EMOTION_LABELS:
        view._on_emotion(label, 0.5)
        assert chip.text().startswith("You sound ") and label not in chip.text().lower()
    bridge.close()
