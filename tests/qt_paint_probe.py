"""Child process of tests/unit/test_native_refcounts.py: paints the app's own widgets
(level meter, emotion and progress charts, transcript bubbles) thousands of times
offscreen and prints, per widget, how many references to None were lost.

A child, because the bug class this looks for ends in an abort of the whole process."""
from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(paints: int) -> None:
    from PySide6 import __version__ as pyside_version
    from PySide6.QtWidgets import QApplication

    from tests.refcount_probe import none_drop
    from tutor_app.ui.charts import EmotionPoint, EmotionTimeline, ProgressChart, ProgressPoint
    from tutor_app.ui.level_meter import LevelMeter
    from tutor_app.ui.transcript import TranscriptView

    app = QApplication.instance() or QApplication([])
    meter = LevelMeter()
    meter.resize(300, 12)
    meter.set_active(True)
    timeline = EmotionTimeline()
    timeline.resize(600, 200)
    timeline.set_points([EmotionPoint(t * 7.0, label, 0.4 + 0.05 * (t % 8))
                         for t, label in enumerate(["joy", "neutral", "confusion", "sadness"] * 10)])
    progress = ProgressChart()
    progress.resize(600, 200)
    progress.set_points([ProgressPoint(f"11-{d:02d}", 80 + d, 120 + 9 * d) for d in range(1, 15)])
    transcript = TranscriptView()
    transcript.resize(500, 400)
    transcript.learner_said("I am go to school yesterday with my friend.")
    transcript.tutor_sentence("Oh, you went to school yesterday?")
    transcript.tutor_done("Oh, you went to school yesterday? What did you do there?", False, "")

    levels = iter([0.001, 0.02, 0.2, 0.05] * paints)

    def paint_meter() -> None:
        meter.set_level(next(levels, 0.01))
        meter.grab()

    drops = {  # batch=1: one chart repaint makes hundreds of void calls
        "level_meter": none_drop(paint_meter, paints, batch=1),
        "emotion_timeline": none_drop(timeline.grab, paints // 4, batch=1),
        "progress_chart": none_drop(progress.grab, paints // 4, batch=1),
        "transcript": none_drop(transcript.grab, paints // 4, batch=1),
    }
    app.processEvents()
    print(json.dumps({"pyside6": pyside_version, "drops": drops}), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
