"""Two small QPainter charts (QtCharts is not part of PySide6-Essentials):
the emotion timeline of one call, and progress over calls (WPM and speaking time)."""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QLocale, QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from tutor_app.ui.emotion_words import Feeling, feeling
from tutor_app.ui.theme import emotion_color, theme
from tutor_app.ui.translation import feeling_words


@dataclass
class EmotionPoint:
    t: float  # seconds since the call started
    label: str
    score: float


def _fmt_time(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 60}:{s % 60:02d}"


class _Chart(QWidget):
    MARGIN = (44, 14, 16, 30)  # left, top, right, bottom

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setMinimumHeight(170)

    def sizeHint(self) -> QSize:
        return QSize(520, 200)

    def _plot_rect(self) -> QRectF:
        left, top, right, bottom = self.MARGIN
        return QRectF(left, top, max(10, self.width() - left - right), max(10, self.height() - top - bottom))

    def _axes(self, p: QPainter, area: QRectF, y_labels: list[tuple[float, str]]) -> None:
        t = theme()
        p.setFont(_small_font(self))
        for frac, text in y_labels:
            y = area.bottom() - frac * area.height()
            p.setPen(QPen(t.color("border"), 1, Qt.PenStyle.DashLine if 0 < frac < 1 else Qt.PenStyle.SolidLine))
            p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
            p.setPen(t.color("muted"))
            p.drawText(QRectF(0, y - 8, area.left() - 6, 16), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, text)

    def _empty(self, p: QPainter, text: str) -> None:
        p.setPen(theme().color("muted"))
        p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, text)


class EmotionTimeline(_Chart):
    """Score of the learner's top emotion per turn, over call time; dots coloured by how the
    learner sounded (ui/emotion_words.py); the legend in those words wraps to the width;
    the raw labels are in the tooltip."""

    LEGEND_ROW = 18

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.points: list[EmotionPoint] = []
        self.setAccessibleName(QCoreApplication.translate("Charts", "Emotion over the call"))

    def set_points(self, points: list[EmotionPoint]) -> None:
        self.points = sorted(points, key=lambda pt: pt.t)
        self.setAccessibleDescription(", ".join(f"{_fmt_time(pt.t)} {feeling_words(feeling(pt.label))[1]}"
                                                for pt in self.points[:20]) or QCoreApplication.translate("Charts", "no turns"))
        self.setToolTip(QCoreApplication.translate("Charts", "What the emotion reader heard in each turn:") + "\n" + "\n".join(
            f"{_fmt_time(pt.t)}  {pt.label} ({QLocale().toString(round(pt.score * 100))}%)" for pt in self.points[:30]) if self.points else "")
        self._fit_height()
        self.update()

    def feelings(self) -> list[Feeling]:
        """The legend: each feeling once, in order of first appearance."""
        seen: dict[str, Feeling] = {}
        for pt in self.points:
            f = feeling(pt.label)
            seen.setdefault(f.key, f)
        return list(seen.values())

    def _legend(self, width: int) -> list[tuple[Feeling, QRectF]]:
        fm = QFontMetrics(_small_font(self))
        left, right = 12, width - 12
        x, row, out = left, 0, []
        for f in self.feelings():
            w = 14 + fm.horizontalAdvance(feeling_words(f)[0])
            if x > left and x + w > right:
                x, row = left, row + 1
            out.append((f, QRectF(x, row * self.LEGEND_ROW, min(w, right - x), self.LEGEND_ROW - 2)))
            x += w + 16
        return out

    def _legend_height(self, width: int) -> int:
        legend = self._legend(width)
        return int(legend[-1][1].bottom()) + 4 if legend else 0

    def legend_rects(self) -> list[QRect]:
        """Where each legend entry is drawn (widget coordinates)."""
        top = self.height() - self._legend_height(self.width())
        return [r.translated(0, top).toAlignedRect() for _f, r in self._legend(self.width())]

    def _fit_height(self) -> None:
        self.setMinimumHeight(150 + self._legend_height(max(self.width(), 200)))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt naming
        super().resizeEvent(event)
        self._fit_height()

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        if not self.points:
            self._empty(p, QCoreApplication.translate("Charts", "No emotion readings in this call"))
            return
        area = self._plot_rect()
        legend_h = self._legend_height(self.width())
        area.setBottom(area.bottom() - legend_h)  # room for the legend
        self._axes(p, area, [(0, "0"), (0.5, "50%"), (1, "100%")])
        span = max(self.points[-1].t, 1.0)
        inner = area.adjusted(10, 0, -10, 0)  # dots never sit on the frame
        xy = [QPointF(inner.left() + (pt.t / span) * inner.width() if len(self.points) > 1 else inner.center().x(),
                      area.bottom() - max(0.0, min(1.0, pt.score)) * area.height()) for pt in self.points]
        t = theme()
        if len(xy) > 1:
            path = QPainterPath(xy[0])
            for a, b in zip(xy, xy[1:]):
                mid = (a.x() + b.x()) / 2
                path.cubicTo(QPointF(mid, a.y()), QPointF(mid, b.y()), b)
            p.setPen(QPen(t.color("muted"), 1.6))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawPath(path)
        for pt, pos in zip(self.points, xy):
            p.setPen(QPen(t.color("surface"), 2))
            p.setBrush(QColor(emotion_color(pt.label)))
            p.drawEllipse(pos, 5.5, 5.5)
        # x labels: start and end
        p.setPen(t.color("muted"))
        p.setFont(_small_font(self))
        p.drawText(QRectF(inner.left(), area.bottom() + 3, 60, 14), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, "0:00")
        p.drawText(QRectF(inner.right() - 60, area.bottom() + 3, 60, 14), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop,
                   _fmt_time(span))
        for f, rect in zip(self.feelings(), self.legend_rects()):
            y = rect.center().y()
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor(f.colour))
            p.drawEllipse(QPointF(rect.left() + 5, y), 4.5, 4.5)
            p.setPen(t.color("text"))
            p.drawText(QRectF(rect.left() + 14, rect.top(), rect.width() - 14, rect.height()),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, feeling_words(f)[0])


