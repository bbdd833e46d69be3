"""A settings change made anywhere (here: a call thread, as a speaking-rate request or the
memory panel would) reaches the main window on the GUI thread, through the settings store."""
from __future__ import annotations

import threading

from tutor_app.ui.main_window import MainWindow
from tutor_app.ui.services import UiServices


def test_a_change_from_another_thread_shows_in_the_window(qtbot, settings):
    window = MainWindow(UiServices(settings=settings, registry=lambda: None), warm_up=False)
    qtbot.addWidget(window)
    assert "memory paused" not in window.profile_label.text()
    seen_on = []
    window.settings_watch.changed.connect(lambda: seen_on.append(threading.current_thread()))
    store = window.services.settings_store

    def pause_elsewhere() -> None:
        store.update(lambda s: setattr(s.memory, "enabled", False))

    worker = threading.Thread(target=pause_elsewhere)
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: "memory paused" in window.profile_label.text(), timeout=3000)
    assert window.call_view.memory_paused
    assert seen_on == [threading.main_thread()]  # queued to the GUI thread


def test_a_closed_window_is_not_told_any_more(qtbot, settings):
    window = MainWindow(UiServices(settings=settings, registry=lambda: None), warm_up=False)
    qtbot.addWidget(window)
    seen = []
    window.settings_watch.changed.connect(lambda: seen.append(1))
    window.close()
    window.services.settings_store.update(lambda s: setattr(s, "profile", "kim"))
    assert seen == []
