"""The call report (after each call) and the history of past calls with progress.

Reads the plain dict of `CallReport.to_dict()` (tutor/report.py); unknown or missing
keys are tolerated so an older report still renders.
"""
from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QCoreApplication, QDateTime, QLocale, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from tutor_app.ui.charts import EmotionPoint, EmotionTimeline, ProgressChart, ProgressPoint
from tutor_app.ui.flow_layout import FlowLayout

STATS_IN_ONE_ROW = 560  # px: narrower, the four stat cards go two by two


def fmt_duration(seconds: float) -> str:
    s = int(round(seconds or 0))
    return f"{s // 60}:{s % 60:02d}"


def fmt_when(epoch: float | None) -> str:
    if not epoch:
        return ""
    return QLocale().toString(QDateTime.fromSecsSinceEpoch(int(epoch)),
                              QCoreApplication.translate("Dates", "ddd dd MMM, HH:mm"))


def _num(value: float, decimals: int = 0) -> str:
    """A number as the interface's locale writes it."""
    return QLocale().toString(float(value), "f", decimals)


class _Stat(QFrame):
    def __init__(self, title: str) -> None:
        super().__init__()
        self.setObjectName("StatCard")
        box = QVBoxLayout(self)
        box.setContentsMargins(14, 10, 14, 10)
        box.setSpacing(2)
        self.value = QLabel("—")
        self.value.setObjectName("StatValue")
        self.caption = QLabel(title)
        self.caption.setObjectName("StatCaption")
        self.caption.setWordWrap(True)  # lets the four cards share a narrow window
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(90)
        box.addWidget(self.value)
        box.addWidget(self.caption)

    def set(self, value: str, caption: str | None = None) -> None:
        self.value.setText(value)
        if caption is not None:
            self.caption.setText(caption)
        self.setAccessibleName(f"{self.caption.text()}: {value}")


def _section(title: str) -> QLabel:
    label = QLabel(title)
    label.setObjectName("SectionTitle")
    return label


