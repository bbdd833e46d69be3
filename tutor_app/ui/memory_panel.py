"""Memory: what the tutor remembers about the learner, as a profile and as a full list
with search, category filter, dates and source; edit, delete one, delete all, export,
pause memory; switch / create / delete local learner profiles.

Written against `MemorySource` (ui/memory_source.py); every store call runs in a worker.
"""
from __future__ import annotations

import logging
from datetime import datetime

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tutor_app.errors import error_text
from tutor_app.memory.storage.models import Memory
from tutor_app.settings import memory_on
from tutor_app.ui.memory_source import ProfileEntry, snapshot, source_text
from tutor_app.ui.page import confirm, list_table, page_layout, short_date
from tutor_app.ui.profile_card import ProfileCard
from tutor_app.ui.services import UiServices
from tutor_app.ui.theme import icon, theme
from tutor_app.ui.tr_mark import QT_TRANSLATE_NOOP
from tutor_app.ui.workers import run_task

log = logging.getLogger(__name__)

COLUMNS = (QT_TRANSLATE_NOOP("MemoryPanel", "Memory"), QT_TRANSLATE_NOOP("MemoryPanel", "Category"), QT_TRANSLATE_NOOP("MemoryPanel", "Source"), QT_TRANSLATE_NOOP("MemoryPanel", "Created"), QT_TRANSLATE_NOOP("MemoryPanel", "Last used"))
ALL = QT_TRANSLATE_NOOP("MemoryPanel", "All categories")  # shown as self.tr(ALL)


