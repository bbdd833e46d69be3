"""Run Python's cyclic garbage collector on the GUI thread only.

The collector runs in whichever thread happens to allocate; if it finalises a Qt object
there (a widget caught in a reference cycle, freed by a model-loading worker), Qt
crashes. So automatic collection is switched off while the GUI runs and a timer on the
GUI thread collects instead, generation by generation, as pyqtgraph does."""
from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer


class GuiThreadCollector(QObject):
    def __init__(self, interval_ms: int = 1000, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.check)
        self._timer.start(interval_ms)

    def check(self) -> None:
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self.thresholds[generation]:
                gc.collect(generation)
                break

    def stop(self) -> None:
        self._timer.stop()
        gc.collect()
        gc.enable()
