"""The common frame of a sidebar page: margins, spacing and a title row."""
from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget


def page_layout(page: QWidget, title: str) -> tuple[QVBoxLayout, QHBoxLayout]:
    """(page column, title row); the caller adds its own controls to the row, then
    `col.addLayout(head)`."""
    col = QVBoxLayout(page)
    col.setContentsMargins(24, 18, 24, 18)
    col.setSpacing(10)
    head = QHBoxLayout()
    label = QLabel(title)
    label.setObjectName("PageTitle")
    head.addWidget(label)
    head.addStretch(1)
    return col, head
