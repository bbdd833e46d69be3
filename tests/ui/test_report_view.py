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


def test_turns_said_with_memory_paused_are_named_as_left_out(qtbot):
    view = ReportView()
    qtbot.addWidget(view)
    view.set_report(dict(REPORT, turns=3, paused_turns=2))
    assert view.subtitle.text().endswith("· 3 turns · 2 with memory paused, not in this report")
    view.set_report(REPORT)  # an older report has no such field
    assert "memory paused" not in view.subtitle.text()


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


FLUENCY = {"words_per_minute": 104.0, "mean_run_words": 4.2, "pause_ratio": 0.18, "spoken_turns": 3,
           "unsure_words": [{"word": "hongdae", "probability": 0.31}, {"word": "yesterday", "probability": 0.45}]}


def test_report_shows_fluency_and_the_words_the_tutor_had_trouble_hearing(qtbot):
    view = ReportView()
    qtbot.addWidget(view)
    view.set_report(dict(REPORT, fluency=FLUENCY))
    texts = " ".join(_labels(view))
    assert "4.2 words between pauses" in texts and "pauses 18%" in texts
    assert "not a pronunciation score" in texts and "hongdae" in _labels(view)
    view.set_report(dict(REPORT, fluency={}))
    assert "none with word timings" in " ".join(_labels(view))
    qtbot.waitUntil(lambda: "hongdae" not in _labels(view), timeout=2_000)  # the old chips are deleted


def test_progress_shows_the_fluency_trend_over_calls(qtbot):
    view = HistoryView()
    qtbot.addWidget(view)
    older = dict(REPORT, session_id="s0", started_at=REPORT["started_at"] - 86400,
                 fluency=dict(FLUENCY, mean_run_words=2.5, pause_ratio=0.3))
    view.set_reports([dict(REPORT, fluency=FLUENCY), older])
    assert view.trend.text() == ("Over your last 2 spoken calls: 2.5 → 4.2 words between pauses, "
                                 "pauses 30% → 18% of speaking time.")
    view.set_reports([REPORT])
    assert view.trend.text() == ""


def test_a_review_by_the_offline_model_says_a_short_list_is_no_perfect_score(qtbot):
    view = ReportView()
    qtbot.addWidget(view)
    view.set_report(dict(REPORT, review_source="local-model", corrections=[]))
    assert "may miss some mistakes" in view.source_note.text()
