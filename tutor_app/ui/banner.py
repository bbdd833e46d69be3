"""A calm, dismissable banner for problems (no microphone, key rejected, offline...)."""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

from tutor_app.ui.theme import icon
from tutor_app.ui.tr_mark import QT_TRANSLATE_NOOP

# Problem kinds (call/events.py) -> (level, short title).
KIND_TITLES = {
    "no-microphone": ("error", QT_TRANSLATE_NOOP("Banner", "No microphone")),
    "no-speaker": ("warning", QT_TRANSLATE_NOOP("Banner", "No speaker")),
    "device-lost": ("error", QT_TRANSLATE_NOOP("Banner", "Audio device lost")),
    "api-key": ("error", QT_TRANSLATE_NOOP("Banner", "API key rejected")),
    "offline": ("warning", QT_TRANSLATE_NOOP("Banner", "Offline: using the local tutor model")),
    "llm": ("warning", QT_TRANSLATE_NOOP("Banner", "Tutor model problem")),
    "tts": ("warning", QT_TRANSLATE_NOOP("Banner", "Voice problem")),
    "models": ("warning", QT_TRANSLATE_NOOP("Banner", "Models missing")),
    "other": ("warning", ""),
}
# The fixed messages of the live call's problems (call/), translated where they
# are shown; a message with details in it stays as it came.
PROBLEM_MESSAGES = (
    QT_TRANSLATE_NOOP("Problems", "The microphone was disconnected: the call is paused until it is back "
                                  "(you can still type)."),
    QT_TRANSLATE_NOOP("Problems", "The microphone did not come back: end the call or type your turns."),
    QT_TRANSLATE_NOOP("Problems", "The tutor model did not accept the API key: check it in Settings."),
)


SEVERITY = {"info": 0, "warning": 1, "error": 2}


@dataclass
class BannerAction:
    text: str
    key: str  # passed back through Banner.actionRequested


class Banner(QFrame):
    actionRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Banner")
        self.setAccessibleName(self.tr("Notice"))
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 10, 10, 10)
        row.setSpacing(10)
        self._icon = QLabel()
        self._icon.setFixedSize(20, 20)
        self._text = QLabel()
        self._text.setWordWrap(True)
        self._text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._text.setObjectName("BannerText")
        self._action = QPushButton()
        self._action.setObjectName("BannerAction")
        self._action.clicked.connect(lambda: self.actionRequested.emit(self._action_key))
        self._close = QToolButton()
        self._close.setIcon(icon("x", "muted", 16))
        self._close.setAccessibleName(self.tr("Dismiss notice"))
        self._close.setAutoRaise(True)
        self._close.clicked.connect(self.dismiss)
        row.addWidget(self._icon, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self._text, 1)
        row.addWidget(self._action, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self._close, 0, Qt.AlignmentFlag.AlignTop)
        self._action_key: str = ""
        self.kind = ""
        self._lines: list[tuple[int, str]] = []  # (severity, html) shown together
        self.hide()

    @property
    def message(self) -> str:
        return self._text.text()

    def show_problem(self, kind: str, message: str, action: BannerAction | None = None) -> None:
        level, title = KIND_TITLES.get(kind, KIND_TITLES["other"])
        message = QCoreApplication.translate("Problems", message) if message in PROBLEM_MESSAGES else message
        self.show_message(level, QCoreApplication.translate("Banner", title) if title else "", message, action)
        self.kind = kind

    def show_message(self, level: str, title: str, message: str, action: BannerAction | None = None) -> None:
        """Problems that arrive together (no microphone, then no speaker) are listed
        together, most severe first, instead of the last one hiding the first."""
        self.kind = level
        if title:
            line = f"<b>{_esc(title)}</b>" + (f" — {_esc(message)}" if message else "")
        else:
            line = _esc(message[:1].upper() + message[1:])
        severity = SEVERITY.get(level, 0)
        if not self.isVisible():
            self._lines = []
        if line not in (text for _sev, text in self._lines):
            self._lines.append((severity, line))
            self._lines.sort(key=lambda item: -item[0])  # stable: same severity keeps order
            del self._lines[3:]
        top = max(sev for sev, _text in self._lines)
        shown = next(name for name, sev in SEVERITY.items() if sev == top)
        self.setProperty("level", shown)
        self.style().unpolish(self)
        self.style().polish(self)
        colour = {"error": "err_text", "warning": "warn_text"}.get(shown, "info_text")
        self._icon.setPixmap(icon("warning" if shown in ("error", "warning") else "info", colour, 20).pixmap(20, 20))
        self._text.setText("<br>".join(text for _sev, text in self._lines))
        if action is not None or not self._action_key:
            self._action_key = action.key if action else ""
            self._action.setVisible(action is not None)
            if action:
                self._action.setText(action.text)
        self.show()

    def dismiss(self) -> None:
        self._lines = []
        self._action_key = ""
        self.hide()


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
