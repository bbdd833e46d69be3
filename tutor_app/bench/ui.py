"""`tutor-app bench ui`: how long a fresh `tutor-app gui` process takes until its window
is on screen (and has painted once), and until the models have warmed up behind it.
Each run is a new process on a new data dir, so imports and the first start count."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from tutor_app.commands import print_json

_PROBE = "import sys; from tutor_app.bench.ui import probe; raise SystemExit(probe(float(sys.argv[1])))"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--runs", type=int, default=3, help="fresh processes to start")
    p.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for the warm-up")
    p.add_argument("--json", action="store_true", help="one JSON object per result")


def run(args: argparse.Namespace, app) -> int:
    import statistics

    shown, warm = [], []
    for i in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="tutor-bench-ui-") as tmp:
            env = dict(os.environ, TUTOR_APP_DATA_DIR=tmp)
            if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
                env.setdefault("QT_QPA_PLATFORM", "offscreen")  # no screen: Qt's offscreen platform
            started = time.time()
            try:
                done = subprocess.run([sys.executable, "-c", _PROBE, repr(started)], env=env, capture_output=True,
                                      text=True, timeout=args.timeout, check=False)
            except subprocess.TimeoutExpired:
                print(f"run {i + 1}: no window within {args.timeout:.0f} s", file=sys.stderr)
                return 1
            lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
            if done.returncode != 0 or not lines:
                print(f"run {i + 1} failed: {(done.stderr or done.stdout).strip()[-400:]}", file=sys.stderr)
                return 1
            got = json.loads(lines[-1])
            shown.append(got["window_shown_s"])
            warm.append(got["models_warm_s"])
            row = {"bench": "ui_start", "run": i + 1, **got}
            print_json(row) if args.json else print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    summary = {"bench": "ui_start_summary", "runs": len(shown), "window_shown_median_s": round(statistics.median(shown), 2),
               "models_warm_median_s": round(statistics.median(warm), 2), "target_window_s": 2.0}
    print_json(summary) if args.json else print("  ".join(f"{k}={v}" for k, v in summary.items()), flush=True)
    return 0


def probe(started: float) -> int:
    """Runs in the child: the same start as `tutor-app gui`; prints one JSON line."""
    from tutor_app.app import App
    from tutor_app.ui.launch import after_first_paint, open_window

    app = App.from_args(argparse.Namespace(command="gui"))  # data dir etc. from the environment
    qt_app, window, collector = open_window(app)
    times: dict[str, float] = {}

    def painted() -> None:  # runs once the event loop has processed the show and first paint
        times["window_shown_s"] = round(time.time() - started, 2)

    def warmed(_result) -> None:
        times["models_warm_s"] = round(time.time() - started, 2)
        qt_app.quit()

    window.warmedUp.connect(warmed)
    after_first_paint(painted)
    try:
        qt_app.exec()
    finally:
        collector.stop()
        window.close()
        app.close()
    print(json.dumps(times), flush=True)
    return 0 if len(times) == 2 else 1
