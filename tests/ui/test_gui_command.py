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
    assert "English speaking practice" in shown
    assert QApplication.applicationDisplayName() == "Tutor"  # shown as "English speaking practice — Tutor"


def test_bench_ui_starts_a_fresh_app_process(data_dir, tmp_path):
    """`bench ui` (numbers are only printed): a real `gui` start in a child process
    reports the window first and the warmed-up models after it."""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TUTOR_APP_DATA_DIR=str(data_dir))
    out = subprocess.run([sys.executable, "-m", "tutor_app", "bench", "ui", "--runs", "1", "--json"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    run, summary = rows
    assert run["bench"] == "ui_start" and 0 < run["window_shown_s"] <= run["models_warm_s"]
    assert summary["runs"] == 1