class ReportView(QWidget):
    """One call's report."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: dict[str, Any] = {}
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        inner = QWidget()
        inner.setObjectName("Page")
        scroll.setWidget(inner)
        col = QVBoxLayout(inner)
        col.setContentsMargins(24, 18, 30, 24)
        col.setSpacing(12)
        self.heading = QLabel(self.tr("Call report"))
        self.heading.setObjectName("PageTitle")
        self.subtitle = QLabel()
        self.subtitle.setObjectName("Muted")
        col.addWidget(self.heading)
        col.addWidget(self.subtitle)

        self.stat_grid = QGridLayout()
        self.stat_grid.setSpacing(10)
        self.duration = _Stat(self.tr("call length (min)"))
        self.speaking = _Stat(self.tr("you spoke (min)"))
        self.wpm = _Stat(self.tr("words per minute"))
        self.words = _Stat(self.tr("words you said"))
        self._stat_columns = 0
        self._place_stats(4)
        col.addLayout(self.stat_grid)

        col.addWidget(_section(self.tr("How you felt")))
        self.timeline = EmotionTimeline()
        card = QFrame()
        card.setObjectName("Card")
        QVBoxLayout(card).addWidget(self.timeline)
        col.addWidget(card)

        col.addWidget(_section(self.tr("Corrections")))
        self.corrections = QVBoxLayout()
        self.corrections.setSpacing(6)
        col.addLayout(self.corrections)

        col.addWidget(_section(self.tr("Fluency")))
        self.fluency = _muted("")
        col.addWidget(self.fluency)
        self.unsure_note = _muted(self.tr("Words the tutor had trouble hearing (the recogniser's confidence, not a "
                                          "pronunciation score):"))
        self.unsure_note.hide()
        col.addWidget(self.unsure_note)
        self.unsure_row = FlowLayout()
        col.addLayout(self.unsure_row)

        col.addWidget(_section(self.tr("New words")))
        self.words_row = FlowLayout()
        col.addLayout(self.words_row)
        self.source_note = QLabel()
        self.source_note.setObjectName("Muted")
        col.addWidget(self.source_note)
        col.addStretch(1)

    def set_report(self, report: dict[str, Any]) -> None:
        self.report = dict(report or {})
        r = self.report
        turns, paused = int(r.get("turns") or 0), int(r.get("paused_turns") or 0)
        self.subtitle.setText(fmt_when(r.get("started_at"))
                              + (self.tr(" · %n turn(s)", "", turns) if turns else "")
                              + (self.tr(" · %n with memory paused, not in this report", "", paused) if paused else ""))
        self.duration.set(fmt_duration(r.get("duration_seconds", 0)))
        est = r.get("speaking_estimated")
        self.speaking.set(fmt_duration(r.get("speaking_seconds", 0)), self.tr("you spoke (min, est.)") if est else self.tr("you spoke (min)"))
        self.speaking.setToolTip(self.tr("Estimated from typed turns at a typical speaking pace.") if est else "")
        self.wpm.set(_num(float(r.get('words_per_minute') or 0)))
        self.words.set(QLocale().toString(int(r.get("words", 0) or 0)))
        self.timeline.set_points([EmotionPoint(float(p.get("t", 0)), str(p.get("label", "neutral")),
                                               float(p.get("score", 0))) for p in r.get("emotion_timeline", [])])
        _clear(self.corrections)
        corrections = r.get("corrections") or []
        if not corrections:
            self.corrections.addWidget(_muted(self.tr("No corrections this time. Nicely done.")))
        for c in corrections:
            self.corrections.addWidget(_CorrectionRow(c.get("original", ""), c.get("better", ""), c.get("why", ""),
                                                      c.get("why_ko", "")))
        self._set_fluency(r.get("fluency") or {})
        _clear(self.words_row)
        new_words = r.get("new_words") or []
        for w in new_words:
            chip = QLabel(w)
            chip.setObjectName("WordChip")
            self.words_row.addWidget(chip)
        if not new_words:
            none = _muted(self.tr("No new words in this call."))
            none.setWordWrap(False)
            self.words_row.addWidget(none)
        source = r.get("review_source", "none")
        self.source_note.setText({"model": self.tr("Corrections and words picked by your tutor."),
                                  "local-model": self.tr("Picked by the offline tutor model: a small model may miss "
                                                         "some mistakes, so a short list is not a perfect score."),
                                  "heuristic": self.tr("New words are a rough pick (the tutor model gave no review).")}
                                 .get(source, ""))


    def _place_stats(self, columns: int) -> None:
        """Four cards in a row, or two rows of two when the report is narrow."""
        if columns == self._stat_columns:
            return
        self._stat_columns = columns
        for i, stat in enumerate((self.duration, self.speaking, self.wpm, self.words)):
            self.stat_grid.addWidget(stat, i // columns, i % columns)  # re-adding moves it
        for c in range(4):
            self.stat_grid.setColumnStretch(c, 1 if c < columns else 0)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt naming
        super().resizeEvent(event)
        self._place_stats(4 if self.width() >= STATS_IN_ONE_ROW else 2)

    def _set_fluency(self, fluency: dict[str, Any]) -> None:
        _clear(self.unsure_row)
        self.unsure_note.hide()
        if not fluency:
            self.fluency.setText(self.tr("Measured from spoken turns: this call has none with word timings."))
            return
        self.fluency.setText(
            self.tr("%1 words between pauses on average · pauses %2% of your speaking time · "
                    "%3 words per minute while speaking")
            .replace("%1", _num(float(fluency.get('mean_run_words') or 0), 1))
            .replace("%2", _num(100 * float(fluency.get('pause_ratio') or 0)))
            .replace("%3", _num(float(fluency.get('words_per_minute') or 0))))
        unsure = [u.get("word", "") for u in fluency.get("unsure_words") or [] if u.get("word")]
        self.unsure_note.setVisible(bool(unsure))
        if unsure:
            for word in unsure:
                chip = QLabel(word)
                chip.setObjectName("WordChip")
                self.unsure_row.addWidget(chip)


def fluency_trend(reports: list[dict[str, Any]]) -> str:
    """One line on how the runs and pauses of the learner moved over the calls that measured
    them (oldest to newest); empty until two calls have."""
    measured = [r["fluency"] for r in reports if r.get("fluency")]
    if len(measured) < 2:
        return ""
    first, last, count = measured[0], measured[-1], len(measured)  # pyside6-lupdate reads a name, not a call, as %n
    text = QCoreApplication.translate("ReportView", "Over your last %n spoken calls: %1 → %2 words between "
                                      "pauses, pauses %3% → %4% of speaking time.", "", count)
    return (text.replace("%1", _num(float(first.get('mean_run_words') or 0), 1))
            .replace("%2", _num(float(last.get('mean_run_words') or 0), 1))
            .replace("%3", _num(100 * float(first.get('pause_ratio') or 0)))
            .replace("%4", _num(100 * float(last.get('pause_ratio') or 0))))


class _CorrectionRow(QFrame):
    """The learner's words, the better form, and why: in English, and in Korean below it
    when the learner asked for that (Settings, "explain corrections in Korean")."""

    def __init__(self, original: str, better: str, why: str, why_ko: str = "") -> None:
        super().__init__()
        self.setObjectName("Card")
        box = QVBoxLayout(self)
        box.setContentsMargins(14, 8, 14, 8)
        box.setSpacing(2)
        text = QLabel(f"<span style='text-decoration: line-through'>{_esc(original)}</span>"
                      f"&nbsp;&nbsp;→&nbsp;&nbsp;<b>{_esc(better)}</b>")
        text.setWordWrap(True)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.addWidget(text)
        self.why = _muted(why) if why else None
        self.why_ko = _muted(why_ko) if why_ko else None
        for label in (self.why, self.why_ko):
            if label is not None:
                box.addWidget(label)
        self.setAccessibleName(self.tr("Correction: %1 becomes %2").replace("%1", original).replace("%2", better))
        self.setAccessibleDescription(" ".join(t for t in (why, why_ko) if t))


class HistoryView(QWidget):
    """Past calls (newest first) with the progress chart; selecting one shows its report."""

    reportSelected = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        split = QSplitter(Qt.Orientation.Horizontal)
        outer.addWidget(split)
        left = QWidget()
        left.setObjectName("Page")
        lcol = QVBoxLayout(left)
        lcol.setContentsMargins(24, 18, 12, 18)
        title = QLabel(self.tr("Progress"))
        title.setObjectName("PageTitle")
        lcol.addWidget(title)
        self.progress = ProgressChart()
        card = QFrame()
        card.setObjectName("Card")
        QVBoxLayout(card).addWidget(self.progress)
        lcol.addWidget(card)
        legend = _muted(self.tr("Bars: how long you spoke. Line: words per minute."))
        lcol.addWidget(legend)
        self.trend = _muted("")
        lcol.addWidget(self.trend)
        lcol.addWidget(_section(self.tr("Past calls")))
        self.calls = QListWidget()
        self.calls.setObjectName("CallList")
        self.calls.setAccessibleName(self.tr("Past calls"))
        # A narrow window shortens the lines (whole line in the tooltip), never scrolls sideways.
        self.calls.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.calls.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.calls.currentItemChanged.connect(self._picked)
        lcol.addWidget(self.calls, 1)
        split.addWidget(left)
        self.report = ReportView()
        split.addWidget(self.report)
        split.setSizes([420, 620])
        self._reports: list[dict[str, Any]] = []

    def set_reports(self, reports: list[dict[str, Any]]) -> None:
        self._reports = sorted((r for r in reports if r), key=lambda r: r.get("started_at") or 0)
        # Calls where the learner said nothing would drag the curve to zero: not progress.
        spoken = [r for r in self._reports if (r.get("words") or 0) > 0]
        days = {time.strftime("%Y%m%d", time.localtime(r.get("started_at") or 0)) for r in spoken}
        fmt = "HH:mm" if len(days) == 1 and len(spoken) > 1 else QCoreApplication.translate("Dates", "dd MMM")
        self.progress.set_points([
            ProgressPoint(QLocale().toString(QDateTime.fromSecsSinceEpoch(int(r.get("started_at") or 0)), fmt),
                          float(r.get("words_per_minute") or 0), float(r.get("speaking_seconds") or 0))
            for r in spoken])
        self.trend.setText(fluency_trend(spoken[-10:]))
        self.trend.setVisible(bool(self.trend.text()))
        self.calls.clear()
        for r in reversed(self._reports):
            item = QListWidgetItem(self.tr("%1  ·  %2 min  ·  %3 wpm").replace("%1", fmt_when(r.get('started_at')))
                                   .replace("%2", fmt_duration(r.get('duration_seconds', 0)))
                                   .replace("%3", _num(float(r.get('words_per_minute') or 0))))
            item.setToolTip(item.text())
            item.setData(Qt.ItemDataRole.UserRole, r)
            self.calls.addItem(item)
        if self.calls.count():
            self.calls.setCurrentRow(0)
        else:
            self.report.set_report({})

    def add_report(self, report: dict[str, Any]) -> None:
        keep = [r for r in self._reports if r.get("session_id") != report.get("session_id")]
        self.set_reports(keep + [report])

    def _picked(self, item: QListWidgetItem | None, _prev=None) -> None:
        if item is not None:
            report = item.data(Qt.ItemDataRole.UserRole)
            self.report.set_report(report)
            self.reportSelected.emit(report)


def _muted(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("Muted")
    label.setWordWrap(True)
    return label


def _clear(layout) -> None:
    while layout.count():
        item = layout.takeAt(0)
        if item.widget() is not None:
            item.widget().deleteLater()


def _esc(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
