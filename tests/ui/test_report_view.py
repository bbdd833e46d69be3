"""The call report and the history/progress view render real report dicts."""
from __future__ import annotations

from tests.ui.conftest import REPORT
from tutor_app.ui.report_view import HistoryView, ReportView


def _labels(widget):
    from PySide6.QtWidgets import QLabel

    return [w.text() for w in widget.findChildren(QLabel)]


def test_report_renders_numbers_corrections_words_and_timeline(qtbot):
    view = ReportView()
    qtbot.addWidget(view)
    view.resize(900, 800)
    view.set_report(REPORT)
    view.show()
    assert view.duration.value.text() == "5:00"
    assert view.speaking.value.text() == "1:35"
    assert view.wpm.value.text() == "114"
    assert view.words.value.text() == "180"
    texts = " ".join(_labels(view))
    assert "I goed to Busan" in texts and "I went to Busan" in texts and "past of go" in texts
    for word in REPORT["new_words"]:
        assert word in _labels(view)
    assert [p.label for p in view.timeline.points] == ["neutral", "nervousness", "joy", "optimism"]
    image = view.grab()  # paints the QPainter chart without errors
    assert not image.isNull()


def test_empty_report_is_calm(qtbot):
    view = ReportView()
    qtbot.addWidget(view)
    view.set_report({"session_id": "x", "turns": 0})
    texts = " ".join(_labels(view))
    assert "No corrections this time" in texts and "No new words" in texts
    assert not view.grab().isNull()


def test_history_lists_calls_newest_first_and_plots_progress(qtbot):
    view = HistoryView()
    qtbot.addWidget(view)
    older = dict(REPORT, session_id="s0", started_at=REPORT["started_at"] - 86400, words_per_minute=90.0,
                 speaking_seconds=60.0)
    view.set_reports([REPORT, older])
    assert view.calls.count() == 2
    assert "114 wpm" in view.calls.item(0).text()
    assert [p.wpm for p in view.progress.points] == [90.0, 113.7]
    assert view.report.report["session_id"] == "s1"  # newest selected
    view.calls.setCurrentRow(1)
    assert view.report.report["session_id"] == "s0"
    view.add_report(dict(REPORT, session_id="s2", started_at=REPORT["started_at"] + 86400))
    assert view.calls.count() == 3 and view.report.report["session_id"] == "s2"
    assert not view.grab().isNull()


def test_silent_calls_are_listed_but_not_plotted(qtbot):
    view = HistoryView()
    qtbot.addWidget(view)
    silent = dict(REPORT, session_id="e", started_at=REPORT["started_at"] + 60, words=0, words_per_minute=0.0,
                  speaking_seconds=0.0, turns=0)
    view.set_reports([REPORT, silent])
    assert view.calls.count() == 2
    assert [p.wpm for p in view.progress.points] == [113.7]
