"""Marks a string for the translation files where it is defined (module constants, the
pure wording modules) without translating it there: the UI translates it where it is
shown, with QCoreApplication.translate(context, text). No Qt here (emotion_words.py
uses it); typed, unlike PySide6's own QT_TRANSLATE_NOOP (which returns object)."""
from __future__ import annotations


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 - the name pyside6-lupdate collects
    return text
