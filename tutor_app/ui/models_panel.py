"""Models: what is installed, its size, licence, source and where it runs; install with a
progress bar and cancel (registry.install with a progress callback and a CancelToken);
checksum failures and other errors shown on the row. Above the table, the offline tutor
model suggested for this computer (ui/model_suggestion.py), installed and chosen here."""
from __future__ import annotations

import logging
from contextlib import suppress
from typing import Any

from PySide6.QtCore import QCoreApplication, QLocale, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QTableWidgetItem, QWidget

from tutor_app.core.cancel import CancelToken
from tutor_app.errors import error_text
from tutor_app.ui.model_suggestion import SuggestionCard, source_note
from tutor_app.ui.page import list_table, page_layout
from tutor_app.ui.services import UiServices
from tutor_app.ui.theme import icon, theme
from tutor_app.ui.tr_mark import QT_TRANSLATE_NOOP
from tutor_app.ui.workers import run_task

log = logging.getLogger(__name__)

# Shown translated (self.tr of the value).
STATE_TEXT = {"installed": QT_TRANSLATE_NOOP("ModelsPanel", "Installed"), "in-package": QT_TRANSLATE_NOOP("ModelsPanel", "Ready (bundled)"), "missing": QT_TRANSLATE_NOOP("ModelsPanel", "Not installed"),
              "corrupt": QT_TRANSLATE_NOOP("ModelsPanel", "Damaged"), "online-only": QT_TRANSLATE_NOOP("ModelsPanel", "Not downloaded")}
ROLE_TEXT = {"stt": QT_TRANSLATE_NOOP("ModelsPanel", "Speech recognition"), "tts": QT_TRANSLATE_NOOP("ModelsPanel", "Voice"), "embedder": QT_TRANSLATE_NOOP("ModelsPanel", "Memory search"),
             "emotion": QT_TRANSLATE_NOOP("ModelsPanel", "Emotion"), "llm-local": QT_TRANSLATE_NOOP("ModelsPanel", "Offline tutor"), "vad": QT_TRANSLATE_NOOP("ModelsPanel", "Voice detection"),
             "turn": QT_TRANSLATE_NOOP("ModelsPanel", "End of turn")}
SOURCE_TEXT = {"package": QT_TRANSLATE_NOOP("ModelsPanel", "pip package"), "hub": "Hugging Face", "asset": QT_TRANSLATE_NOOP("ModelsPanel", "with the app")}
COLUMNS = (QT_TRANSLATE_NOOP("ModelsPanel", "Model"), QT_TRANSLATE_NOOP("ModelsPanel", "Used for"), QT_TRANSLATE_NOOP("ModelsPanel", "Status"), QT_TRANSLATE_NOOP("ModelsPanel", "Size"), QT_TRANSLATE_NOOP("ModelsPanel", "Licence"), QT_TRANSLATE_NOOP("ModelsPanel", "Source"), "")


def _mb(n: int, unit: bool = True) -> str:
    text = f"{n / 1e6:.0f}" if n >= 10e6 else f"{n / 1e6:.1f}"
    return QCoreApplication.translate("ModelsPanel", "%1 MB").replace("%1", text) if unit else text


