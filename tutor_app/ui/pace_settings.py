"""Settings rows for the pace of a call: how fast the tutor speaks and how long it waits
when the learner pauses mid-sentence (the values: tutor/rate.py and tutor/pauses.py)."""
from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLabel

from tutor_app.tutor.pauses import LEVEL_THINKING_MS
from tutor_app.speech.speaking_rate import LEVEL_RATE

RATES = ((0.0, "By my level"), (0.7, "Much slower"), (0.85, "Slower"), (1.0, "Normal"),
         (1.15, "Faster"), (1.3, "Much faster"))
THINKING = ((0, "By my level"), (1000, "1 s"), (1500, "1.5 s"), (2000, "2 s"), (3000, "3 s"),
            (4000, "4 s"), (5000, "5 s"))


def _seconds(ms: float) -> str:
    return f"{ms / 1000:g} s"


def _rate_words(rate: float) -> str:
    return "normal" if abs(rate - 1.0) < 1e-6 else "a little slower" if rate < 1 else "a little faster"


class PaceControls:
    """The widgets; `add_to` puts them into a settings form, `apply` copies them back."""

    def __init__(self, speech, level: str) -> None:
        self.speed = self._combo(RATES, speech.speaking_rate, "Speaking speed",
                                 lambda v: f"Your choice ({v:g}x)")
        self.thinking = self._combo(THINKING, speech.thinking_ms, "Thinking time", _seconds)
        self.adapt = QCheckBox("Learn from my pauses")
        self.adapt.setAccessibleName("Learn the thinking time from my pauses")
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
        form.addRow("Speaking speed", self.speed)
        form.addRow("", _hint("How fast the tutor talks. In a call you can also just ask: "
                              "\u201cCould you speak more slowly?\u201d"))
        form.addRow("Thinking time", self.thinking)
        form.addRow("", self.adapt)
        form.addRow("", _hint("How long Tutor waits when you pause in the middle of a sentence. "
                              "A sentence that sounds finished is answered after half of it. "
                              "Learning from your pauses lets it wait longer if you often need more time."))

    def set_level(self, level: str) -> None:
        """Say what "By my level" means for the level chosen in the dialog."""
        rate = LEVEL_RATE.get(level, 1.0)
        wait = LEVEL_THINKING_MS.get(level, LEVEL_THINKING_MS["intermediate"])
        self.speed.setItemText(0, f"By my level ({_rate_words(rate)})")
        self.thinking.setItemText(0, f"By my level ({_seconds(wait)})")

    def apply(self, speech) -> None:
        speech.speaking_rate = float(self.speed.currentData() or 0.0)
        speech.thinking_ms = int(self.thinking.currentData() or 0)
        speech.adapt_thinking = self.adapt.isChecked()


def _hint(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("FieldHint")
    label.setWordWrap(True)
    return label
