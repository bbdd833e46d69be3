"""What a Korean learner sees: the "didn't catch that" line in the interface's language (it
is spoken in English), corrections explained in English and Korean in the report, the
Settings switch for that, and the practice topics by name."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel

from tests.ui.conftest import REPORT
from tests.ui.test_call_view import _close_bridges, _texts, _view  # noqa: F401 - the fixture closes bridges
from tests.ui.test_settings_dialog import _pick, _services
from tutor_app.call import events as ev
from tutor_app.paths import AppPaths
from tutor_app.settings import Settings
from tutor_app.tutor.heard import NOT_HEARD
from tutor_app.ui import call_view
from tutor_app.ui.report_view import ReportView
from tutor_app.ui.settings_dialog import SettingsDialog
from tutor_app.ui.translation import install_translation

KOREAN_NOT_HEARD = "잘 못 알아들었어요. 영어로 다시 말하거나 입력해 주세요."


def _not_heard_turn() -> list:
    return [ev.SpeechStarted(), ev.UserUtterance("", 2.0), ev.StateChanged(ev.SPEAKING), ev.TutorSentence(NOT_HEARD),
            ev.TutorTurnDone(NOT_HEARD, not_heard=True), ev.StateChanged(ev.LISTENING)]


@pytest.mark.parametrize("language, shown, note", [
    ("ko", KOREAN_NOT_HEARD, "알아듣지 못했어요"), ("en", NOT_HEARD, "not understood: nothing was kept")])
def test_the_not_heard_line_is_shown_in_the_interfaces_language(qtbot, qapp, backend, language, shown, note):
    assert call_view.NOT_HEARD == NOT_HEARD  # the line the call says is the one marked for translation
    install_translation(qapp, language)
    view, bridge = _view(qtbot, backend)
    with qtbot.waitSignal(bridge.callStarted, timeout=3000):
        view.call_button.click()
    backend.emit_async(_not_heard_turn())
    qtbot.waitUntil(lambda: any(role == "tutor" for role, _ in _texts(view)), timeout=3000)
    qtbot.waitUntil(lambda: _texts(view)[-1] == ("tutor", shown), timeout=3000)
    bubble = view.transcript.bubbles()[-1]
    assert bubble._note.text().startswith(note)


def test_the_report_shows_the_english_and_the_korean_explanation(qtbot, qapp):
    install_translation(qapp, "ko")
    view = ReportView()
    qtbot.addWidget(view)
    corrections = [dict(REPORT["corrections"][0], type="tense", why_ko="지난 일은 과거형 동사로 말해요: goed → went."),
                   dict(REPORT["corrections"][1], type="agreement")]  # an older report: no Korean
    view.set_report(dict(REPORT, corrections=corrections))
    rows = [view.corrections.itemAt(i).widget() for i in range(view.corrections.count())]
    first = [label.text() for label in rows[0].findChildren(QLabel)]
    assert "past of go" in first and "지난 일은 과거형 동사로 말해요: goed → went." in first
    assert rows[0].why_ko is not None and rows[1].why_ko is None
    assert "과거형" in rows[0].accessibleDescription()


def test_the_switch_for_korean_explanations_is_saved(qtbot, qapp, settings, memory_keyring):
    install_translation(qapp, "ko")
    dialog = SettingsDialog(_services(settings))
    qtbot.addWidget(dialog)
    assert dialog.explain_korean.text() == "교정을 한국어로도 설명하기" and not dialog.explain_korean.isChecked()
    assert [dialog.topic.itemText(i) for i in range(3)] == ["일상", "여행", "비즈니스"]
    dialog.explain_korean.setChecked(True)
    _pick(dialog.topic, "travel")
    with qtbot.waitSignal(dialog.accepted, timeout=3000):
        dialog.save_button.click()
    again = Settings.load(AppPaths.resolve(settings.paths.data_dir))
    assert again.tutor.explain_in_korean is True
    assert again.tutor.topic == "travel"  # the key, not its Korean name

    reopened = SettingsDialog(_services(again))
    qtbot.addWidget(reopened)
    assert reopened.explain_korean.isChecked() and reopened.topic.currentText() == "여행"
    reopened.topic.setEditText("K-pop")  # a topic of one's own is kept as typed
    with qtbot.waitSignal(reopened.accepted, timeout=3000):
        reopened.save_button.click()
    assert Settings.load(AppPaths.resolve(settings.paths.data_dir)).tutor.topic == "k-pop"


def test_the_live_calls_fixed_problem_messages_are_translated(qtbot, qapp):
    """The banner translates the call's fixed messages (they come from below the window in
    English); each is still said somewhere in the code, word for word."""
    import re
    from pathlib import Path

    from tutor_app.ui.banner import PROBLEM_MESSAGES, Banner

    # The package's code outside ui/, with adjacent string literals joined ("... paused " "until ...").
    code = " ".join(re.sub(r'"\s*\n\s*"', "", p.read_text(encoding="utf-8"))
                    for p in Path(call_view.__file__).parents[1].rglob("*.py") if "ui" not in p.parts)
    for message in PROBLEM_MESSAGES:
        assert message in code, message
    install_translation(qapp, "ko")
    banner = Banner()
    qtbot.addWidget(banner)
    banner.show_problem("api-key", "The tutor model did not accept the API key: check it in Settings.")
    assert "튜터 모델이 API 키를 받아들이지 않았어요" in banner.message
    banner.show_problem("llm", "The tutor model failed: timeout")  # details: as it came
    assert "The tutor model failed: timeout" in banner.message
