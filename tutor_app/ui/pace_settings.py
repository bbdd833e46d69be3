"""Settings rows for the pace of a call: how fast the tutor speaks and how long it waits
when the learner pauses mid-sentence (the values: tutor/rate.py and call/pauses.py)."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLabel

from tutor_app.call.pauses import LEVEL_THINKING_MS
from tutor_app.speech.speaking_rate import LEVEL_RATE
from tutor_app.ui.tr_mark import QT_TRANSLATE_NOOP

RATES = ((0.0, QT_TRANSLATE_NOOP("PaceControls", "By my level")),
         (0.7, QT_TRANSLATE_NOOP("PaceControls", "Much slower")),
         (0.85, QT_TRANSLATE_NOOP("PaceControls", "Slower")),
         (1.0, QT_TRANSLATE_NOOP("PaceControls", "Normal")),
         (1.15, QT_TRANSLATE_NOOP("PaceControls", "Faster")),
         (1.3, QT_TRANSLATE_NOOP("PaceControls", "Much faster")))
THINKING_MS = (1000, 1500, 2000, 3000, 4000, 5000)  # "By my level" (0) first


def _seconds(ms: float) -> str:
    return QCoreApplication.translate("PaceControls", "%1 s").replace("%1", QLocale().toString(float(ms / 1000), "g", 3))


def _rate_words(rate: float) -> str:
    return (QCoreApplication.translate("PaceControls", "normal") if abs(rate - 1.0) < 1e-6 else QCoreApplication.translate("PaceControls", "a little slower") if rate < 1
            else QCoreApplication.translate("PaceControls", "a little faster"))


class PaceControls:
    """The widgets; `add_to` puts them into a settings form, `apply` copies them back."""

    def __init__(self, speech, level: str) -> None:
        rates = [(v, QCoreApplication.translate("PaceControls", text)) for v, text in RATES]
        self.speed = self._combo(rates, speech.speaking_rate, QCoreApplication.translate("PaceControls", "Speaking speed"),
                                 lambda v: QCoreApplication.translate("PaceControls", "Your choice (%1x)").replace("%1", QLocale().toString(float(v), "g", 3)))
        thinking = [(0, QCoreApplication.translate("PaceControls", "By my level")), *((ms, _seconds(ms)) for ms in THINKING_MS)]
        self.thinking = self._combo(thinking, speech.thinking_ms, QCoreApplication.translate("PaceControls", "Thinking time"), _seconds)
        self.adapt = QCheckBox(QCoreApplication.translate("PaceControls", "Learn from my pauses"))
        self.adapt.setAccessibleName(QCoreApplication.translate("PaceControls", "Learn the thinking time from my pauses"))
        self.adapt.setChecked(speech.adapt_thinking)
        self.set_level(level)

    @staticmethod
    def _combo(items, current, name: str, custom) -> QComboBox:
        box = QComboBox()
        box.setAccessibleName(name)
        for value, text in items:
            box.addItem(text, value)
        index = next((i for i, (v, _) in enumerate(items) if abs(v - current) < 1e-6), -1)
        if index < 0:  # a value asked for in a call or typed into the file
            box.addItem(custom(current), current)
            index = box.count() - 1
        box.setCurrentIndex(index)
        return box

    def add_to(self, form: QFormLayout) -> None:
        form.addRow(QCoreApplication.translate("PaceControls", "Speaking speed"), self.speed)
        form.addRow("", _hint(QCoreApplication.translate("PaceControls", "How fast the tutor talks. In a call you can also just ask: "
                                                                 "\u201cCould you speak more slowly?\u201d")))
        form.addRow(QCoreApplication.translate("PaceControls", "Thinking time"), self.thinking)
        form.addRow("", self.adapt)
        form.addRow("", _hint(QCoreApplication.translate("PaceControls", "How long Tutor waits when you pause in the middle of a sentence. "
                                                                 "A sentence that sounds finished is answered after half of it. "
                                                                 "Learning from your pauses lets it wait longer if you often "
                                                                 "need more time.")))

    def set_level(self, level: str) -> None:
        """Say what "By my level" means for the level chosen in the dialog."""
        rate = LEVEL_RATE.get(level, 1.0)
        wait = LEVEL_THINKING_MS.get(level, LEVEL_THINKING_MS["intermediate"])
        self.speed.setItemText(0, QCoreApplication.translate("PaceControls", "By my level (%1)").replace("%1", _rate_words(rate)))
        self.thinking.setItemText(0, QCoreApplication.translate("PaceControls", "By my level (%1)").replace("%1", _seconds(wait)))

    def apply(self, speech) -> None:
        speech.speaking_rate = float(self.speed.currentData() or 0.0)
        speech.thinking_ms = int(self.thinking.currentData() or 0)
        speech.adapt_thinking = self.adapt.isChecked()


def _hint(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("FieldHint")
    label.setWordWrap(True)
    return label
