"""Soak driver: `tutor-app gui` in a real window, driven by keyboard and voice for several
calls of several spoken turns; prints one JSON summary line on stdout and exits 0 when
every turn got a reply and every call reached the history, 1 otherwise.

    python tests/e2e/soak_driver.py --data-dir DIR [--calls 3] [--turns 6]

Run it in a child process (tests/e2e/test_soak.py does) with DISPLAY set to an X server
(Xvfb) and QT_QPA_PLATFORM unset, on the virtual sound card (scripts/virtual-audio.sh):
the window paints for real the whole time, and a crash (e.g. `Fatal Python error`)
ends the process, which the parent sees. The app is started through `tutor_app.cli.main`
exactly as `tutor-app --llm local gui` is; the driver only presses keys inside the process
(Space starts a call, Esc ends it: under a bare Xvfb no window manager passes on keys sent
from outside) and plays learner clips into the virtual microphone with `paplay`.

A tutor turn that nobody asked for (a greeting when the call starts) is allowed: the
driver waits until the tutor has finished speaking before it plays the next clip, and
counts replies to the learner's turns only.
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Short learner lines (2-4 s when spoken), none of them a memory trigger.
LINES = (
    "I went to the market this morning.",
    "My brother works in a big hospital.",
    "I like to cook pasta on Sundays.",
    "Yesterday it rained all day long.",
    "I am reading a book about old ships.",
    "Next week I will visit my grandmother.",
)
# Soak settings written to the data dir's settings file before the app starts: the
# virtual card's null sinks look like speakers to "auto"; a short reply keeps CI short.
SETTINGS_TOML = '[speech]\naudio_mode = "headset"\n\n[llm]\nmax_tokens = {max_tokens}\n'


class SoakFailure(Exception):
    """A check failed: the message says which call, which turn and what was missing."""


def make_clips(folder: Path, data_dir: Path) -> list[Path]:
    """Piper speaks the learner lines into WAVs (the app's own voice model), without its
    random noise: the same clips every run (a run once drew a "Yesterday it rained all
    day long." Whisper was unsure of, and the turn was rightly not understood)."""
    from dataclasses import replace

    from tutor_app.app import App
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings
    from tutor_app.speech.tts import write_wav

    folder.mkdir(parents=True, exist_ok=True)
    app = App(Settings(paths=AppPaths.resolve(data_dir)))
    try:
        tts = app.tts
        tts.options = replace(tts.options, deterministic=True)
        clips = []
        for i, line in enumerate(LINES):
            path = folder / f"learner-{i}.wav"
            write_wav(path, tts.synthesize_all(line), tts.sample_rate)
            clips.append(path)
        return clips
    finally:
        app.close()


class Soak:
    """Runs inside the app's event loop (started by a zero timer once `exec()` runs)."""

    def __init__(self, clips: list[Path], calls: int, turns: int, turn_s: float) -> None:
        self.clips, self.calls, self.turns, self.turn_s = clips, calls, turns, turn_s
        self.events: list[tuple[str, Any]] = []  # (kind, payload), in arrival order
        self.state = ""
        self.summary: dict[str, Any] = {"ok": False, "failure": None, "calls": []}

    # -- waiting ----------------------------------------------------------------------
    def wait_until(self, pred: Callable[[], bool], seconds: float, what: str) -> None:
        """Poll `pred` while the event loop runs; fail with `what` after `seconds`, or at
        once when the call reports a fatal problem."""
        from PySide6.QtTest import QTest

        deadline = time.monotonic() + seconds
        while not pred():
            fatal = [p for k, p in self.events if k == "problem" and p.fatal]
            if fatal:
                raise SoakFailure(f"{what}: the call reported a fatal problem ({fatal[0].kind}: {fatal[0].message})")
            if time.monotonic() > deadline:
                raise SoakFailure(f"{what}: not within {seconds:.0f} s (state {self.state!r})")
            QTest.qWait(20)

    def since(self, mark: int, kind: str) -> list[Any]:
        return [p for k, p in self.events[mark:] if k == kind]

    def tutor_quiet(self) -> bool:
        """Listening, and no tutor turn open (every spoken sentence's turn is done)."""
        last_sentence = max((i for i, (k, _) in enumerate(self.events) if k == "sentence"), default=-1)
        last_done = max((i for i, (k, _) in enumerate(self.events) if k == "done"), default=-1)
        return self.state == "listening" and last_done >= last_sentence

    # -- the soak ---------------------------------------------------------------------
    def run(self, window) -> None:
        from PySide6.QtCore import QCoreApplication, Qt
        from PySide6.QtGui import QGuiApplication
        from PySide6.QtTest import QTest

        bridge, view = window.bridge, window.call_view
        for name, kind in (("stateChanged", "state"), ("userUtterance", "utterance"), ("tutorSentence", "sentence"),
                           ("tutorTurnDone", "done"), ("problem", "problem"), ("callStarted", "started"),
                           ("callFailed", "failed"), ("reportReady", "report")):
            getattr(bridge, name).connect(lambda *args, kind=kind: self.events.append((kind, args[0] if args else None)))
        bridge.stateChanged.connect(lambda state: setattr(self, "state", state))

        warmed: list[Any] = []
        window.warmedUp.connect(warmed.append)
        self.wait_until(lambda: bool(warmed) or view.ready, 300, "the window's warm-up")
        if warmed and (warmed[0].missing or warmed[0].problems):
            raise SoakFailure(f"warm-up: missing {warmed[0].missing}, problems {warmed[0].problems}")
        self.summary["platform"] = QGuiApplication.platformName()  # "xcb" on an X server, not "offscreen"
        window.activateWindow()
        self.wait_until(window.isActiveWindow, 10, "the window becoming active")
        self.summary["none_refcount_before"] = sys.getrefcount(None)
        started = time.monotonic()

        for c in range(1, self.calls + 1):
            if window.stack.currentWidget() is not view:  # the last call's report is showing
                QTest.mouseClick(nav_button(window, "Call"), Qt.MouseButton.LeftButton)
                self.wait_until(lambda: window.stack.currentWidget() is view, 10, f"call {c}: the Call page")
            mark = len(self.events)
            QTest.keyClick(view, Qt.Key.Key_Space)  # Space starts a call
            self.wait_until(lambda m=mark: bool(self.since(m, "started") or self.since(m, "failed")), 120,
                            f"call {c}: started after Space")
            if self.since(mark, "failed"):
                raise SoakFailure(f"call {c}: could not start: {self.since(mark, 'failed')[0]}")
            controller = bridge.backend()
            self.wait_until(controller.loop.ready.is_set, 120, f"call {c}: microphone and models ready")
            # A greeting's first sentence was posted before `ready`: take it in before the
            # first turn asks whether the tutor is speaking.
            QCoreApplication.sendPostedEvents()
            QCoreApplication.processEvents()
            record = {"session_id": bridge.session_id, "learner_turns": 0, "replies": 0}
            for t in range(1, self.turns + 1):
                self.turn(c, t, record)
            record["unprompted_tutor_turns"] = len(self.since(mark, "done")) - record["replies"]  # a greeting
            record["interrupted"] = sum(1 for p in self.since(mark, "done") if p.interrupted)
            self.summary["calls"].append(record)

            mark = len(self.events)
            ending = time.monotonic()
            window.activateWindow()
            QTest.keyClick(view, Qt.Key.Key_Escape)  # Esc ends it
            self.wait_until(lambda m=mark: bool(self.since(m, "report")), 300, f"call {c}: its report after Esc")
            self.wait_until(lambda: window.stack.currentWidget() is window.history, 30, f"call {c}: its report shown")
            self.wait_until(lambda n=c: window.history.calls.count() >= n, 30, f"call {c}: in the Past calls list")
            self.wait_until(lambda: view.phase == "idle", 30, f"call {c}: the call view back to idle")
            record["end_s"] = round(time.monotonic() - ending, 1)
            record["none_refcount"] = sys.getrefcount(None)  # at the same point of every call
            window.activateWindow()

        self.summary["wall_s"] = round(time.monotonic() - started, 1)
        self.summary["none_refcount_after"] = sys.getrefcount(None)
        self.summary["history_count"] = window.history.calls.count()
        self.summary["ok"] = True

    def say(self, where: str, clip: Path) -> int:
        """Once the tutor is quiet (never talk over it: a greeting, or still the last reply),
        play `clip` into the microphone; the events from just before it (their mark)."""
        self.wait_until(self.tutor_quiet, self.turn_s, f"{where}: the tutor done speaking before the learner")
        mark = len(self.events)
        player = subprocess.Popen(["paplay", "--device=micsrc", str(clip)])
        try:
            self.wait_until(lambda: player.poll() is not None, 60, f"{where}: the clip played into the microphone")
        finally:
            if player.poll() is None:
                player.kill()
        if player.returncode != 0:
            raise SoakFailure(f"{where}: paplay exited {player.returncode}")
        return mark

    def turn(self, c: int, t: int, record: dict[str, Any]) -> None:
        where = f"call {c}, turn {t}"
        t0 = time.monotonic()
        mark = self.say(where, self.clips[(t - 1) % len(self.clips)])

        def heard() -> int:  # index (in events) of the learner's utterance with words, or -1
            return next((i for i in range(mark, len(self.events))
                         if self.events[i][0] == "utterance" and self.events[i][1].text.strip()), -1)

        def not_understood() -> bool:  # the tutor said its fixed "didn't catch that" line
            return any(getattr(p, "not_heard", False) for p in self.since(mark, "done"))

        self.wait_until(lambda: heard() >= 0 or not_understood(), self.turn_s, f"{where}: the learner's words heard")
        if heard() < 0:
            # Not understood: as a learner would, she says it again - once; the app asking
            # twice for the same clear line is a failure.
            record["repeats"] = record.get("repeats", 0) + 1
            mark = self.say(f"{where} (said again)", self.clips[(t - 1) % len(self.clips)])
            self.wait_until(lambda: heard() >= 0 or not_understood(), self.turn_s, f"{where}: the words said again heard")
            if heard() < 0:
                raise SoakFailure(f"{where}: the learner's words were not understood, twice")
        record["learner_turns"] += 1

        def reply() -> Any:  # the tutor's answer to it: not a greeting, not cut short
            return next((p for k, p in self.events[heard():] if k == "done" and p.reply.strip()
                         and not p.interrupted and not getattr(p, "greeting", False)), None)

        self.wait_until(lambda: reply() is not None, self.turn_s, f"{where}: a tutor reply")
        record["replies"] += 1
        record.setdefault("reply_words", []).append(len(reply().reply.split()))
        replied = time.monotonic()
        self.wait_until(self.tutor_quiet, self.turn_s, f"{where}: the tutor done speaking")
        # printed for the reader, never asserted: clip start -> reply done -> tutor quiet
        record.setdefault("turn_s", []).append([round(replied - t0, 1), round(time.monotonic() - t0, 1)])


def nav_button(window, text: str):
    from PySide6.QtWidgets import QToolButton

    return next(b for b in window.findChildren(QToolButton) if b.objectName() == "NavButton" and b.text() == text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=20, help="the tutor model's reply length")
    parser.add_argument("--turn-seconds", type=float, default=180.0, help="the longest wait for one step of a turn")
    args = parser.parse_args(argv)
    faulthandler.enable()  # a fatal error prints every thread's Python stack to stderr

    settings_file = args.data_dir / "config" / "settings.toml"
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_text(SETTINGS_TOML.format(max_tokens=args.max_tokens), encoding="utf-8")
    clips = make_clips(args.data_dir.parent / "soak-clips", args.data_dir)

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from tutor_app import cli
    from tutor_app.ui.main_window import MainWindow

    qt_app = QApplication([sys.argv[0]])
    soak = Soak(clips, args.calls, args.turns, args.turn_seconds)

    def drive() -> None:
        window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))
        try:
            soak.run(window)
        except SoakFailure as exc:
            soak.summary["failure"] = str(exc)
        except Exception as exc:  # noqa: BLE001 - reported in the summary, the run fails
            soak.summary["failure"] = f"{type(exc).__name__}: {exc}"
        finally:
            soak.summary["stored_calls"] = _stored_calls(window)
            window.close()  # the last window: the app's exec() returns
            qt_app.quit()

    QTimer.singleShot(0, drive)
    code = cli.main(["--data-dir", str(args.data_dir), "--llm", "local", "gui"])
    soak.summary["exit_code"] = code
    print(json.dumps(soak.summary), flush=True)
    return 0 if soak.summary["ok"] and code == 0 else 1


def _stored_calls(window) -> list[dict[str, Any]]:
    """The `calls` table as the window's services see it (session id, turns)."""
    try:
        reports = window.services.past_reports()
    except Exception as exc:  # noqa: BLE001 - shows in the summary
        return [{"error": f"{type(exc).__name__}: {exc}"}]
    return [{"session_id": r.get("session_id"), "turns": r.get("turns")} for r in reports if r]


if __name__ == "__main__":
    sys.exit(main())
