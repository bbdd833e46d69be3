"""The Korean interface: the translation follows the system language (ko_KR) or the
Settings choice, the real windows read Korean, English stays English, and every string
the code marks for translation has a finished Korean translation in tutor_ko.ts."""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale

from tests.ui.conftest import REPORT
from tests.ui.test_settings_dialog import _pick, _services
from tutor_app.paths import AppPaths
from tutor_app.settings import Settings
from tutor_app.ui.main_window import MainWindow
from tutor_app.ui.report_view import ReportView
from tutor_app.ui.settings_dialog import SettingsDialog
from tutor_app.ui.translation import I18N_DIR, install_translation, qm_file

KOREA = QLocale(QLocale.Language.Korean, QLocale.Country.SouthKorea)
US = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
UI_SOURCES = sorted(str(p) for p in (I18N_DIR.parent).glob("*.py"))


def _nav(window: MainWindow) -> list[str]:
    return [b.text() for b in window.nav.buttons()] + [window.settings_button.text()]


def _form_labels(dialog: SettingsDialog) -> list[str]:
    from PySide6.QtWidgets import QLabel

    return [w.text() for w in dialog.tabs.widget(0).findChildren(QLabel) if w.text()]


def test_korean_system_gets_the_korean_interface(qtbot, qapp, settings):
    assert qm_file("ko").is_file(), "make setup builds tutor_ko.qm from tutor_ko.ts"
    assert install_translation(qapp, "system", KOREA) == "ko"
    window = MainWindow(_services(settings), warm_up=False)
    qtbot.addWidget(window)
    assert window.call_view.call_button.accessibleName() == "통화 시작"
    assert _nav(window) == ["통화", "발전 기록", "연습", "기억", "모델", "설정"]
    assert window.call_view.off_record.text() == "기록하지 않기"
    dialog = SettingsDialog(_services(settings), window)
    qtbot.addWidget(dialog)
    assert [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())] == [
        "튜터", "오디오", "튜터 모델", "음성 인식", "데이터"]
    assert {"억양", "수준", "주제", "화면 언어"} <= set(_form_labels(dialog))
    assert dialog.level.itemText(0) == "초급"
    # Qt's own standard buttons come in Korean too (qtbase_ko.qm).
    assert dialog.save_button.text() == "저장"


def test_korean_report_numbers_plurals_and_feelings(qtbot, qapp):
    install_translation(qapp, "ko")
    view = ReportView()
    qtbot.addWidget(view)
    view.set_report(dict(REPORT, turns=3, words=1234))
    assert view.heading.text() == "통화 리포트"
    assert view.subtitle.text().endswith(" · 대화 3번")
    assert view.words.value.text() == "1,234"  # QLocale's grouping (ko_KR)
    assert "월" in view.subtitle.text() and "일" in view.subtitle.text()  # "11월 21일 (금) ..."
    assert QCoreApplication.translate("Feeling", "you sound unsure") == "자신 없어 보여요"


def test_english_system_stays_english(qtbot, qapp, settings):
    assert install_translation(qapp, "system", US) == "en"
    window = MainWindow(_services(settings), warm_up=False)
    qtbot.addWidget(window)
    assert window.call_view.call_button.accessibleName() == "Start call"
    assert _nav(window) == ["Call", "Progress", "Practice", "Memory", "Models", "Settings"]
    view = ReportView()
    qtbot.addWidget(view)
    view.set_report(dict(REPORT, turns=1))
    assert view.subtitle.text().endswith(" · 1 turn")  # English plural forms (tutor_en.qm)
    view.set_report(dict(REPORT, turns=4))
    assert view.subtitle.text().endswith(" · 4 turns")


@pytest.mark.parametrize("choice, system, expected", [("en", KOREA, "Start call"), ("ko", US, "통화 시작"),
                                                      ("system", KOREA, "통화 시작")])
def test_the_settings_choice_overrides_the_system(qtbot, qapp, settings, choice, system, expected):
    install_translation(qapp, choice, system)
    window = MainWindow(_services(settings), warm_up=False)
    qtbot.addWidget(window)
    assert window.call_view.call_button.accessibleName() == expected


def test_the_language_is_chosen_in_settings_and_saved(qtbot, settings, memory_keyring):
    dialog = SettingsDialog(_services(settings))
    qtbot.addWidget(dialog)
    assert dialog.ui_language.currentData() == "system"
    assert [dialog.ui_language.itemText(i) for i in range(3)] == ["Same as the system", "English", "한국어"]
    _pick(dialog.ui_language, "ko")
    with qtbot.waitSignal(dialog.accepted, timeout=3000):
        dialog.save_button.click()
    again = Settings.load(AppPaths.resolve(settings.paths.data_dir))
    assert again.tutor.ui_language == "ko"


