"""`tutor-app gui` (also what runs with no command): the desktop app."""
from __future__ import annotations

import argparse
import os
import sys


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("gui", parents=[common], help="open the desktop app (default)",
                       description="Open the desktop app: calls, reports, memory, models, settings.")
    p.set_defaults(func=run)


def has_display() -> bool:
    """False on a Linux box with neither X11 nor Wayland (and no explicit Qt platform),
    or whose X display cannot be reached (Qt would abort the process instead)."""
    if not sys.platform.startswith("linux"):
        return True
    if os.environ.get("QT_QPA_PLATFORM") or os.environ.get("WAYLAND_DISPLAY"):
        return True
    return bool(os.environ.get("DISPLAY")) and _x_reachable()


def _x_reachable() -> bool:
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("xcb")
    if not name:
        return True  # cannot check: let Qt try
    try:
        xcb = ctypes.CDLL(name)
        xcb.xcb_connect.restype = ctypes.c_void_p
        xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
        xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
        conn = xcb.xcb_connect(None, None)
        ok = xcb.xcb_connection_has_error(conn) == 0
        xcb.xcb_disconnect(conn)
        return ok
    except (OSError, AttributeError):
        return True


def run(args: argparse.Namespace, app) -> int:
    if not has_display():
        print("tutor-app: no display found (DISPLAY/WAYLAND_DISPLAY unset or unreachable): run the desktop "
              "app in a graphical session, or use the command line (tutor-app --help)", file=sys.stderr)
        return 1
    from tutor_app.ui.launch import open_window

    qt_app, _window, collector = open_window(app)
    try:
        return int(qt_app.exec())
    finally:
        collector.stop()