class MemoryPanel(QWidget):
    profileChanged = Signal(str)
    pausedChanged = Signal(bool)
    loaded = Signal()  # rows shown (after any change): for tests and the window

    def __init__(self, services: UiServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Page")
        self.services = services
        self.source = None
        self.rows: list[Memory] = []
        self.entries: list[ProfileEntry] = []
        self.hits: list[str] | None = None  # search result ids, None = no search
        self._build()
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(250)
        self._search_timer.timeout.connect(self._run_search)
        self.open_profile(services.settings.profile)

    # -- layout ---------------------------------------------------------------------
    def _build(self) -> None:
        col, head = page_layout(self, self.tr("Memory"))
        head.addWidget(QLabel(self.tr("Profile")))
        self.profile_box = QComboBox()
        self.profile_box.setAccessibleName(self.tr("Learner profile"))
        self.profile_box.setMinimumWidth(150)
        self.profile_box.activated.connect(lambda _i: self.switch_profile(self.profile_box.currentText()))
        head.addWidget(self.profile_box)
        self.new_profile_button = QPushButton(self.tr("New"))
        self.new_profile_button.setIcon(icon("plus", "text", 16))
        self.new_profile_button.setAccessibleName(self.tr("New profile"))
        self.new_profile_button.clicked.connect(self.new_profile)
        self.delete_profile_button = QPushButton(self.tr("Delete profile"))
        self.delete_profile_button.setProperty("danger", True)
        self.delete_profile_button.clicked.connect(self.delete_profile)
        head.addWidget(self.new_profile_button)
        head.addWidget(self.delete_profile_button)
        col.addLayout(head)

        pause_row = QHBoxLayout()
        self.pause = QCheckBox(self.tr("Pause memory: nothing new is remembered"))  # short: fits an 800 px window
        self.pause.setAccessibleName(self.tr("Pause memory"))
        self.pause.setToolTip(self.tr("The tutor remembers nothing new until you turn this off"))
        self.pause.setChecked(not memory_on(self.services.settings))
        self.pause.toggled.connect(self.set_paused)
        pause_row.addWidget(self.pause)
        self.status = QLabel()
        self.status.setObjectName("Muted")
        self.status.setWordWrap(True)  # a long problem wraps instead of pushing the page wider
        self.status.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        pause_row.addWidget(self.status, 1)
        col.addLayout(pause_row)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        col.addWidget(split, 1)
        self.profile_card = ProfileCard()
        split.addWidget(self.profile_card)

        right = QWidget()
        rcol = QVBoxLayout(right)
        rcol.setContentsMargins(12, 0, 0, 0)
        rcol.setSpacing(8)
        tools = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search memories…"))
        self.search.setAccessibleName(self.tr("Search memories"))
        self.search.addAction(icon("search", "muted", 16), QLineEdit.ActionPosition.LeadingPosition)
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.category = QComboBox()
        self.category.setAccessibleName(self.tr("Category filter"))
        self.category.addItem(self.tr(ALL))
        self.category.currentIndexChanged.connect(lambda _i: self._fill_table())
        self.show_history = QCheckBox(self.tr("Replaced values"))
        self.show_history.setToolTip(self.tr("Show older values that newer ones replaced"))
        self.show_history.toggled.connect(lambda _on: self._fill_table())
        tools.addWidget(self.search, 1)
        tools.addWidget(self.category)
        tools.addWidget(self.show_history)
        rcol.addLayout(tools)

        self.table = list_table([self.tr(c) for c in COLUMNS], self.tr("Memories"), stretch=0, optional=(2, 4))  # narrow: no source, last use
        header = self.table.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.table.verticalHeader().setDefaultSectionSize(34)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.doubleClicked.connect(lambda _i: self.edit_selected())
        rcol.addWidget(self.table, 1)
        self.empty = QLabel()
        self.empty.setObjectName("Muted")
        self.empty.setWordWrap(True)
        rcol.addWidget(self.empty)

        buttons = QHBoxLayout()
        self.edit_button = QPushButton(self.tr("Edit"))
        self.edit_button.setIcon(icon("edit", "text", 16))
        self.edit_button.clicked.connect(self.edit_selected)
        self.delete_button = QPushButton(self.tr("Delete"))
        self.delete_button.setIcon(icon("trash", "bad", 16))
        self.delete_button.setProperty("danger", True)
        self.delete_button.setAccessibleName(self.tr("Delete the selected memory"))
        self.delete_button.clicked.connect(self.delete_selected)
        self.export_button = QPushButton(self.tr("Export JSON"))
        self.export_button.setIcon(icon("export", "text", 16))
        self.export_button.clicked.connect(self.export)
        self.clear_button = QPushButton(self.tr("Delete all…"))
        self.clear_button.setProperty("danger", True)
        self.clear_button.setAccessibleName(self.tr("Delete all memories of this profile"))
        self.clear_button.clicked.connect(self.clear_all)
        for b in (self.edit_button, self.delete_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.clear_button)
        rcol.addLayout(buttons)
        split.addWidget(right)
        split.setSizes([250, 750])
        self._selection_changed()

    # -- dialogs (small methods so tests can answer them) ---------------------------------
    def confirm(self, title: str, text: str, action: str) -> bool:
        return confirm(self, title, text, action)

    def ask_text(self, title: str, label: str, text: str = "") -> str | None:
        value, ok = QInputDialog.getText(self, title, label, QLineEdit.EchoMode.Normal, text)
        return value.strip() if ok and value.strip() else None

    def ask_save_path(self) -> str | None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export memories"), f"tutor-memories-{self.profile}.json",
                                              "JSON (*.json)")
        return path or None

    # -- loading ------------------------------------------------------------------------
    @property
    def profile(self) -> str:
        return self.source.profile if self.source is not None else self.services.settings.profile

    def open_profile(self, name: str) -> None:
        if self.services.memory is None:
            self.status.setText(self.tr("Memory is not available in this build."))
            return
        self.status.setText(self.tr("Loading…"))

        def work():
            source = self.services.memory(name)
            return source, snapshot(source), source.profiles()

        run_task(work, on_done=self._opened, on_error=self._failed, context=self)

    def _opened(self, result) -> None:
        self.source, rows, profiles = result
        self._set_profiles(profiles)
        self._show_rows(rows)

    def _set_profiles(self, profiles: list[str]) -> None:
        self.profile_box.blockSignals(True)
        self.profile_box.clear()
        self.profile_box.addItems(profiles)
        self.profile_box.setCurrentText(self.profile)
        self.profile_box.blockSignals(False)
        self.delete_profile_button.setEnabled(len(profiles) > 1)

    def reload(self) -> None:
        source = self.source
        if source is not None:
            run_task(lambda: snapshot(source), on_done=self._show_rows, on_error=self._failed, context=self)

    def _failed(self, exc: BaseException) -> None:
        self.status.setText(self.tr("Memory problem: %1").replace("%1", error_text(exc)))
        log.warning("memory panel: %s", exc)
        self._set_busy(False)

    def _show_rows(self, shown: tuple[list[Memory], list[ProfileEntry]]) -> None:
        rows, self.entries = shown
        self.rows = list(rows)
        current = [r for r in self.rows if r.current]
        replaced = len(self.rows) - len(current)
        self.status.setText(self.tr("%n memories", "", len(current))
                            + (self.tr(", %n replaced", "", replaced) if replaced else ""))
        cats = sorted({r.category or "other" for r in self.rows})
        chosen = self.category.currentText()
        self.category.blockSignals(True)
        self.category.clear()
        self.category.addItem(self.tr(ALL))
        self.category.addItems(cats)
        self.category.setCurrentText(chosen if chosen in cats else self.tr(ALL))
        self.category.blockSignals(False)
        self.profile_card.set_entries(self.profile, self.entries)
        self._fill_table()
        self._set_busy(False)
        self.loaded.emit()

    def _visible_rows(self) -> list[Memory]:
        rows = self.rows if self.show_history.isChecked() else [r for r in self.rows if r.current]
        cat = self.category.currentText()
        if cat and cat != self.tr(ALL):
            rows = [r for r in rows if (r.category or "other") == cat]
        if self.hits is not None:
            rank = {mid: i for i, mid in enumerate(self.hits)}
            rows = sorted((r for r in rows if r.id in rank), key=lambda r: rank[r.id])
        else:
            rows = sorted(rows, key=lambda r: r.created_at or datetime.min.astimezone(), reverse=True)
        return rows

    def _fill_table(self) -> None:
        rows = self._visible_rows()
        self.table.setRowCount(len(rows))
        muted = QColor(theme().colors["muted"])
        for i, r in enumerate(rows):
            text = r.text if r.current else self.tr("%1  (replaced)").replace("%1", r.text)
            cells = (text, r.category or "other", self.tr(source_text(r.source)), short_date(r.created_at), short_date(r.accessed_at))
            for c, value in enumerate(cells):
                item = QTableWidgetItem(value)
                item.setData(Qt.ItemDataRole.UserRole, r.id)
                if c == 0:
                    item.setToolTip(r.text)
                if not r.current:
                    item.setForeground(muted)
                self.table.setItem(i, c, item)
        if not self.rows:
            self.empty.setText(self.tr("Nothing remembered yet. Talk with your tutor and it will remember what you "
                                       "share: your name, your job, what you are working towards."))
        elif not rows:
            self.empty.setText(self.tr("No memory matches."))
        else:
            self.empty.setText("")
        self.empty.setVisible(bool(self.empty.text()))
        self._selection_changed()

    def _run_search(self) -> None:
        query = self.search.text().strip()
        if not query or self.source is None:
            self.hits = None
            self._fill_table()
            return
        # Literal matches at once (the rows are here); the store's search by meaning
        # (which may first load the embedder) refines the list when it answers.
        words = query.lower().split()
        self.hits = [r.id for r in self.rows if all(w in r.text.lower() for w in words)]
        self._fill_table()
        self.status.setText(self.tr("Searching…"))
        source = self.source

        def done(ids: list[str]) -> None:
            if self.search.text().strip() == query:  # ignore answers to an older query
                self.hits = list(ids)
                self._fill_table()
                found = self.table.rowCount()
                self.status.setText(self.tr("%n found", "", found))
                self.loaded.emit()

        run_task(lambda: source.search(query), on_done=done, on_error=self._failed, context=self)

    # -- actions ----------------------------------------------------------------------
    def selected_id(self) -> str | None:
        items = self.table.selectedItems()
        return items[0].data(Qt.ItemDataRole.UserRole) if items else None

    def _selection_changed(self) -> None:
        chosen = self.selected_id() is not None
        self.edit_button.setEnabled(chosen)
        self.delete_button.setEnabled(chosen)
        has_rows = bool(self.rows)
        self.clear_button.setEnabled(has_rows)
        self.export_button.setEnabled(has_rows)

    def _set_busy(self, busy: bool) -> None:
        for b in (self.clear_button, self.export_button, self.new_profile_button, self.profile_box):
            b.setEnabled(not busy)
        if not busy:
            self._selection_changed()
            self.delete_profile_button.setEnabled(self.profile_box.count() > 1)

    def _change(self, fn, done_text: str) -> None:
        """Run a store change in a worker, then reload."""
        source = self.source
        if source is None:
            return
        self._set_busy(True)

        def work():
            fn(source)
            return snapshot(source)

        def done(rows) -> None:
            self._show_rows(rows)
            self.status.setText(done_text)
            if self.search.text().strip():
                self._run_search()

        run_task(work, on_done=done, on_error=self._failed, context=self)

    def delete_selected(self) -> None:
        mem_id = self.selected_id()
        row = next((r for r in self.rows if r.id == mem_id), None)
        if row is None:
            return
        if self.confirm(self.tr("Delete memory"),
                        self.tr("Forget this?\n\n“%1”\n\nIt is erased from this computer.").replace("%1", row.text),
                        self.tr("Delete")):
            self._change(lambda s: s.delete(mem_id), self.tr("Deleted."))

    def clear_all(self) -> None:
        n = sum(1 for r in self.rows if r.current)
        if self.confirm(self.tr("Delete all memories"),
                        self.tr("Erase everything the tutor remembers about %1 (%n memories), including past call "
                                "transcripts and reports? This cannot be undone.", "", n).replace("%1", self.profile),
                        self.tr("Delete everything")):
            self._change(lambda s: s.clear(), self.tr("Everything was deleted."))

    def edit_selected(self) -> None:
        mem_id = self.selected_id()
        row = next((r for r in self.rows if r.id == mem_id), None)
        if row is None or not row.current:
            return
        text = self.ask_text(self.tr("Edit memory"), self.tr("What should the tutor remember instead?"), row.text)
        if text and text != row.text:
            self._change(lambda s: s.update(mem_id, text), self.tr("Saved."))

    def export(self) -> None:
        path = self.ask_save_path()
        if not path or self.source is None:
            return
        source = self.source
        run_task(lambda: source.export(path),
                 on_done=lambda n: self.status.setText(self.tr("Exported %n memories.", "", n)), on_error=self._failed, context=self)

    def set_paused(self, paused: bool) -> None:
        self.status.setText(self.tr("Memory paused.") if paused else self.tr("Memory on."))
        try:
            self.services.settings_store.update(lambda s: setattr(s.memory, "enabled", not paused))
        except OSError as exc:  # still paused for this run: only the file keeps the old value
            self.status.setText(self.tr("Could not save: %1").replace("%1", str(exc)))
        self.pausedChanged.emit(paused)

    def switch_profile(self, name: str) -> None:
        if not name or name == self.profile:
            return
        try:
            self.services.settings_store.update(lambda s: setattr(s, "profile", name))
        except OSError as exc:
            self.status.setText(self.tr("Could not save: %1").replace("%1", str(exc)))
        self.search.clear()
        self.hits = None
        self.open_profile(name)
        self.profileChanged.emit(name)

    def new_profile(self) -> None:
        name = self.ask_text(self.tr("New profile"), self.tr("Learner name for the new profile:"))
        if not name:
            return
        if self.source is not None and hasattr(self.source, "add_profile"):
            self.source.add_profile(name)
        self.switch_profile(name)

    def delete_profile(self) -> None:
        name = self.profile
        others = [self.profile_box.itemText(i) for i in range(self.profile_box.count())
                  if self.profile_box.itemText(i) != name]
        if not others or self.source is None:
            return
        if not self.confirm(self.tr("Delete profile"), self.tr("Delete the profile %1 and everything the tutor "
                                                               "remembers about it? This cannot be undone.")
                            .replace("%1", name), self.tr("Delete profile")):
            return
        source = self.source
        run_task(lambda: source.delete_profile(name), on_done=lambda _r: self.switch_profile(others[0]),
                 on_error=self._failed, context=self)
