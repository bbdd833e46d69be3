"""The live transcript: chat bubbles for the learner (right) and the tutor (left).

The tutor's bubble grows sentence by sentence as each sentence starts playing; a
barge-in cuts it back to what was actually spoken and marks it as interrupted.
"""
from __future__ import annotations

from typing import cast

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

LEARNER, TUTOR = "learner", "tutor"
PENDING_TIMEOUT_MS = 45_000  # longer than any utterance the segmenter lets through


class Bubble(QFrame):
    def __init__(self, role: str, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = role
        self.interrupted = False
        self.pending = False
        self.setObjectName("Bubble")
        self.setProperty("role", role)
        box = QVBoxLayout(self)
        box.setContentsMargins(14, 9, 14, 9)
        box.setSpacing(3)
        self._who = QLabel(self.tr("You") if role == LEARNER else self.tr("Tutor"))
        self._who.setObjectName("BubbleWho")
        self._label = QLabel(text)
        self._label.setObjectName("BubbleText")
        self._label.setWordWrap(True)
        self._label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._note = QLabel()
        self._note.setObjectName("BubbleNote")
        self._note.hide()
        box.addWidget(self._who)
        box.addWidget(self._label)
        box.addWidget(self._note)
        self._sync_accessible()

    @property
    def text(self) -> str:
        return self._label.text()

    def set_text(self, text: str) -> None:
        self._label.setText(text)
        self._sync_accessible()
        self.fit()

    def fit(self, max_width: int | None = None) -> None:
        """Size to the text (a wrapped QLabel alone would pick a narrow column)."""
        if max_width is not None:
            self._max = max_width
        limit = getattr(self, "_max", 520) - 30  # minus the bubble's margins
        fm = self._label.fontMetrics()
        natural = max((fm.horizontalAdvance(line) for line in self.text.split("\n")), default=0)
        natural = max(natural, self._note.fontMetrics().horizontalAdvance(self._note.text()) if
                      self._note.isVisibleTo(self) else 0, 40)
        self._label.setMinimumWidth(min(natural + 4, limit))
        self.setMaximumWidth(limit + 30)

    def append_sentence(self, sentence: str) -> None:
        current = self.text
        self.set_text(f"{current} {sentence.strip()}".strip() if current else sentence.strip())

    def set_note(self, note: str) -> None:
        self._note.setText(note)
        self._note.setVisible(bool(note))
        self.fit()

    def set_pending(self, pending: bool) -> None:
        self.pending = pending
        self.setProperty("pending", pending)
        self.style().unpolish(self)
        self.style().polish(self)

    def mark_interrupted(self, spoken: str) -> None:
        self.interrupted = True
        self.set_text(spoken.strip() + " …" if spoken.strip() else "…")
        self.set_note(self.tr("interrupted: you started speaking"))
        self.setProperty("interrupted", True)
        self.style().unpolish(self)
        self.style().polish(self)

    def _sync_accessible(self) -> None:
        self.setAccessibleName(f"{self._who.text()}: {self.text}")


class TranscriptView(QScrollArea):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Transcript")
        self.setAccessibleName(self.tr("Conversation transcript"))
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget()
        inner.setObjectName("TranscriptInner")
        self._column = QVBoxLayout(inner)
        self._column.setContentsMargins(20, 16, 20, 16)
        self._column.setSpacing(10)
        self._empty = QLabel()
        self._empty.setObjectName("EmptyHint")
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._column.addStretch(1)  # centres the empty hint; squeezed to 0 once there are bubbles
        self._column.addWidget(self._empty)
        self._column.addStretch(1)
        self.setWidget(inner)
        self._bubbles: list[Bubble] = []
        self._open_tutor: Bubble | None = None  # the reply being spoken
        self._pending_learner: Bubble | None = None  # "..." while the learner speaks
        self._pending_timer = QTimer(self)
        self._pending_timer.setSingleShot(True)
        self._pending_timer.setInterval(PENDING_TIMEOUT_MS)
        self._pending_timer.timeout.connect(self.learner_silent)
        self._scroll_timer = QTimer(self)
        self._scroll_timer.setSingleShot(True)
        self._scroll_timer.setInterval(0)
        self._scroll_timer.timeout.connect(self._scroll_to_end)
        self.verticalScrollBar().rangeChanged.connect(self._stick_to_bottom)
        self._follow = True
        self.verticalScrollBar().valueChanged.connect(self._track_follow)

    # -- public ---------------------------------------------------------------------
    def set_empty_text(self, text: str) -> None:
        self._empty.setText(text)

    def bubbles(self) -> list[Bubble]:
        return list(self._bubbles)

    def clear(self) -> None:
        for b in self._bubbles:
            cast(QWidget, b.parentWidget()).deleteLater()  # every bubble sits in a row widget
        self._bubbles.clear()
        self._open_tutor = self._pending_learner = None
        self._empty.show()
        self._column.setStretch(0, 1)

    def learner_speaking(self) -> None:
        if self._pending_learner is None:
            self._pending_learner = self._add(LEARNER, "…")
            self._pending_learner.set_pending(True)
        # Speech that turns out to have no words gives no UserUtterance: drop the "..."
        # bubble if nothing arrives for a while.
        self._pending_timer.start()

    def learner_said(self, text: str) -> None:
        self._pending_timer.stop()
        if self._pending_learner is not None:
            bubble, self._pending_learner = self._pending_learner, None
            bubble.set_text(text)
            bubble.set_pending(False)
        else:
            self._add(LEARNER, text)

    def learner_silent(self) -> None:
        """Speech started but nothing was transcribed: drop the '...' bubble."""
        if self._pending_learner is not None:
            self._remove(self._pending_learner)
            self._pending_learner = None

    def tutor_sentence(self, sentence: str) -> None:
        if self._open_tutor is None:
            self._open_tutor = self._add(TUTOR, "")
        self._open_tutor.append_sentence(sentence)

    def tutor_done(self, reply: str, interrupted: bool = False, note: str = "") -> None:
        bubble, self._open_tutor = self._open_tutor, None
        if bubble is None:
            if not reply.strip() and not interrupted:
                return
            bubble = self._add(TUTOR, reply)
        if interrupted:
            bubble.mark_interrupted(reply)
        elif reply.strip() and reply.strip() != bubble.text.strip():
            bubble.set_text(reply.strip())  # the final reply is the source of truth
        if note:
            bubble.set_note(note)

    # -- internals --------------------------------------------------------------------
    def _add(self, role: str, text: str) -> Bubble:
        self._empty.hide()
        self._column.setStretch(0, 0)
        bubble = Bubble(role, text)
        bubble.fit(self._bubble_width())
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        if role == LEARNER:
            line.addStretch(1)
            line.addWidget(bubble)
        else:
            line.addWidget(bubble)
            line.addStretch(1)
        # Insert before the trailing stretch so the column grows downwards.
        self._column.insertWidget(self._column.count() - 1, row)
        self._bubbles.append(bubble)
        return bubble

    def _remove(self, bubble: Bubble) -> None:
        self._bubbles.remove(bubble)
        cast(QWidget, bubble.parentWidget()).deleteLater()

    def _bubble_width(self) -> int:
        return max(260, int(self.viewport().width() * 0.74))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        width = self._bubble_width()
        for b in self._bubbles:
            b.fit(width)

    def _track_follow(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._follow = value >= bar.maximum() - 24

    def _stick_to_bottom(self, _lo: int, hi: int) -> None:
        if self._follow:
            self._scroll_timer.start()  # after the layout settled; a child timer dies with us

    def _scroll_to_end(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())
