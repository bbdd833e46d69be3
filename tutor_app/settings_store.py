"""The one way settings change while the app runs: apply a change, save once, tell everyone.

The Settings object is built once and shared (engine, call loop, windows), so a change
made in one place (the memory panel's pause, the Settings window, a speaking-rate request
in a call) must be saved the same way and seen everywhere. `store_for(settings)` gives the
one store of that object, so code that only holds the Settings (the call loop) and the UI
reach the same store without new wiring. Qt-free: the UI turns notifications into a Qt
signal (ui/settings_watch.py) to handle them on the GUI thread.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from tutor_app.settings import Settings

log = logging.getLogger(__name__)

Subscriber = Callable[[Settings], None]
Values = dict[str, dict[str, Any]]  # section ("speech") -> field ("speaking_rate") -> value


class SettingsStore:
    """Holds the Settings; `update` changes, saves (run overrides are never written:
    Settings.save) and notifies. Safe from any thread: changes and saves happen one at a
    time; subscribers are called on the changing thread, after the save."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.RLock()  # a subscriber may itself update
        self._subscribers: list[Subscriber] = []

    def update(self, change: Callable[[Settings], None]) -> None:
        """Apply `change` to the settings, save the file once, then call the subscribers.
        A failed save (OSError) is raised after the subscribers ran: the change stays in
        effect for this run (a paused memory must stay paused on a full disk)."""
        with self._lock:
            change(self.settings)
            try:
                self.settings.save()
                error: OSError | None = None
            except OSError as exc:
                error = exc
            subscribers = list(self._subscribers)
        for fn in subscribers:
            try:
                fn(self.settings)
            except Exception:  # noqa: BLE001 - one broken listener must not stop the others
                log.exception("settings subscriber %r failed", fn)
        if error is not None:
            raise error

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        """Call `fn(settings)` after every update; returns the unsubscribe function."""
        with self._lock:
            self._subscribers.append(fn)

        def unsubscribe() -> None:
            with self._lock:
                if fn in self._subscribers:
                    self._subscribers.remove(fn)

        return unsubscribe


_ATTRIBUTE = "_settings_store"  # kept on the Settings object itself: it lives as long as they do
_STORES_LOCK = threading.Lock()


def store_for(settings: Settings) -> SettingsStore:
    """The one store of this Settings object (made on first use). A copy (dataclasses.replace)
    is another object with a store of its own."""
    with _STORES_LOCK:
        store = settings.__dict__.get(_ATTRIBUTE)
        if not isinstance(store, SettingsStore):
            store = SettingsStore(settings)
            settings.__dict__[_ATTRIBUTE] = store  # not a field: never compared, shown or saved
        return store


class FormEdit:
    """A settings window's edit: the sections as they were when it opened, so that saving
    writes only the fields changed in the window. A value changed elsewhere while it was
    open (a speaking rate asked for in a call, a model chosen on the Models page) is kept,
    not put back to what the window showed."""

    def __init__(self, settings: Settings, sections: tuple[str, ...] = ("tutor", "speech", "llm")) -> None:
        self.opened: Values = {name: asdict(getattr(settings, name)) for name in sections}

    def change(self, shown: Values) -> Callable[[Settings], None]:
        """A change for SettingsStore.update: the fields of `shown` (the window's values
        now) that differ from when it opened."""
        edits = [(section, name, value) for section, fields in shown.items()
                 for name, value in fields.items() if self.opened[section].get(name) != value]

        def change(target: Settings) -> None:
            for section, name, value in edits:
                setattr(getattr(target, section), name, value)

        return change
