"""The desktop app's start: the QApplication, the main window and the GUI-thread
collector (what `tutor-app gui` runs; `tutor-app bench ui` times it). Here, not in
commands/gui.py: Qt is imported only under ui/."""
from __future__ import annotations

import sys
from collections.abc import Callable


def open_window(app):
    """The QApplication, the shown main window and the GUI-thread collector."""
    from PySide6.QtWidgets import QApplication

    from tutor_app.ui.gc_guard import GuiThreadCollector
    from tutor_app.ui.main_window import MainWindow
    from tutor_app.ui.services import UiServices
    from tutor_app.ui.theme import apply_theme
    from tutor_app.ui.translation import install_translation

    qt_app = QApplication.instance() or QApplication([sys.argv[0]])
    qt_app.setApplicationName("Tutor")
    qt_app.setApplicationDisplayName("Tutor")
    qt_app.setDesktopFileName("tutor-app")
    install_translation(qt_app, app.settings.tutor.ui_language)  # before any widget reads a string
    apply_theme(qt_app)
    collector = GuiThreadCollector(parent=qt_app)  # Qt objects must die on the GUI thread
    window = MainWindow(UiServices.from_app(app))
    window.show()
    return qt_app, window, collector


def after_first_paint(callback: Callable[[], None]) -> None:
    """Call `callback` once the event loop has processed the window's show and first paint."""
    from PySide6.QtCore import QTimer

    QTimer.singleShot(0, callback)
