"""The learner's profile as a card: name, occupation, interests, goals, preferences,
facts; older replaced values shown quietly as "before: ..."."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from tutor_app.ui.memory_source import ProfileEntry


class ProfileCard(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Card")
        self.setMinimumWidth(180)  # leaves the memory list room in an 800 px window
        self.setMaximumWidth(300)
        self.setAccessibleName(self.tr("Learner profile"))
        # A long profile scrolls inside the card instead of being cut off at the bottom.
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.viewport().setAutoFillBackground(False)
        inner = QWidget()
        inner.setObjectName("ProfileInner")
        inner.setStyleSheet("#ProfileInner { background: transparent; }")
        scroll.setWidget(inner)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(1, 1, 1, 1)  # inside the card's rounded border
        outer.addWidget(scroll)
        self._col = QVBoxLayout(inner)
        self._col.setContentsMargins(15, 13, 15, 13)
        self._col.setSpacing(4)

    def set_entries(self, profile: str, entries: list[ProfileEntry]) -> None:
        while self._col.count():
            item = self._col.takeAt(0)
            if item is not None and (widget := item.widget()):  # count() > 0: never None
                widget.deleteLater()
        head = QLabel(self.tr("About %1").replace("%1", profile))
        head.setObjectName("SectionTitle")
        self._col.addWidget(head)
        for entry in entries:
            label = QLabel(entry.field.upper())
            label.setObjectName("FieldHint")
            f = label.font()
            f.setPointSizeF(max(7.5, f.pointSizeF() * 0.8))
            f.setWeight(QFont.Weight.DemiBold)
            label.setFont(f)
            self._col.addSpacing(6)
            self._col.addWidget(label)
            value = QLabel(", ".join(entry.values) if entry.values else "—")
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setAccessibleName(f"{entry.field}: {value.text()}")
            self._col.addWidget(value)
            if entry.history:
                old = QLabel(self.tr("before: %1").replace("%1", ", ".join(entry.history[:3])))
                old.setObjectName("Muted")
                old.setWordWrap(True)
                self._col.addWidget(old)
        self._col.addStretch(1)