def test_tutor_app_gui_starts_in_the_saved_language(qtbot, qapp, data_dir, monkeypatch):
    """`tutor-app gui` reads the choice from the settings file at start, whatever the system."""
    import argparse

    from PySide6.QtWidgets import QApplication

    from tutor_app.app import App
    from tutor_app.commands import gui

    saved = Settings.load(AppPaths.resolve(data_dir))
    saved.tutor.ui_language = "ko"
    saved.save()
    shown = []

    def fake_exec():
        windows = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
        shown.extend(w.windowTitle() for w in windows)
        for w in windows:
            w.close()
        return 0

    monkeypatch.setattr(QApplication, "exec", staticmethod(fake_exec))
    monkeypatch.setattr(gui, "has_display", lambda: True)
    app = App.from_args(argparse.Namespace(data_dir=str(data_dir), profile=None, llm=None, debug=False))
    assert gui.run(argparse.Namespace(), app) == 0
    assert "영어 말하기 연습" in shown
    assert QLocale().language() == QLocale.Language.Korean


def _messages(ts: Path):
    for context in ET.parse(ts).getroot().iter("context"):
        for message in context.iter("message"):
            yield context.findtext("name"), message


def test_every_string_has_a_finished_korean_translation():
    unfinished = []
    for context, message in _messages(I18N_DIR / "tutor_ko.ts"):
        tr = message.find("translation")
        texts = [f.text for f in tr.iter("numerusform")] if message.get("numerus") == "yes" else [tr.text]
        if tr.get("type") in ("unfinished", "obsolete", "vanished") or not all(t and t.strip() for t in texts):
            unfinished.append(f"{context}: {message.findtext('source')!r}")
        elif "%1" in message.findtext("source") and "%1" not in texts[0]:
            unfinished.append(f"{context}: {message.findtext('source')!r} loses its %1")
    assert not unfinished, "\n".join(unfinished)


def test_the_ts_file_holds_every_string_of_the_code(tmp_path):
    """Collected again from tutor_app/ui with pyside6-lupdate: nothing the code marks is
    missing from the committed .ts (`make translations` updates it)."""
    lupdate = Path(sys.executable).with_name("pyside6-lupdate")
    fresh = tmp_path / "fresh.ts"
    subprocess.run([str(lupdate), *UI_SOURCES, "-ts", str(fresh)], check=True, capture_output=True)
    committed = {(c, m.findtext("source")) for c, m in _messages(I18N_DIR / "tutor_ko.ts")}
    missing = sorted({(c, m.findtext("source")) for c, m in _messages(fresh)} - committed)
    assert len(committed) > 200
    assert not missing, "\n".join(f"{c}: {s!r}" for c, s in missing)


CHILD = """
import json, sys
from PySide6.QtWidgets import QApplication
from tutor_app.paths import AppPaths
from tutor_app.settings import Settings
from tutor_app.ui.main_window import MainWindow
from tutor_app.ui.services import UiServices
from tutor_app.ui.translation import install_translation

app = QApplication([])
settings = Settings.load(AppPaths.resolve(sys.argv[1]))
language = install_translation(app, settings.tutor.ui_language)
window = MainWindow(UiServices(settings=settings, registry=lambda: None), warm_up=False)
print(json.dumps([language, window.call_view.call_button.accessibleName(),
                  [b.text() for b in window.nav.buttons()] + [window.settings_button.text()]]))
"""


@pytest.mark.parametrize("lang, expected", [("ko_KR.UTF-8", ["ko", "통화 시작", "통화", "설정"]),
                                            ("en_GB.UTF-8", ["en", "Start call", "Call", "Settings"])])
def test_the_system_language_decides_in_a_fresh_process(data_dir, lang, expected):
    """As a learner starts it: LANG alone picks the language (no setting saved)."""
    import json
    import os

    env = {**os.environ, "LANG": lang, "LC_ALL": "", "LC_MESSAGES": "", "LANGUAGE": "", "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run([sys.executable, "-c", CHILD, str(data_dir)], env=env, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    language, call, nav = json.loads(out.strip().splitlines()[-1])
    assert [language, call, nav[0], nav[-1]] == expected
