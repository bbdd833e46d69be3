"""Practice: the learner's own mistakes and new words, what comes back in the next call,
what is mastered, and each item's history; search and delete (for real).

Written against a `PracticeSource` (practice/store.py's PracticeStore has this shape);
every store call runs in a worker.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, Protocol

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QTableWidgetItem, QWidget

from tutor_app.errors import error_text
from tutor_app.practice import schedule
from tutor_app.practice.items import MISTAKE, PracticeItem, words
from tutor_app.practice.plan import due_items
from tutor_app.ui.page import confirm, list_table, page_layout, short_date
from tutor_app.ui.theme import icon
from tutor_app.ui.tr_mark import QT_TRANSLATE_NOOP
from tutor_app.ui.workers import run_task

COLUMNS = (QT_TRANSLATE_NOOP("PracticePage", "You said"), QT_TRANSLATE_NOOP("PracticePage", "Better"), QT_TRANSLATE_NOOP("PracticePage", "Type"), QT_TRANSLATE_NOOP("PracticePage", "Comes back"), QT_TRANSLATE_NOOP("PracticePage", "History"))
FILTERS = (QT_TRANSLATE_NOOP("PracticePage", "Everything"), QT_TRANSLATE_NOOP("PracticePage", "Due next call"), QT_TRANSLATE_NOOP("PracticePage", "Mastered"), QT_TRANSLATE_NOOP("PracticePage", "Mistakes"), QT_TRANSLATE_NOOP("PracticePage", "New words"))
MARKS = {"used": "✓", "said": "✓", "repeated": "✗"}


class PracticeSource(Protocol):
    def items(self) -> list[PracticeItem]: ...
    def delete(self, item_id: str) -> PracticeItem: ...
    def now(self) -> datetime: ...


def when_text(item: PracticeItem, now: datetime) -> str:
    if schedule.is_mastered(item.card):
        return QCoreApplication.translate("PracticePage", "Mastered")
    due = schedule.due_at(item.card)
    if due is None or due <= now:
        return QCoreApplication.translate("PracticePage", "Next call")
    days = (due - now).total_seconds() / 86400
    count = round(days)
    return QCoreApplication.translate("PracticePage", "Tomorrow") if days <= 1 else QCoreApplication.translate("PracticePage", "In %n days", "", count)


class PracticePage(QWidget):
    loaded = Signal()  # items shown (after any change): for tests

    def __init__(self, source_factory: Callable[[], PracticeSource] | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Page")
        self._source_factory = source_factory
        self.items: list[PracticeItem] = []
        self.due_ids: set[str] = set()
        self.now = datetime.now(timezone.utc)
        self._build()
        self.refresh()

    def _build(self) -> None:
        col, head = page_layout(self, self.tr("Practice"))
        self.summary = QLabel()
        self.summary.setObjectName("Muted")
        head.addWidget(self.summary)
        col.addLayout(head)
        intro = QLabel(self.tr("Your own mistakes and the new words of your calls. Each one comes back in a later "
                               "call until you use it right; three times in a row and it is mastered."))
        intro.setObjectName("Muted")
        intro.setWordWrap(True)
        col.addWidget(intro)
        tools = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search your practice…"))
        self.search.setAccessibleName(self.tr("Search practice"))
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _t: self._fill())
        self.filter = QComboBox()
        self.filter.setAccessibleName(self.tr("Show"))
        for choice in FILTERS:
            self.filter.addItem(self.tr(choice), choice)
        self.filter.currentIndexChanged.connect(lambda _i: self._fill())
        tools.addWidget(self.search, 1)
        tools.addWidget(self.filter)
        col.addLayout(tools)
        self.table = list_table([self.tr(c) for c in COLUMNS], self.tr("Practice items"), stretch=(0, 1),  # what was said, the better form
                                optional=(4, 2))  # narrow: no history marks, no type
        self.table.itemSelectionChanged.connect(self._selected)
        col.addWidget(self.table, 1)
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        col.addWidget(self.detail)
        buttons = QHBoxLayout()
        self.status = QLabel()
        self.status.setObjectName("Muted")
        buttons.addWidget(self.status, 1)
        self.delete_button = QPushButton(self.tr("Delete"))
        self.delete_button.setIcon(icon("trash", "bad", 16))
        self.delete_button.setProperty("danger", True)
        self.delete_button.setEnabled(False)
        self.delete_button.clicked.connect(self.delete_selected)
        buttons.addWidget(self.delete_button)
        col.addLayout(buttons)

    # -- data ----------------------------------------------------------------------------
    def refresh(self) -> None:
        if (factory := self._source_factory) is None:  # a build without the practice store
            self._loaded(([], datetime.now(timezone.utc)))
            return

        def load() -> tuple[list[PracticeItem], datetime]:
            source = factory()
            return source.items(), source.now()

        run_task(load, on_done=self._loaded, on_error=self._failed, context=self)

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt naming
        super().showEvent(event)
        self.refresh()  # a call may have added or reviewed items meanwhile

    def _loaded(self, result: tuple[list[PracticeItem], datetime]) -> None:
        self.items, self.now = result
        self.due_ids = {i.id for i in due_items(self.items, self.now)}
        mastered = sum(schedule.is_mastered(i.card) for i in self.items)
        self.summary.setText(self.tr("%1 for the next call · %2 mastered · %3 in all")
                             .replace("%1", str(len(self.due_ids))).replace("%2", str(mastered))
                             .replace("%3", str(len(self.items))))
        self._fill()
        self.loaded.emit()

    def _failed(self, exc: BaseException) -> None:
        self.status.setText(self.tr("Practice problem: %1").replace("%1", error_text(exc)))

    def shown(self) -> list[PracticeItem]:
        wanted = words(self.search.text())
        choice = self.filter.currentData()
        out = []
        for item in self.items:
            text = set(words(f"{item.said} {item.better} {item.why} {item.type}"))
            if wanted and not all(w in text for w in wanted):
                continue
            if (choice == "Due next call" and item.id not in self.due_ids
                    or choice == "Mastered" and not schedule.is_mastered(item.card)
                    or choice == "Mistakes" and item.kind != MISTAKE
                    or choice == "New words" and item.kind == MISTAKE):
                continue
            out.append(item)
        return out

    def _fill(self) -> None:
        shown = self.shown()
        self.table.setRowCount(len(shown))
        for row, item in enumerate(shown):
            history = " ".join(MARKS.get(r.outcome, "·") for r in item.reviews) or "—"
            cells = (item.said, item.better or self.tr("(new word)"), item.type or self.tr("word"), when_text(item, self.now), history)
            for column, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                cell.setData(Qt.ItemDataRole.UserRole, item.id)
                self.table.setItem(row, column, cell)
        if not self.items:
            self.detail.setText(self.tr("Nothing yet: after a call, the tutor's corrections and new words appear here."))
        elif not shown:
            self.detail.setText(self.tr("No item matches."))
        else:
            self.detail.setText("")
        self._selected()

    def selected(self) -> PracticeItem | None:
        cells = self.table.selectedItems()
        item_id = cells[0].data(Qt.ItemDataRole.UserRole) if cells else None
        return next((i for i in self.items if i.id == item_id), None)

    def _selected(self) -> None:
        item = self.selected()
        self.delete_button.setEnabled(item is not None)
        if item is None:
            return
        lines = [f"{item.said} → {item.better}" if item.better else item.said]
        if item.why:
            lines.append(self.tr("Why: %1").replace("%1", item.why))
        lines.append(self.tr("From your call of %1").replace("%1", _day(item.created_at)))
        for review in item.reviews:
            verdict = {"used": self.tr("you used the better form"), "said": self.tr("you used the word"),
                       "repeated": self.tr("the old form came back")}.get(review.outcome, review.outcome)
            lines.append(f"{_day(review.at)}: {verdict}" + (f": “{review.line}”" if review.line else ""))
        self.detail.setText("\n".join(lines))

    def confirm(self, title: str, text: str, action: str) -> bool:  # tests answer it here
        return confirm(self, title, text, action)

    def delete_selected(self) -> None:
        item = self.selected()
        if item is None:
            return
        if not self.confirm(self.tr("Delete practice item"),
                            self.tr("Forget “%1” and its history for good?").replace("%1", item.said), self.tr("Delete")):
            return
        self.status.setText(self.tr("Deleting…"))

        def done(_result: Any) -> None:
            self.status.setText(self.tr("Deleted."))
            self.refresh()

        factory = self._source_factory
        if factory is not None:
            run_task(lambda: factory().delete(item.id), on_done=done, on_error=self._failed, context=self)



def _day(iso: str) -> str:
    try:
        return short_date(datetime.fromisoformat(iso))
    except (TypeError, ValueError):
        return QCoreApplication.translate("PracticePage", "an earlier day")
