"""The Settings window's Anthropic API key: the masked field, "Test key", "Remove", and
where the key lives (the system keyring; with none, this run's memory, and how to keep
it). Every keyring call runs in a worker (it may block on an unlock prompt)."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from tutor_app.errors import error_text
from tutor_app.ui.services import UiServices
from tutor_app.ui.workers import run_task


class ApiKeyField(QWidget):
    def __init__(self, services: UiServices, claude_model: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.claude_model = claude_model  # the model picked in the window, for "Test key"
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(4)
        row = QHBoxLayout()
        self.edit = QLineEdit()
        self.edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.edit.setAccessibleName(self.tr("Anthropic API key"))
        self.edit.setPlaceholderText("sk-ant-…")
        row.addWidget(self.edit, 1)
        self.test_button = QPushButton(self.tr("Test key"))
        self.test_button.clicked.connect(self.test_key)
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.setProperty("danger", True)
        self.remove_button.setAccessibleName(self.tr("Remove the stored API key"))
        self.remove_button.clicked.connect(self.remove_key)
        self.remove_button.setEnabled(False)  # until the keyring says a key is stored
        row.addWidget(self.test_button)
        row.addWidget(self.remove_button)
        col.addLayout(row)
        self.status = _hint()  # where the key is
        self.result = _hint()  # the outcome of "Test key" or of saving
        col.addWidget(self.status)
        col.addWidget(self.result)
        self.result.hide()
        self.stored = False

    def refresh_status(self) -> None:
        def show(src: str) -> None:
            self.stored = src in ("keyring", "run")
            self.remove_button.setEnabled(self.stored)
            if src == "keyring":
                self.edit.setPlaceholderText(self.tr("•••••••••••• (stored in the keyring; type to replace)"))
                self.status.setText(self.tr("A key is stored in the system keyring."))
            elif src == "run":
                self.edit.setPlaceholderText(self.tr("•••••••••••• (kept until Tutor closes; type to replace)"))
                self.status.setText(self.tr("Using the key you entered. %1").replace("%1", self.services.keys.keep_hint()))
            elif src == "env":
                self.status.setText(self.tr("Using the key from the ANTHROPIC_API_KEY environment variable."))
            else:
                self.edit.setPlaceholderText("sk-ant-…")
                self.status.setText(self.tr("No key: the tutor runs offline on this computer."))

        self.stored = False
        run_task(self.services.keys.source, on_done=show, on_error=lambda e: self.status.setText(error_text(e)),
                 context=self)

    def set_result(self, text: str) -> None:
        self.result.setText(text)
        self.result.setVisible(bool(text))

    def test_key(self) -> None:
        typed = self.edit.text().strip()
        model = self.claude_model()
        self.test_button.setEnabled(False)
        self.set_result(self.tr("Testing the key…"))

        def work() -> str:
            key = typed or self.services.keys.get()
            if not key:
                raise ValueError(self.tr("no key to test: paste one first"))
            return self.services.test_key(key, model)

        def done(text: str) -> None:
            self.test_button.setEnabled(True)
            self.set_result(text)

        def failed(exc: BaseException) -> None:
            self.test_button.setEnabled(True)
            self.set_result(self.tr("Key test failed: %1").replace(
                "%1", error_text(exc) if not isinstance(exc, ValueError) else str(exc)))

        run_task(work, on_done=done, on_error=failed, context=self)

    def remove_key(self) -> None:
        self.remove_button.setEnabled(False)

        def done(_result) -> None:
            self.edit.clear()
            self.set_result("")
            self.refresh_status()

        run_task(self.services.keys.delete, on_done=done, on_error=lambda e: self.status.setText(error_text(e)),
                 context=self)

    def kept_for_this_run(self) -> None:
        """Saved without a keyring: the key works until Tutor closes; say how to keep it."""
        self.edit.clear()
        self.refresh_status()
        self.set_result(self.tr("Settings saved. %1").replace("%1", self.services.keys.keep_hint()))


def _hint() -> QLabel:
    label = QLabel()
    label.setObjectName("FieldHint")
    label.setWordWrap(True)
    return label
