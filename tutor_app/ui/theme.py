"""Light/dark theme: one QSS file (assets/ui/style.qss) with $tokens filled from a palette,
and SVG icons tinted to the palette's text colours."""
from __future__ import annotations

import logging
import os
from functools import lru_cache

from PySide6.QtCore import QByteArray, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontInfo, QGuiApplication, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

from tutor_app.paths import assets_dir
from tutor_app.ui.emotion_words import feeling

log = logging.getLogger(__name__)

ENV_THEME = "TUTOR_APP_THEME"  # light | dark: overrides the system colour scheme

LIGHT = {
    "bg": "#f4f5f8", "surface": "#ffffff", "surface2": "#eef0f4", "border": "#e1e4ea",
    "text": "#1d2430", "muted": "#677085", "accent": "#4a63e7", "accent_soft": "#e7ebfd",
    "accent_text": "#ffffff", "good": "#1c9a6c", "good_hover": "#168559", "bad": "#d2453f",
    "bad_hover": "#b93631", "warn_bg": "#fff5e0", "warn_border": "#f1cf86", "warn_text": "#7a5300",
    "err_bg": "#fdecec", "err_border": "#f2b8b5", "err_text": "#8f1f1a", "info_bg": "#e9f1fe",
    "info_border": "#bcd2fb", "info_text": "#1f4aa8", "learner": "#e7ebfd", "tutor": "#ffffff",
    "sidebar": "#eceef3", "selection": "#d9e0fb",
}
DARK = {
    "bg": "#15181e", "surface": "#1d2129", "surface2": "#252a34", "border": "#2e3440",
    "text": "#e4e7ec", "muted": "#97a0b0", "accent": "#7d92ff", "accent_soft": "#2a3150",
    "accent_text": "#10131a", "good": "#2fb482", "good_hover": "#39c78f", "bad": "#e05a53",
    "bad_hover": "#ea6c65", "warn_bg": "#3a2f17", "warn_border": "#6b5420", "warn_text": "#f3d28b",
    "err_bg": "#3b1f21", "err_border": "#6e3236", "err_text": "#f6b7b3", "info_bg": "#1e2b45",
    "info_border": "#31466f", "info_text": "#a9c3f7", "learner": "#2a3150", "tutor": "#232833",
    "sidebar": "#1a1d24", "selection": "#33406b",
}

def emotion_color(label: str) -> str:
    """Chip / chart colour of a raw emotion label: its learner-facing feeling's (calm, never red)."""
    return feeling(label).colour


# Fonts with Korean glyphs (learners write their Korean name, a Korean place), best first;
# the .deb depends on fonts-noto-cjk. Without one, Korean text is drawn as empty boxes.
CJK_FAMILIES = ("Noto Sans CJK KR", "Noto Sans KR", "Source Han Sans KR", "NanumGothic", "Nanum Gothic",
                "NanumBarunGothic", "Malgun Gothic", "Apple SD Gothic Neo", "UnDotum", "Baekmuk Gulim",
                "Noto Sans CJK JP", "Noto Sans CJK SC", "Droid Sans Fallback")


def cjk_family() -> str | None:
    """An installed family that draws Korean (None when there is none)."""
    present = QFontDatabase.families()
    known = set(present)
    for family in CJK_FAMILIES:
        if family in known:
            return family
    korean = QFontDatabase.families(QFontDatabase.WritingSystem.Korean)
    return korean[0] if korean else None


def use_cjk_fallback(app: QApplication) -> str | None:
    """The app font keeps its family for Latin text and falls back to a Korean-capable one
    for the rest (family list and a substitution, so widgets with their own font get it too)."""
    family = cjk_family()
    if family is None:
        log.warning("no font with Korean glyphs is installed (install fonts-noto-cjk): Korean text shows as boxes")
        return None
    font = QFont(app.font())
    # The real family behind an alias ("Sans Serif"): listed first, Latin text keeps it.
    base = QFontInfo(font).family()
    font.setFamilies(list(dict.fromkeys([base, family])))
    app.setFont(font)
    if family not in QFont.substitutes(base):
        QFont.insertSubstitution(base, family)
    return family


class Theme:
    def __init__(self, name: str) -> None:
        self.name = name if name in ("light", "dark") else "light"
        self.colors = dict(DARK if self.name == "dark" else LIGHT)

    def color(self, key: str) -> QColor:
        return QColor(self.colors[key])

    def stylesheet(self) -> str:
        text = (assets_dir() / "ui" / "style.qss").read_text(encoding="utf-8")
        # Longest names first so $surface2 is not eaten by $surface.
        for key in sorted(self.colors, key=len, reverse=True):
            text = text.replace("$" + key, self.colors[key])
        return text.replace("$assets", assets_dir().as_posix())

    def icon(self, name: str, color_key: str = "text", size: int = 20) -> QIcon:
        return QIcon(_tinted_pixmap(name, self.colors.get(color_key, color_key), size))


_current: Theme | None = None


def system_theme_name() -> str:
    forced = os.environ.get(ENV_THEME, "").lower()
    if forced in ("light", "dark"):
        return forced
    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", lambda: None)()
    return "dark" if scheme == Qt.ColorScheme.Dark else "light"


def apply_theme(app: QApplication, name: str | None = None) -> Theme:
    global _current
    theme = Theme(name or system_theme_name())
    _current = theme
    app.setStyle("Fusion")  # the same look on every OS; QSS refines it
    use_cjk_fallback(app)
    pal = QPalette()
    c = theme.color
    for role, key in ((QPalette.ColorRole.Window, "bg"), (QPalette.ColorRole.Base, "surface"), (QPalette.ColorRole.AlternateBase, "surface2"),
                      (QPalette.ColorRole.WindowText, "text"), (QPalette.ColorRole.Text, "text"), (QPalette.ColorRole.Button, "surface"),
                      (QPalette.ColorRole.ButtonText, "text"), (QPalette.ColorRole.Highlight, "accent"),
                      (QPalette.ColorRole.HighlightedText, "accent_text"), (QPalette.ColorRole.ToolTipBase, "surface"),
                      (QPalette.ColorRole.ToolTipText, "text"), (QPalette.ColorRole.PlaceholderText, "muted")):
        pal.setColor(role, c(key))
    app.setPalette(pal)
    app.setStyleSheet(theme.stylesheet())
    return theme


def theme() -> Theme:
    global _current
    if _current is None:
        _current = Theme("light")
    return _current


def icon(name: str, color_key: str = "text", size: int = 20) -> QIcon:
    return theme().icon(name, color_key, size)


@lru_cache(maxsize=256)
def _tinted_pixmap(name: str, color: str, size: int) -> QPixmap:
    path = assets_dir() / "icons" / f"{name}.svg"
    try:
        svg = path.read_text(encoding="utf-8").replace("currentColor", color)
    except OSError:
        return QPixmap()
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    ratio = 2  # crisp on HiDPI screens
    pix = QPixmap(QSize(size * ratio, size * ratio))
    pix.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pix)
    renderer.render(painter)
    painter.end()
    pix.setDevicePixelRatio(ratio)
    return pix
