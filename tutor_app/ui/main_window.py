"""The main window: a quiet sidebar (Call, Progress, Memory, Models, Settings), a banner
for problems, and the pages. Shown at once; models warm up in the background with a
progress indicator in the status bar."""
from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QCoreApplication, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QProgressBar,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from tutor_app.errors import error_text
from tutor_app.settings import memory_on
from tutor_app.startup import WarmResult, run_startup, warm_service
from tutor_app.ui.banner import Banner, BannerAction
from tutor_app.ui.bridge import CallBridge
from tutor_app.ui.call_view import CallView
from tutor_app.ui.report_view import HistoryView
from tutor_app.ui.services import UiServices
from tutor_app.ui.settings_watch import SettingsWatch
from tutor_app.ui.theme import icon
from tutor_app.ui.tr_mark import QT_TRANSLATE_NOOP
from tutor_app.ui.workers import run_task

log = logging.getLogger(__name__)

PAGES = (("call", QT_TRANSLATE_NOOP("MainWindow", "Call"), "phone"), ("progress", QT_TRANSLATE_NOOP("MainWindow", "Progress"), "chart"),
         ("practice", QT_TRANSLATE_NOOP("MainWindow", "Practice"), "refresh"), ("memory", QT_TRANSLATE_NOOP("MainWindow", "Memory"), "memory"),
         ("models", QT_TRANSLATE_NOOP("MainWindow", "Models"), "box"))


