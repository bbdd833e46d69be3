"""The common frame of a sidebar page: margins, spacing, a title row, a read-only list table."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from PySide6.QtCore import QCoreApplication, QDate, QEvent, QLocale, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QTableWidget,
    QToolTip,
    QVBoxLayout,
    QWidget,
)


def page_layout(page: QWidget, title: str) -> tuple[QVBoxLayout, QHBoxLayout]:
    """(page column, title row); the caller adds its own controls to the row, then
    `col.addLayout(head)`."""
    col = QVBoxLayout(page)
    col.setContentsMargins(24, 18, 24, 18)
    col.setSpacing(10)
    head = QHBoxLayout()
    label = QLabel(title)
    label.setObjectName("PageTitle")
    head.addWidget(label)
    head.addStretch(1)
    return col, head


TEXT_SHARE = 0.4  # the text columns keep at least this much of a narrow table
READABLE = 120  # px: an optional column shortened below this (or its text) is hidden instead
MIN_COLUMN = 56  # px: a squeezed column still shows a few letters and the ellipsis


class ListTable(QTableWidget):
    """A read-only, row-selecting table whose text columns stretch. The other columns are
    sized to their contents while there is room; in a narrow window the `optional` ones
    are hidden (least useful first), then the longest are shortened (elided, the whole
    text in the tooltip) so the text keeps `TEXT_SHARE` of the width, or all it needs.
    `fixed` columns (buttons) keep their width and stay in view. Nothing scrolls sideways."""

    def __init__(self, columns: Sequence[str], stretch: Sequence[int], fixed: dict[int, int],
                 optional: Sequence[int] = ()) -> None:
        super().__init__(0, len(columns))
        self.stretch, self.fixed, self.optional = tuple(stretch), dict(fixed), tuple(optional)
        self.setHorizontalHeaderLabels(list(columns))
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.horizontalHeader()
        header.setMinimumSectionSize(MIN_COLUMN // 2)
        for c in range(len(columns)):
            mode = QHeaderView.ResizeMode
            header.setSectionResizeMode(c, mode.Stretch if c in self.stretch else mode.Fixed)
        for c, width in self.fixed.items():
            self.setColumnWidth(c, width)
        self._refit = QTimer(self)  # many cells change at once: fit once, after them
        self._refit.setSingleShot(True)
        self._refit.setInterval(0)
        self._refit.timeout.connect(self.fit_columns)
        model = self.model()
        for signal in (model.rowsInserted, model.dataChanged, model.modelReset, model.rowsRemoved):
            signal.connect(self._refit.start)

    def fit_columns(self) -> None:
        header = self.horizontalHeader()
        sized = [c for c in range(self.columnCount()) if c not in self.stretch and c not in self.fixed]
        for c in sized:
            self.setColumnHidden(c, False)  # a hidden column measures as empty
        label = {c: header.sectionSizeHint(c) for c in sized}  # a header is never cut
        want = {c: max(label[c], self.sizeHintForColumn(c)) for c in sized}
        room = self.viewport().width() - sum(self.fixed.values())
        # The text keeps TEXT_SHARE, or less when its longest line is shorter than that.
        text = min(int(room * TEXT_SHARE), sum(self.sizeHintForColumn(c) for c in self.stretch))
        budget = room - text
        needed = [c for c in sized if c not in self.optional]  # shortened only when nothing else helps
        needed_cap = _cap([want[c] for c in needed], budget)
        left = budget - sum(min(want[c], needed_cap) for c in needed)
        shown = [c for c in sized if c in self.optional]
        for c in self.optional:  # least useful first: hidden rather than cut to a few letters
            cap = _cap([want[k] for k in shown], left)
            if all(cap >= min(want[k], READABLE) for k in shown):
                break
            shown.remove(c)
        cap = _cap([want[k] for k in shown], left)
        for c in sized:
            self.setColumnHidden(c, c in self.optional and c not in shown)
            self.setColumnWidth(c, max(label[c], min(want[c], needed_cap if c in needed else cap)))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt naming
        super().resizeEvent(event)
        self.fit_columns()

    def viewportEvent(self, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.ToolTip:  # a shortened cell shows its whole text
            item = self.itemAt(event.pos())
            if item is not None and not item.toolTip() and item.text():
                QToolTip.showText(event.globalPos(), item.text(), self.viewport())
                return True
        return super().viewportEvent(event)


def _cap(wants: list[int], budget: int) -> int:
    """The largest width W with sum(min(want, W)) <= budget (short columns keep their
    width, long ones are cut to W), never under MIN_COLUMN."""
    cap, left = MIN_COLUMN, budget
    for i, want in enumerate(sorted(wants)):
        share = left // (len(wants) - i)
        if want > share:
            return max(MIN_COLUMN, share)
        left -= want
        cap = want
    return max(cap, MIN_COLUMN, max(wants, default=0))


def list_table(columns: Sequence[str], name: str, stretch: int | Sequence[int],
               fixed: dict[int, int] | None = None, optional: Sequence[int] = ()) -> ListTable:
    """A read-only list table with no grid; the `stretch` column(s) take the room (see ListTable)."""
    table = ListTable(columns, (stretch,) if isinstance(stretch, int) else stretch, fixed or {}, optional)
    table.setAccessibleName(name)
    table.verticalHeader().hide()
    table.setShowGrid(False)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setWordWrap(False)
    table.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    return table


def confirm(parent: QWidget, title: str, text: str, action: str) -> bool:
    """A destructive action asked once: Cancel is the default, `action` must be clicked."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Cancel, parent)
    yes = box.addButton(action, QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is yes


def short_date(when: datetime | None, missing: str = "—") -> str:
    """"21 Nov" this year, "21 Nov 2025" before; `missing` when there is no date."""
    if when is None:
        return missing
    local = when.astimezone()
    fmt = (QCoreApplication.translate("Dates", "dd MMM") if local.year == datetime.now().year
           else QCoreApplication.translate("Dates", "dd MMM yyyy"))  # Qt's date format: "11월 21일" in Korean
    return QLocale().toString(QDate(local.year, local.month, local.day), fmt)
