"""The common frame of a sidebar page: margins, spacing, a title row, a read-only list table."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QMessageBox,
                               QTableWidget, QVBoxLayout, QWidget)


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


def list_table(columns: Sequence[str], name: str, stretch: int) -> QTableWidget:
    """A read-only, row-selecting table with no grid; column `stretch` takes the room."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(columns)
    table.setAccessibleName(name)
    table.verticalHeader().hide()
    table.setShowGrid(False)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setWordWrap(False)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    return table


def confirm(parent: QWidget, title: str, text: str, action: str) -> bool:
    """A destructive action asked once: Cancel is the default, `action` must be clicked."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Cancel, parent)
    yes = box.addButton(action, QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is yes


def short_date(when: datetime | None, missing: str = "—") -> str:
    """"21 Nov" this year, "21 Nov 2025" before; `missing` when there is no date."""
    if when is None:
        return missing
    local = when.astimezone()
    return local.strftime("%d %b" if local.year == datetime.now().year else "%d %b %Y")