class MainWindow(QMainWindow):
    warmedUp = Signal(object)  # WarmResult, after the background warm-up
    lostCallsShown = Signal(int)  # calls a crash cut off, finished and shown (after warmedUp)

    def __init__(self, services: UiServices, bridge: CallBridge | None = None, warm_up: bool = True) -> None:
        super().__init__()
        self.services = services
        self.bridge = bridge or CallBridge(factory=services.make_backend, parent=self, tutor=services.tutor)
        self.warm_result: WarmResult | None = None
        self.setWindowTitle(self.tr("English speaking practice"))  # Qt appends " — Tutor" (the display name)
        self.setWindowIcon(icon("phone", "accent", 64))
        self.resize(1120, 740)
        self.setMinimumSize(800, 600)  # every page fits from here up (tests/ui/test_layout_fit.py)
        self._pages: dict[str, QWidget] = {}
        self._build()
        # A change made anywhere (a panel, the Settings window, a speed asked for in a call) shows here.
        self.settings_watch = SettingsWatch(services.settings_store, self)
        self.settings_watch.changed.connect(self._update_profile_label)
        self.settings_watch.changed.connect(lambda *_: self.call_view.refresh_tutor())  # a model picked, a key added
        if warm_up:
            QTimer.singleShot(0, self.start_background_work)

    # -- layout ---------------------------------------------------------------------
    def _build(self) -> None:
        root = QWidget()
        row = QHBoxLayout(root)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self._sidebar())
        right = QWidget()
        col = QVBoxLayout(right)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(0)
        self.banner = Banner()
        self.banner.actionRequested.connect(self._banner_action)
        banner_box = QWidget()
        bl = QVBoxLayout(banner_box)
        bl.setContentsMargins(24, 14, 24, 0)
        bl.addWidget(self.banner)
        col.addWidget(banner_box)
        self.stack = QStackedWidget()
        col.addWidget(self.stack, 1)
        row.addWidget(right, 1)
        self.setCentralWidget(root)

        self.call_view = CallView(self.bridge)
        self.call_view.problemRaised.connect(self.show_problem)
        self.call_view.reportReady.connect(self._on_report)
        self.call_view.callStarting.connect(self._clear_call_problems)
        self.call_view.modelsRequested.connect(lambda: self.show_page("models"))
        self.history = HistoryView()
        self._add_page("call", self.call_view)
        self._add_page("progress", self.history)
        self._lazy = {"practice": self._make_practice, "memory": self._make_memory, "models": self._make_models}
        for name in self._lazy:
            self._add_page(name, QWidget())

        bar = self.statusBar()
        bar.setSizeGripEnabled(False)
        self.warm_label = QLabel(self.tr("Getting ready…"))
        self.warm_label.setObjectName("Muted")
        self.warm_bar = QProgressBar()
        self.warm_bar.setObjectName("WarmBar")
        self.warm_bar.setFixedWidth(140)
        self.warm_bar.setFixedHeight(6)
        self.warm_bar.setTextVisible(False)
        self.warm_bar.setRange(0, 0)
        self.warm_bar.setAccessibleName(self.tr("Loading models"))
        self.profile_label = QLabel()
        self.profile_label.setObjectName("Muted")
        self.warm_box = QWidget()
        wl = QHBoxLayout(self.warm_box)
        wl.setContentsMargins(12, 0, 0, 0)
        wl.addWidget(self.warm_bar)
        bar.addWidget(self.warm_box)
        bar.addWidget(self.warm_label, 1)
        bar.addPermanentWidget(self.profile_label)
        self._update_profile_label()
        self.show_page("call")

    def _sidebar(self) -> QWidget:
        side = QFrame()
        side.setObjectName("Sidebar")
        side.setFixedWidth(104)
        col = QVBoxLayout(side)
        col.setContentsMargins(10, 18, 10, 14)
        col.setSpacing(6)
        brand = QLabel("Tutor")
        brand.setObjectName("Brand")
        brand.setAlignment(Qt.AlignmentFlag.AlignCenter)
        col.addWidget(brand)
        col.addSpacing(10)
        self.nav = QButtonGroup(self)
        self.nav.setExclusive(True)
        self._nav_buttons: dict[str, QToolButton] = {}
        for key, text, icon_name in PAGES:
            b = self._nav_button(QCoreApplication.translate("MainWindow", text), icon_name)
            b.setCheckable(True)
            b.clicked.connect(lambda _=False, k=key: self.show_page(k))
            self.nav.addButton(b)
            self._nav_buttons[key] = b
            col.addWidget(b)
        col.addStretch(1)
        self.settings_button = self._nav_button(self.tr("Settings"), "settings")
        self.settings_button.clicked.connect(self.open_settings)
        col.addWidget(self.settings_button)
        return side

    def _nav_button(self, text: str, icon_name: str) -> QToolButton:
        b = QToolButton()
        b.setObjectName("NavButton")
        b.setText(text)
        b.setIcon(icon(icon_name, "muted", 22))
        b.setIconSize(QSize(22, 22))
        b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextUnderIcon)
        b.setAccessibleName(text)
        b.setCursor(Qt.CursorShape.PointingHandCursor)
        b.setSizePolicy(b.sizePolicy().horizontalPolicy(), b.sizePolicy().verticalPolicy())
        b.setMinimumSize(84, 62)
        return b

    def _add_page(self, name: str, widget: QWidget) -> None:
        if name in self._pages:
            old = self._pages[name]
            index = self.stack.indexOf(old)
            self.stack.removeWidget(old)
            old.deleteLater()
            self.stack.insertWidget(index, widget)
        else:
            self.stack.addWidget(widget)
        self._pages[name] = widget

    def page(self, name: str) -> QWidget:
        if name in self._lazy:
            self._add_page(name, self._lazy.pop(name)())
        return self._pages[name]

    def show_page(self, name: str) -> None:
        widget = self.page(name)
        self.stack.setCurrentWidget(widget)
        if name in self._nav_buttons:
            self._nav_buttons[name].setChecked(True)
        if name == "call":
            self.call_view.setFocus()

    def _make_memory(self) -> QWidget:
        from tutor_app.ui.memory_panel import MemoryPanel

        panel = MemoryPanel(self.services)
        panel.profileChanged.connect(self._profile_changed)
        return panel

    def _make_practice(self) -> QWidget:
        from tutor_app.ui.practice_page import PracticePage

        return PracticePage(self.services.practice)

    def _make_models(self) -> QWidget:
        from tutor_app.ui.models_panel import ModelsPanel

        panel = ModelsPanel(self.services)
        panel.installed.connect(lambda _name: self.start_background_work())
        return panel

    # -- actions ----------------------------------------------------------------------
    def open_settings(self) -> None:
        from tutor_app.ui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.services, self)
        dialog.exec()  # what it saved reaches the label through settings_watch

    def show_problem(self, kind: str, message: str) -> None:
        action = None
        if kind == "api-key":
            action = BannerAction(self.tr("Open settings"), "settings")
        elif kind == "models":
            action = BannerAction(self.tr("Open models"), "models")
        self.banner.show_problem(kind, message, action)

    def _banner_action(self, key: str) -> None:
        if key == "settings":
            self.open_settings()
        elif key in self._pages:
            self.show_page(key)

    def _clear_call_problems(self) -> None:
        # Problems of the previous call are stale; still-true ones come back at once.
        if self.banner.isVisible() and self.banner.kind != "models":
            self.banner.dismiss()

    def _on_report(self, _session_id: str, report: dict[str, Any]) -> None:
        self.history.add_report(report)
        if self.stack.currentWidget() is self.call_view and not self.bridge.in_call:
            self.show_page("progress")  # the report of the call that just ended

    def _profile_changed(self, name: str) -> None:
        self._update_profile_label()
        self.services.on_profile_changed(name)
        self.load_history()

    def _update_profile_label(self) -> None:
        s = self.services.settings
        paused = not memory_on(s)
        self.profile_label.setText(self.tr("Profile: %1").replace("%1", s.profile)
                                   + (self.tr(" · memory paused") if paused else ""))
        self.call_view.set_memory_paused(paused)

    # -- background -------------------------------------------------------------------
    def start_background_work(self) -> None:
        if self.bridge.closed:
            return  # the window closed before the event loop got here
        self.warm_box.show()
        self.warm_bar.setRange(0, 0)
        self.warm_label.setText(self.tr("Getting ready…"))
        self.call_view.set_ready(False)
        services, bridge = self.services, self.bridge

        def job(progress) -> WarmResult:
            backend_warm_up = (lambda: warm_service(bridge.backend())) if bridge.available else None
            return run_startup(services.registry, services.warm_up_steps,
                               lambda p: progress(p.done, p.total, p.what), backend_warm_up)

        run_task(job, on_done=self._warmed, on_error=lambda e: self._warmed(WarmResult(problems=[("startup", error_text(e))])),
                 on_progress=self._warm_progress, executor=bridge.run_setup, context=self)
        self.load_history()

    def _warm_progress(self, done: int, total: int, what: str) -> None:
        if total:
            # Half a step ahead: the bar moves as soon as a part starts loading.
            self.warm_bar.setRange(0, 2 * total)
            self.warm_bar.setValue(min(2 * total, 2 * done + 1))
        self.warm_label.setText(self.tr("Getting ready: %1…").replace("%1", QCoreApplication.translate("Startup", what))
                                if what != "ready" else self.tr("Ready"))

    def _warmed(self, result: WarmResult) -> None:
        self.warm_result = result
        self.warm_box.hide()
        self.call_view.set_ready(True, self.tr("Install the missing models (Models page) to talk with your tutor.")
                                 if result.missing else "")
        if result.missing:
            self.warm_label.setText(self.tr("Models missing"))
            self.banner.show_problem(
                "models", self.tr("install %1 to start talking. It works offline and takes a minute.")
                .replace("%1", ", ".join(result.missing)), BannerAction(self.tr("Open models"), "models"))
        elif result.optional_missing and not result.problems:
            self.warm_label.setText(self.tr("Ready"))
            self.banner.show_message("warning", self.tr("Some models are missing"),
                                     self.tr("%1: the tutor works without them, with less to offer.")
                                     .replace("%1", ", ".join(result.optional_missing)), BannerAction(self.tr("Open models"), "models"))
        elif result.problems:
            first: dict[str, tuple[str, str]] = {}  # one cause often breaks several parts: say it once
            result.problems = [first.setdefault(p[1], p) for p in result.problems if p[1] not in first]
            self.warm_label.setText(self.tr("Ready, with problems"))
            self.warm_label.setToolTip("\n".join(f"{QCoreApplication.translate('Startup', what)}: {msg}" for what, msg in result.problems))
            what, msg = result.problems[0]
            more = self.tr(" (and %n more)", "", len(result.problems) - 1) if len(result.problems) > 1 else ""
            self.banner.show_problem("other", f"{QCoreApplication.translate('Startup', what)}: {msg}{more}")
        else:
            self.warm_label.setText(self.tr("Ready"))
            if self.banner.kind == "models":
                self.banner.dismiss()
        # The warm-up started the recovery of calls a crash cut off (after an install too).
        run_task(self.services.lost_calls, on_done=self._show_lost_calls,
                 on_error=lambda e: log.warning("unfinished calls: %s", error_text(e)), context=self)
        self.warmedUp.emit(result)

    def _show_lost_calls(self, reports: list[dict[str, Any]]) -> None:
        """Calls a crash cut off, finished by this start's recovery: told, and in Past calls."""
        if not reports:
            return
        for report in reports:
            self.history.add_report(report)
        self.banner.show_message("info", self.tr("Your last call ended unexpectedly") if len(reports) == 1 else
                                 self.tr("Your last %n calls ended unexpectedly", "", len(reports)),
                                 self.tr("its report is ready") if len(reports) == 1 else self.tr("their reports are ready"),
                                 BannerAction(self.tr("Open report"), "progress"))
        self.lostCallsShown.emit(len(reports))

    def load_history(self) -> None:
        run_task(self.services.past_reports, on_done=self.history.set_reports,
                 on_error=lambda e: log.info("no call history: %s", error_text(e)), context=self)

    def closeEvent(self, event) -> None:
        self.settings_watch.close()
        self.bridge.close()
        super().closeEvent(event)

