"""`tutor-app gui`: one clear line and exit 1 without a display; the window comes up
(and `run` returns) with the offscreen platform."""
from __future__ import annotations

from tutor_app.cli import main


def test_no_display_is_one_clear_line(data_dir, monkeypatch, capsys):
    monkeypatch.setattr("sys.platform", "linux")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    assert main(["gui"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tutor-app: no display found")


def test_unreachable_x_display_is_one_clear_line(data_dir, monkeypatch, capsys):
    from tutor_app.commands import gui

    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("DISPLAY", ":99")
    for name in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(gui, "_x_reachable", lambda: False)
    assert main(["gui"]) == 1
    assert "no display found" in capsys.readouterr().err


def test_gui_opens_the_window(qtbot, data_dir, monkeypatch):
    from PySide6.QtWidgets import QApplication

    from tutor_app.commands import gui

    shown = []

    def fake_exec():
        # The event loop would block: look at what run() built instead, then "quit".
        windows = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
        shown.extend(w.windowTitle() for w in windows)
        for w in windows:
            w.close()
        return 0

    monkeypatch.setattr(QApplication, "exec", staticmethod(fake_exec))
    monkeypatch.setattr(gui, "has_display", lambda: True)
    import argparse

    from tutor_app.app import App

    app = App.from_args(argparse.Namespace(data_dir=str(data_dir), profile=None, llm=None, debug=False))
    assert gui.run(argparse.Namespace(), app) == 0
    assert any(title.startswith("Tutor") for title in shown)
