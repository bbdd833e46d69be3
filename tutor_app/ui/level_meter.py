"""Microphone level meter: a rounded bar that rises at once and falls smoothly."""
from __future__ import annotations

import math

from PySide6.QtCore import QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget

from tutor_app.ui.theme import theme

SEGMENTS = 24


class LevelMeter(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._level = 0.0  # shown, 0..1
        self._target = 0.0
        self._active = False
        self.setAccessibleName(self.tr("Microphone level"))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._decay = QTimer(self)
        self._decay.setInterval(40)
        self._decay.timeout.connect(self._tick)

    def sizeHint(self) -> QSize:
        return QSize(220, 14)

    @property
    def level(self) -> float:
        return self._target

    def set_active(self, active: bool) -> None:
        self._active = active
        if not active:
            self._target = self._level = 0.0
            self._decay.stop()
        self.update()

    def set_level(self, rms: float) -> None:
        # Speech RMS sits around 0.01-0.2: a log scale makes quiet speech visible.
        rms = max(0.0, float(rms))
        value = 0.0 if rms <= 1e-4 else min(1.0, max(0.0, (math.log10(rms) + 3.2) / 2.6))
        self._target = value
        if value > self._level:
            self._level = value
        if not self._decay.isActive():
            self._decay.start()
        self.update()

    def _tick(self) -> None:
        self._level = max(self._target, self._level - 0.06)
        self._target *= 0.8  # no event -> falls to silence
        if self._level <= 0.01 and self._target <= 0.01:
            self._level = 0.0
            self._decay.stop()
        self.update()

    def paintEvent(self, _event) -> None:
        t = theme()
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        w, h = self.width(), self.height()
        gap = 3.0
        seg_w = (w - gap * (SEGMENTS - 1)) / SEGMENTS
        lit = round(self._level * SEGMENTS)
        for i in range(SEGMENTS):
            if i < lit and self._active:
                colour = QColor(t.colors["good"] if i < SEGMENTS * 0.75 else t.colors["warn_border"])
            else:
                colour = QColor(t.colors["border"])
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(colour)
            p.drawRoundedRect(QRectF(i * (seg_w + gap), 0, seg_w, h), 2.5, 2.5)
        p.end()
