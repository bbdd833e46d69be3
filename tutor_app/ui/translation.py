"""The interface's language: English (the source strings) or Korean (i18n/tutor_ko.qm,
built by the setup from i18n/tutor_ko.ts with pyside6-lrelease).

The Settings choice (tutor.ui_language: system | en | ko) wins; "system" follows
QLocale.system() (ko_KR -> Korean, anything else English). Applied at start: a change
in Settings takes effect at the next start.

Plurals: pyside6-lupdate gives numerus forms only to self.tr(text, "", n) (not to
QCoreApplication.translate with n, which still fills %n): a count that can be 1 goes
through self.tr."""
from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from tutor_app.ui.emotion_words import Feeling

log = logging.getLogger(__name__)

I18N_DIR = Path(__file__).resolve().parent / "i18n"
TRANSLATOR_NAME = "tutor-translator"


def interface_language(choice: str, system: QLocale | None = None) -> str:
    """"ko" or "en": the choice, or for "system" (and anything unknown) the system's."""
    if choice in ("en", "ko"):
        return choice
    system = system or QLocale.system()
    return "ko" if system.language() == QLocale.Language.Korean else "en"


def qm_file(language: str) -> Path:
    return I18N_DIR / f"tutor_{language}.qm"


def install_translation(app: QCoreApplication, choice: str, system: QLocale | None = None) -> str:
    """Load the chosen language into `app` (the app's strings; for Korean also Qt's own
    standard buttons) and make QLocale's default follow it (numbers, dates). Returns the
    language in force: "en" when the Korean file is missing (said in the log). English
    loads tutor_en.qm too: it holds the English plural forms ("1 turn", "2 turns")."""
    language = interface_language(choice, system)
    for old in app.findChildren(QTranslator, TRANSLATOR_NAME):
        app.removeTranslator(old)
        old.setParent(None)
    if language != "en" and not _install(app, str(qm_file(language))):
        log.warning("no interface translation %s (make setup builds it): English kept", qm_file(language).name)
        language = "en"
    if language == "en":
        if not _install(app, str(qm_file("en"))):
            log.info("no %s (make setup builds it): plurals read \"(s)\"", qm_file("en").name)
        QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
        return "en"
    # QMessageBox's Yes/No, QFileDialog, the context menu of a text box.
    _install(app, f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))
    QLocale.setDefault(QLocale(QLocale.Language.Korean, QLocale.Country.SouthKorea))
    return language


def _install(app: QCoreApplication, name: str, folder: str = "") -> bool:
    translator = QTranslator(app)
    translator.setObjectName(TRANSLATOR_NAME)
    if translator.load(name, folder) if folder else translator.load(name):
        app.installTranslator(translator)
        return True
    translator.setParent(None)
    return False


def feeling_words(felt: Feeling) -> tuple[str, str]:
    """A feeling as shown: (title for a chip, phrase for a sentence), in the interface's language."""
    phrase = QCoreApplication.translate("Feeling", felt.phrase)
    return phrase[:1].upper() + phrase[1:], phrase
