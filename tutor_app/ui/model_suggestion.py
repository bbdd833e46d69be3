"""The Models page's suggestion card: which offline tutor model suits this computer (from
registry.recommend), with Install for a model not here yet and "Use it" for one that is.
The card only shows and asks; the page installs and saves the settings."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget


def source_note(spec: Any) -> str:
    """Where a model comes from, for a tooltip or the card: honest about unverified hub files."""
    if spec.source == "hub":
        unchecked = ("" if spec.files else " " + QCoreApplication.translate("SuggestionCard", "No checksum is published for it in the app: the sha256 is "
                                                                 "recorded at the first download and every later load is "
                                                                 "checked against it."))
        return QCoreApplication.translate("SuggestionCard", "Downloads from Hugging Face (%1).").replace("%1", str(spec.hub_id)) + unchecked
    if spec.source == "asset":
        return QCoreApplication.translate("SuggestionCard", "Ships with the app.")
    if not spec.default:  # carried by a pip package for the setup, but not bundled in the installer
        return QCoreApplication.translate("SuggestionCard", "Optional, not bundled with the app: downloads once, checksum verified.")
    return QCoreApplication.translate("SuggestionCard", "Bundled with the app (pip package): installs without a download, checksum verified.")


class SuggestionCard(QFrame):
    install_requested = Signal(str)
    use_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Card")
        self.setAccessibleName(self.tr("Suggested offline tutor model"))
        self.name = ""
        self._usable = False
        col = QVBoxLayout(self)
        col.setContentsMargins(16, 12, 16, 12)
        col.setSpacing(4)
        head = QLabel(self.tr("Suggested offline tutor model for this computer"))
        head.setObjectName("SectionTitle")
        col.addWidget(head)
        self.line = QLabel()  # the machine, the model and why, in one line
        self.line.setWordWrap(True)
        self.line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        col.addWidget(self.line)
        self.note = QLabel()  # source, licence, checksum, install state
        self.note.setObjectName("Muted")
        self.note.setWordWrap(True)
        col.addWidget(self.note)
        row = QHBoxLayout()
        self.current = QLabel()  # what the offline tutor uses now; the bundled default marked
        self.current.setObjectName("Muted")
        self.current.setWordWrap(True)
        row.addWidget(self.current, 1)
        self.install_button = QPushButton(self.tr("Install"))
        self.install_button.setObjectName("suggestion-install")
        self.install_button.clicked.connect(lambda: self.install_requested.emit(self.name))
        self.use_button = QPushButton(self.tr("Use it"))
        self.use_button.setObjectName("suggestion-use")
        self.use_button.clicked.connect(lambda: self.use_requested.emit(self.name))
        row.addWidget(self.install_button)
        row.addWidget(self.use_button)
        col.addLayout(row)

    def show_pick(self, pick: Any, status: Any, in_use: str, default_name: str, busy: bool) -> None:
        """`pick` a Recommendation, `status` the pick's ModelStatus, `in_use` the setting
        llm.local_model, `default_name` the bundled offline default."""
        spec = status.spec
        self.name = spec.name
        self.line.setText(pick.summary or f"{pick.name}: {pick.reason}")
        self.line.setToolTip(pick.reason)
        state = (self.tr("In use.") if spec.name == in_use else self.tr("Installed.") if status.usable
                 else self.tr("Damaged: install it again.") if status.state == "corrupt"
                 else self.tr("Not installed yet."))
        licence = self.tr("Licence: %1.").replace("%1", spec.license) if spec.license else ""
        self.note.setText(" ".join(t for t in (state, source_note(spec), licence) if t))
        current = (self.tr("The offline tutor now uses %1 (the bundled offline default).") if in_use == default_name
                   else self.tr("The offline tutor now uses %1."))
        self.current.setText(current.replace("%1", in_use))
        can_install = not status.usable and spec.source != "asset"
        self.install_button.setVisible(can_install)
        self.install_button.setText(self.tr("Repair") if status.state == "corrupt" else
                                    self.tr("Download and install") if spec.source == "hub" else self.tr("Install"))
        self.install_button.setAccessibleName(f"{self.install_button.text()} {spec.name}")
        self.use_button.setVisible(spec.name != in_use)
        self.use_button.setAccessibleName(self.tr("Use %1 as the offline tutor model").replace("%1", spec.name))
        self.use_button.setToolTip("" if status.usable else self.tr("Install it first"))
        self.use_button.setProperty("primary", status.usable)
        self.set_busy(busy, usable=status.usable)
        self.show()

    def set_busy(self, busy: bool, usable: bool | None = None) -> None:
        """While an install runs nothing else starts; "Use it" only for an installed model."""
        self.install_button.setEnabled(not busy)
        if usable is not None:
            self._usable = usable
        self.use_button.setEnabled(not busy and self._usable)
