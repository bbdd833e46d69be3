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


def test_the_report_chart_legend_speaks_of_the_learner_and_wraps(qtbot):
    from PySide6.QtCore import QRect

    from tutor_app.ui.charts import EmotionPoint, EmotionTimeline

    chart = EmotionTimeline()
    qtbot.addWidget(chart)
    labels = ["neutral", "disapproval", "nervousness", "curiosity", "joy", "sadness", "annoyance"]
    chart.set_points([EmotionPoint(10.0 * i, label, 0.6) for i, label in enumerate(labels)])
    chart.resize(300, 260)
    chart.show()
    assert [f.title for f in chart.feelings()] == ["You sound calm", "You sound upset", "You sound unsure",
                                                   "You sound curious", "You sound happy", "You sound a bit down"]
    assert "disapproval (60%)" in chart.toolTip()  # the raw readings, for whoever wants them
    rects = chart.legend_rects()
    assert len({r.top() for r in rects}) > 1  # wrapped onto more than one line
    assert all(QRect(0, 0, chart.width(), chart.height()).contains(r) for r in rects)
    assert not chart.grab().isNull()
