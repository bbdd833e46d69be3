"""The settings store's notifications as a Qt signal delivered on the GUI thread.

A change may come from a worker (the Settings window saves there) or a call thread (a
speaking-rate request); widgets must only be touched on the GUI thread, so the store's
callback only emits a signal: Qt queues it to this object's (the GUI) thread, and calls
it at once when the change was made on the GUI thread itself.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from tutor_app.settings import Settings
from tutor_app.settings_store import SettingsStore


class SettingsWatch(QObject):
    changed = Signal()  # the settings changed (and were saved): read them again

    def __init__(self, store: SettingsStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._unsubscribe = store.subscribe(self._notified)
        self.destroyed.connect(self._unsubscribe)  # a closed window is not told any more

    def _notified(self, _settings: Settings) -> None:
        self.changed.emit()

    def close(self) -> None:
        self._unsubscribe()
