"""Korean renders: the app's font falls back to a font with Korean glyphs."""
from __future__ import annotations

from PySide6.QtGui import QFontDatabase, QRawFont
from PySide6.QtWidgets import QLabel

from tests.conftest import missing_prerequisite
from tutor_app.ui.theme import CJK_FAMILIES, apply_theme, cjk_family

KOREAN = "안녕하세요, 민지예요. 경복궁"


def test_the_app_font_draws_korean(qtbot, qapp):
    family = cjk_family()
    if family is None:
        missing_prerequisite("no font with Korean glyphs installed (apt-get install fonts-noto-cjk)")
    apply_theme(qapp, "light")
    label = QLabel(KOREAN)
    qtbot.addWidget(label)
    font = label.font()
    assert family in font.families()
    raw = QRawFont.fromFont(font, QFontDatabase.WritingSystem.Korean)
    assert raw.isValid() and raw.familyName() in (family, *CJK_FAMILIES), raw.familyName()
    assert all(raw.supportsCharacter(ch) for ch in KOREAN if not ch.isspace() and ch not in ",.")
    assert label.fontMetrics().inFontUcs4(ord("한"))
    latin = QRawFont.fromFont(font, QFontDatabase.WritingSystem.Latin).familyName()
    assert latin not in CJK_FAMILIES, f"English text is drawn with {latin}"  # only the fallback
    assert len(raw.glyphIndexesForString(KOREAN)) == len(KOREAN) and 0 not in [
        g for g, ch in zip(raw.glyphIndexesForString(KOREAN), KOREAN) if not ch.isspace()]