@dataclass
class ProgressPoint:
    label: str  # e.g. the call's date
    wpm: float
    speaking_seconds: float


class ProgressChart(_Chart):
    """Bars: speaking time per call; line: words per minute (own scale on the right)."""

    MARGIN = (44, 14, 44, 30)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.points: list[ProgressPoint] = []
        self.setAccessibleName(QCoreApplication.translate("Charts", "Progress over calls"))

    def set_points(self, points: list[ProgressPoint]) -> None:
        self.points = list(points)
        self.setAccessibleDescription("; ".join(
            QCoreApplication.translate("Charts", "%1: %2 wpm, %3 min").replace("%1", pt.label).replace("%2", QLocale().toString(float(pt.wpm), "f", 0))
            .replace("%3", QLocale().toString(float(pt.speaking_seconds / 60), "f", 1)) for pt in self.points[-12:]))
        self.update()

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        if not self.points:
            self._empty(p, QCoreApplication.translate("Charts", "Your progress appears here after your first call"))
            return
        t = theme()
        area = self._plot_rect()
        pts = self.points[-20:]
        max_speak = max(max(pt.speaking_seconds for pt in pts), 60.0)
        max_wpm = max(max(pt.wpm for pt in pts), 60.0)
        minutes = QCoreApplication.translate("Charts", "%1m")  # the speaking-time axis, in minutes
        self._axes(p, area, [(0, "0"), (0.5, minutes.replace("%1", QLocale().toString(float(max_speak / 120), "f", 1))),
                             (1, minutes.replace("%1", QLocale().toString(float(max_speak / 60), "f", 1)))])
        p.setPen(t.color("accent"))
        for frac in (0.5, 1.0):
            y = area.bottom() - frac * area.height()
            p.drawText(QRectF(area.right() + 4, y - 8, 40, 16), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       QLocale().toString(float(max_wpm * frac), "f", 0))
        slot = area.width() / len(pts)
        bar_w = min(34.0, slot * 0.55)
        soft = QColor(t.colors["accent"])
        soft.setAlpha(70)
        line: list[QPointF] = []
        p.setFont(_small_font(self))
        label_w = p.fontMetrics().horizontalAdvance("30 Nov") + 12
        every = max(1, int(label_w // slot) + 1)  # skip labels that would overlap
        for i, pt in enumerate(pts):
            cx = area.left() + slot * (i + 0.5)
            h = pt.speaking_seconds / max_speak * area.height()
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(soft)
            p.drawRoundedRect(QRectF(cx - bar_w / 2, area.bottom() - h, bar_w, h), 3, 3)
            line.append(QPointF(cx, area.bottom() - pt.wpm / max_wpm * area.height()))
            if (len(pts) - 1 - i) % every == 0:  # always label the latest call
                p.setPen(t.color("muted"))
                p.drawText(QRectF(cx - label_w / 2, area.bottom() + 4, label_w, 14), Qt.AlignmentFlag.AlignCenter, pt.label)
        p.setPen(QPen(t.color("accent"), 2.2))
        for a, b in zip(line, line[1:]):
            p.drawLine(a, b)
        p.setBrush(t.color("accent"))
        for pos in line:
            p.drawEllipse(pos, 3.5, 3.5)


def _small_font(widget: QWidget) -> QFont:
    f = QFont(widget.font())
    f.setPointSizeF(max(7.5, f.pointSizeF() * 0.85))
    return f