class ModelsPanel(QWidget):
    installed = Signal(str)  # a model finished installing

    def __init__(self, services: UiServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Page")
        self.services = services
        self.statuses: list[Any] = []
        self.installing: str | None = None
        self.cancel_token: CancelToken | None = None
        self.errors: dict[str, str] = {}  # model -> last install error
        self.notice = ""  # outcome of the last install, shown above the table
        self.pick: Any = None  # the suggested offline tutor model (registry.recommend)
        col, head = page_layout(self, self.tr("Models"))
        self.refresh_button = QPushButton(self.tr("Check again"))
        self.refresh_button.setIcon(icon("refresh", "text", 16))
        self.refresh_button.setAccessibleName(self.tr("Check the models again"))
        self.refresh_button.clicked.connect(self.refresh)
        head.addWidget(self.refresh_button)
        col.addLayout(head)
        self.summary = QLabel(self.tr("Checking…"))
        self.summary.setObjectName("Muted")
        self.summary.setWordWrap(True)
        col.addWidget(self.summary)
        self.suggestion = SuggestionCard()
        self.suggestion.install_requested.connect(self.install)
        self.suggestion.use_requested.connect(self.use_model)
        self.suggestion.hide()  # until the hardware has been read
        col.addWidget(self.suggestion)

        # The model's name takes the room; licences and the rest shrink, elided, the full
        # text in the tooltip; the Install / Download column always stays in view.
        self.table = list_table([self.tr(c) if c else "" for c in COLUMNS], self.tr("Models"), stretch=0, fixed={len(COLUMNS) - 1: 132},
                                optional=(5, 4, 1))  # narrow: no source, licence, role
        header = self.table.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.table.verticalHeader().setDefaultSectionSize(44)
        col.addWidget(self.table, 1)
        self.problems = QLabel()
        self.problems.setObjectName("ProblemText")
        self.problems.setWordWrap(True)
        self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problems.setAccessibleName(self.tr("Model problems"))
        self.problems.hide()
        col.addWidget(self.problems)

        bar_row = QHBoxLayout()
        self.progress_label = QLabel()
        self.progress_label.setObjectName("Muted")
        self.progress = QProgressBar()
        self.progress.setObjectName("InstallBar")
        self.progress.setTextVisible(False)
        self.progress.setAccessibleName(self.tr("Install progress"))
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setAccessibleName(self.tr("Cancel the install"))
        self.cancel_button.clicked.connect(self.cancel)
        bar_row.addWidget(self.progress_label)
        bar_row.addWidget(self.progress, 1)
        bar_row.addWidget(self.cancel_button)
        col.addLayout(bar_row)
        self._show_progress(False)
        self.device_label = QLabel()
        self.device_label.setObjectName("Muted")
        col.addWidget(self.device_label)
        self.refresh()

    # -- status -----------------------------------------------------------------------
    def refresh(self) -> None:
        self.refresh_button.setEnabled(False)
        self.summary.setText(self.tr("Checking the models (verifying checksums)…"))
        run_task(lambda: self.services.registry().statuses(verify=True), on_done=self._show_statuses,
                 on_error=self._status_failed, context=self)
        run_task(self.services.compute, on_done=lambda text: self.device_label.setText(
            self.tr("Speech recognition runs on: %1").replace("%1", text) if text else ""), on_error=lambda e: None, context=self)
        if self.services.recommend is not None:  # reads RAM / GPU: probes take a moment
            run_task(self.services.recommend, on_done=self._show_pick, on_error=self._pick_failed, context=self)

    def _status_failed(self, exc: BaseException) -> None:
        self.refresh_button.setEnabled(True)
        self.summary.setText(self.tr("Cannot read the model list: %1").replace("%1", error_text(exc)))

    def _show_statuses(self, statuses: list[Any]) -> None:
        self.refresh_button.setEnabled(True)
        self.statuses = list(statuses)
        self.table.setRowCount(len(self.statuses))
        for row, st in enumerate(self.statuses):
            spec = st.spec
            name = self._row_name(spec)
            state = self.tr(STATE_TEXT[st.state]) if st.state in STATE_TEXT else st.state
            detail = self.errors.get(spec.name) or (st.detail if st.state in ("corrupt", "missing") else "")
            if spec.name in self.errors:
                state = self.tr("Install failed")
            cells = (name, self.tr(ROLE_TEXT[spec.role]) if spec.role in ROLE_TEXT else spec.role, state,
                     self.tr("%1 MB").replace("%1", QLocale().toString(float(spec.size_mb), "f",
                                                                         0 if spec.size_mb >= 1 else 1)),
                     spec.license, self.tr(SOURCE_TEXT[spec.source]) if spec.source in SOURCE_TEXT else spec.source)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(detail if c == 2 and detail else (spec.description or text) if c == 0
                                else source_note(spec) if c == 5 else text)
                if c == 2 and (st.state == "corrupt" or spec.name in self.errors):
                    item.setForeground(QColor(theme().colors["bad"]))
                elif c == 2 and st.usable:
                    item.setForeground(QColor(theme().colors["good"]))
                self.table.setItem(row, c, item)
            self.table.setCellWidget(row, len(COLUMNS) - 1, self._action_for(st))
        problems = []
        for st in self.statuses:
            why = self.errors.get(st.spec.name) or (st.detail if st.state == "corrupt" else "")
            if why:
                problems.append(f"{st.spec.name}: {why}")
            elif st.state == "missing" and st.spec.default and st.detail:
                problems.append(f"{st.spec.name}: {st.detail}")
        self.problems.setText("\n".join(problems))
        self.problems.setVisible(bool(problems))
        missing = [s.spec.name for s in self.statuses if s.spec.default and not s.usable]
        if missing:
            self.summary.setText(self.tr("To talk with your tutor offline, install: %1. Everything installs from "
                                         "this computer; no download needed.").replace("%1", ", ".join(missing)))
        else:
            self.summary.setText(self.tr("Everything needed to practise offline is here. Larger models "
                                         "(better accuracy) download when you are online."))
        if self.notice:
            self.summary.setText(self.notice)
        self._update_suggestion()

    def _row_name(self, spec: Any) -> str:
        marks = [self.tr("bundled default") if spec.default and spec.role == "llm-local"
                 else self.tr("default") if spec.default else "",
                 self.tr("suggested") if self.pick is not None and spec.name == self.pick.name else ""]
        return "  ·  ".join([spec.name, *(m for m in marks if m)])

    # -- suggestion -----------------------------------------------------------------------
    def _show_pick(self, pick: Any) -> None:
        self.pick = pick
        for row, st in enumerate(self.statuses):
            item = self.table.item(row, 0)
            if item is not None:
                item.setText(self._row_name(st.spec))
        self._update_suggestion()

    def _pick_failed(self, exc: BaseException) -> None:
        self.suggestion.hide()
        log.info("no local model suggestion: %s", error_text(exc))

    def _update_suggestion(self) -> None:
        status = next((s for s in self.statuses if self.pick is not None and s.spec.name == self.pick.name), None)
        if status is None:
            return  # the other half (statuses or the hardware reading) is still on its way
        default = next((s.spec.name for s in self.statuses if s.spec.role == "llm-local" and s.spec.default), "")
        self.suggestion.show_pick(self.pick, status, self.services.settings.llm.local_model, default,
                                  busy=self.installing is not None)

    def use_model(self, name: str) -> None:
        """Make `name` the offline tutor model and save the settings (as the Settings window does)."""
        if self.installing is not None:
            return
        store = self.services.settings_store
        before = store.settings.llm.local_model

        def saved(_path: Any) -> None:
            self.notice = self.tr("Saved: the offline tutor uses %1 from now on "
                                  "(after a restart if it was already loaded).").replace("%1", name)
            self.summary.setText(self.notice)
            self._update_suggestion()

        def failed(exc: BaseException) -> None:
            with suppress(OSError):  # nothing half-changed: back to what the file still holds
                store.update(lambda s: setattr(s.llm, "local_model", before))
            self.notice = (self.tr("%1 was not chosen: the settings could not be saved: %2").replace("%1", name)
                           .replace("%2", error_text(exc)))
            self.summary.setText(self.notice)
            self._update_suggestion()

        self.suggestion.set_busy(True)
        run_task(lambda: store.update(lambda s: setattr(s.llm, "local_model", name)),
                 on_done=saved, on_error=failed, context=self)

    def _action_for(self, st: Any) -> QWidget:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(4, 2, 8, 2)
        name = st.spec.name
        if (st.state == "installed" and name not in self.errors) or st.spec.source == "asset":
            return box  # assets ship with the app: nothing to install (the problem line says so)
        text = {"corrupt": self.tr("Repair"), "online-only": self.tr("Download")}.get(st.state, self.tr("Install"))
        button = QPushButton(text)
        button.setObjectName(f"install-{name}")
        button.setAccessibleName(f"{text} {name}")
        button.setEnabled(self.installing is None)
        if st.state in ("missing", "corrupt") and st.spec.default:
            button.setProperty("primary", True)
        button.clicked.connect(lambda _=False, n=name: self.install(n))
        row.addWidget(button)
        return box

    # -- install ------------------------------------------------------------------------
    def install(self, name: str) -> None:
        if self.installing is not None or self.services.install is None:
            return
        self.installing = name
        self.notice = ""
        self.errors.pop(name, None)
        self.cancel_token = token = CancelToken()
        self._set_buttons_enabled(False)
        self._show_progress(True)
        self.progress.setRange(0, 0)
        self.progress_label.setText(self.tr("Installing %1…").replace("%1", name))
        install, registry = self.services.install, self.services.registry

        def work(progress):
            return install(registry(), name, progress=progress, cancel=token, force=True)

        run_task(work, on_done=lambda _r: self._finished(name, None),
                 on_error=lambda exc: self._finished(name, exc), on_progress=self._on_progress, context=self)

    def cancel(self) -> None:
        if self.cancel_token is not None:
            self.cancel_token.cancel()
            self.cancel_button.setEnabled(False)
            self.progress_label.setText(self.tr("Cancelling…"))

    def _on_progress(self, done: int, total: int, what: str) -> None:
        if total > 0:
            # QProgressBar is int32: scale bytes to per-mille.
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * min(done, total) / total))
            self.progress_label.setText(self.tr("%1: %2 of %3").replace("%1", str(self.installing))
                                        .replace("%2", _mb(done, unit=False)).replace("%3", _mb(total)))
        else:
            self.progress.setRange(0, 0)
            self.progress_label.setText(f"{self.installing}: {what}")
        self.progress.setAccessibleDescription(self.progress_label.text())

    def _finished(self, name: str, exc: BaseException | None) -> None:
        from tutor_app.registry.install import InstallCancelled

        self.installing, self.cancel_token = None, None
        self._show_progress(False)
        if exc is None:
            self.notice = self.tr("%1 installed.").replace("%1", name)
            self.installed.emit(name)
        elif isinstance(exc, InstallCancelled):
            self.notice = self.tr("Install of %1 cancelled. Nothing was changed.").replace("%1", name)
        else:
            self.errors[name] = error_text(exc)
            self.notice = self.tr("%1 was not installed: %2").replace("%1", name).replace("%2", self.errors[name])
            log.warning("install of %s failed: %s", name, exc)
        self.summary.setText(self.notice)
        self.refresh()

    def _show_progress(self, on: bool) -> None:
        for w in (self.progress, self.cancel_button, self.progress_label):
            w.setVisible(on)
        self.cancel_button.setEnabled(on)

    def _set_buttons_enabled(self, on: bool) -> None:
        self.suggestion.set_busy(not on)
        for row in range(self.table.rowCount()):
            cell = self.table.cellWidget(row, len(COLUMNS) - 1)
            if cell is not None:
                for b in cell.findChildren(QPushButton):
                    b.setEnabled(on)
