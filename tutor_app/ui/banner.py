"""A calm, dismissable banner for problems (no microphone, key rejected, offline...)."""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

from tutor_app.ui.theme import icon

# Problem kinds (tutor/events.py) -> (level, short title).
KIND_TITLES = {
    "no-microphone": ("error", "No microphone"),
    "device-lost": ("error", "Audio device lost"),
    "api-key": ("error", "API key rejected"),
    "offline": ("warning", "Offline: using the local tutor model"),
    "llm": ("warning", "Tutor model problem"),
    "tts": ("warning", "Voice problem"),
    "models": ("warning", "Models missing"),
    "other": ("warning", "Something went wrong"),
}


@dataclass
class BannerAction:
    text: str
    key: str  # passed back through Banner.actionRequested


class Banner(QFrame):
    actionRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Banner")
        self.setAccessibleName("Notice")
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 10, 10, 10)
        row.setSpacing(10)
        self._icon = QLabel()
        self._icon.setFixedSize(20, 20)
        self._text = QLabel()
        self._text.setWordWrap(True)
        self._text.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self._text.setObjectName("BannerText")
        self._action = QPushButton()
        self._action.setObjectName("BannerAction")
        self._action.clicked.connect(lambda: self.actionRequested.emit(self._action_key))
        self._close = QToolButton()
        self._close.setIcon(icon("x", "muted", 16))
        self._close.setAccessibleName("Dismiss notice")
        self._close.setAutoRaise(True)
        self._close.clicked.connect(self.hide)
        row.addWidget(self._icon, 0, Qt.AlignTop)
        row.addWidget(self._text, 1)
        row.addWidget(self._action, 0, Qt.AlignVCenter)
        row.addWidget(self._close, 0, Qt.AlignTop)
        self._action_key = ""
        self.kind = ""
        self.hide()

    @property
    def message(self) -> str:
        return self._text.text()

    def show_problem(self, kind: str, message: str, action: BannerAction | None = None) -> None:
        level, title = KIND_TITLES.get(kind, KIND_TITLES["other"])
        self.show_message(level, title, message, action)
        self.kind = kind

    def show_message(self, level: str, title: str, message: str, action: BannerAction | None = None) -> None:
        self.kind = level
        self.setProperty("level", level)
        self.style().unpolish(self)
        self.style().polish(self)
        colour = {"error": "err_text", "warning": "warn_text"}.get(level, "info_text")
        self._icon.setPixmap(icon("warning" if level in ("error", "warning") else "info", colour, 20).pixmap(20, 20))
        body = f"<b>{_esc(title)}</b>" + (f" — {_esc(message)}" if message else "")
        self._text.setText(body)
        self._action_key = action.key if action else ""
        self._action.setVisible(action is not None)
        if action:
            self._action.setText(action.text)
        self.show()


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
