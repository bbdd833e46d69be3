"""Settings are saved through the one Settings object (TOML) and the key goes to the
OS keyring (here a fake in-memory keyring backend), never into the file."""
from __future__ import annotations

import pytest

from tutor_app.paths import AppPaths
from tutor_app.settings import Settings
from tutor_app.ui.services import AudioDevices, UiServices
from tutor_app.ui.settings_dialog import SettingsDialog

SECRET = "sk-ant-test-0123456789"


@pytest.fixture
def fake_keyring(memory_keyring):
    return memory_keyring


class FakeRegistry:
    def for_role(self, role):
        from types import SimpleNamespace

        names = {"stt": ["whisper-tiny.en", "whisper-small.en"], "tts": ["piper-en_US-joe-medium",
                                                                       "piper-en_GB-alan-medium"],
                 "llm-local": ["smollm2-135m-instruct"]}[role]
        return [SimpleNamespace(name=n) for n in names]


def _services(settings, **kw):
    return UiServices(settings=settings, registry=FakeRegistry,
                      audio_devices=lambda: AudioDevices(["Built-in Mic", "USB Headset"], ["Speakers", "USB Headset"],
                                                         "Built-in Mic", "Speakers"), **kw)


def _pick(box, data):
    index = box.findData(data)
    assert index >= 0, (data, [box.itemData(i) for i in range(box.count())])
    box.setCurrentIndex(index)


def test_settings_saved_and_reloaded_key_in_keyring(qtbot, settings, fake_keyring):
    dialog = SettingsDialog(_services(settings))
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.input_device.count() > 2 and dialog.tts_voice.count() == 2, timeout=3000)
    _pick(dialog.accent, "uk")
    _pick(dialog.level, "advanced")
    dialog.topic.setEditText("Job interview")
    _pick(dialog.input_device, "USB Headset")
    _pick(dialog.output_device, "USB Headset")
    dialog.mode_speaker.setChecked(True)
    _pick(dialog.backend, "anthropic")
    _pick(dialog.stt_device, "cpu")
    _pick(dialog.tts_voice, "piper-en_GB-alan-medium")
    dialog.key_edit.setText(SECRET)
    assert dialog.key_edit.echoMode() == dialog.key_edit.EchoMode.Password  # shown masked
    with qtbot.waitSignal(dialog.accepted, timeout=3000):
        dialog.save_button.click()

    again = Settings.load(AppPaths.resolve(settings.paths.data_dir))
    assert (again.tutor.accent, again.tutor.level, again.tutor.topic) == ("uk", "advanced", "job interview")
    assert (again.speech.input_device, again.speech.output_device) == ("USB Headset", "USB Headset")
    assert again.speech.audio_mode == "speaker" and again.speech.barge_in is True  # the canceller: interruptible
    assert (again.llm.backend, again.speech.stt_device, again.speech.tts_voice) == (
        "anthropic", "cpu", "piper-en_GB-alan-medium")
    assert fake_keyring.store[("tutor-app", "anthropic_api_key")] == SECRET
    assert SECRET not in settings.paths.settings_file.read_text()

    # reopened: the stored key is shown as present (masked), never as text
    dialog2 = SettingsDialog(_services(again))
    qtbot.addWidget(dialog2)
    qtbot.waitUntil(lambda: dialog2.remove_key_button.isEnabled(), timeout=3000)
    assert dialog2.key_edit.text() == "" and "keyring" in dialog2.key_status.text()
    assert dialog2.accent.currentData() == "uk" and dialog2.input_device.currentData() == "USB Headset"
    dialog2.remove_key_button.click()
    qtbot.waitUntil(lambda: dialog2.key_status.text().startswith("No key"), timeout=3000)
    assert ("tutor-app", "anthropic_api_key") not in fake_keyring.store


def test_key_test_runs_in_a_worker_and_reports(qtbot, settings, fake_keyring):
    import threading

    seen = []

    def fake_test(key, model):
        seen.append((key, model, threading.current_thread() is threading.main_thread()))
        if key != SECRET:
            from tutor_app.llm.errors import LLMAuthError

            raise LLMAuthError("the API key was rejected (401): check it in the settings")
        return "The key works."

    dialog = SettingsDialog(_services(settings, test_key=fake_test))
    qtbot.addWidget(dialog)
    dialog.key_edit.setText("sk-wrong")
    dialog.test_key_button.click()
    qtbot.waitUntil(lambda: "failed" in dialog.key_result.text(), timeout=3000)
    assert "rejected" in dialog.key_result.text()
    dialog.key_edit.setText(SECRET)
    dialog.test_key_button.click()
    qtbot.waitUntil(lambda: dialog.key_result.text() == "The key works.", timeout=3000)
    assert [s[2] for s in seen] == [False, False]  # never on the GUI thread
    assert fake_keyring.store == {}  # testing does not store


def test_audio_test_reports_progress(qtbot, settings, fake_keyring):
    def fake_audio(mic, out, progress):
        progress(0, 2, "recording: say something")
        progress(2, 2, "done")
        return f"Done with {mic or 'default'} -> {out or 'default'}."

    dialog = SettingsDialog(_services(settings, audio_test=fake_audio))
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.input_device.count() > 2, timeout=3000)
    _pick(dialog.input_device, "USB Headset")
    dialog.test_audio_button.click()
    qtbot.waitUntil(lambda: dialog.audio_status.text().startswith("Done with"), timeout=3000)
    assert dialog.audio_status.text() == "Done with USB Headset -> default."
    assert dialog.test_audio_button.isEnabled()


def test_speaking_speed_and_thinking_time_saved(qtbot, settings, fake_keyring):
    dialog = SettingsDialog(_services(settings))
    qtbot.addWidget(dialog)
    pace = dialog.pace
    # by level by default, and the label says what that means for the chosen level
    assert pace.speed.currentData() == 0.0 and pace.thinking.currentData() == 0 and pace.adapt.isChecked()
    assert pace.thinking.currentText() == "By my level (2 s)"
    _pick(dialog.level, "beginner")
    assert pace.thinking.currentText() == "By my level (3 s)" and "slower" in pace.speed.currentText()
    _pick(pace.speed, 0.85)
    _pick(pace.thinking, 4000)
    pace.adapt.setChecked(False)
    with qtbot.waitSignal(dialog.accepted, timeout=3000):
        dialog.save_button.click()

    again = Settings.load(AppPaths.resolve(settings.paths.data_dir))
    assert (again.speech.speaking_rate, again.speech.thinking_ms, again.speech.adapt_thinking) == (0.85, 4000, False)
    assert again.tutor.level == "beginner"


def test_a_rate_asked_for_in_a_call_is_shown_and_kept(qtbot, settings, fake_keyring):
    settings.speech.speaking_rate = 0.7 - 0.15 + 0.1  # e.g. "much slower", then "a bit faster"
    settings.speech.thinking_ms = 2500
    dialog = SettingsDialog(_services(settings))
    qtbot.addWidget(dialog)
    assert dialog.pace.speed.currentText() == "Your choice (0.65x)"
    assert dialog.pace.thinking.currentText() == "2.5 s"
    with qtbot.waitSignal(dialog.accepted, timeout=3000):
        dialog.save_button.click()
    again = Settings.load(AppPaths.resolve(settings.paths.data_dir))
    assert again.speech.speaking_rate == pytest.approx(0.65) and again.speech.thinking_ms == 2500


def test_a_rate_asked_for_while_the_window_is_open_is_not_put_back(qtbot, settings, fake_keyring):
    from tutor_app.tutor.rate import remember_rate

    dialog = SettingsDialog(_services(settings))
    qtbot.addWidget(dialog)
    assert dialog.pace.speed.currentData() == 0.0
    remember_rate(settings, 0.85)  # a call, meanwhile: "could you speak more slowly?"
    _pick(dialog.level, "advanced")
    with qtbot.waitSignal(dialog.accepted, timeout=3000):
        dialog.save_button.click()
    again = Settings.load(AppPaths.resolve(settings.paths.data_dir))
    assert again.speech.speaking_rate == 0.85 and again.tutor.level == "advanced"


def test_without_a_keyring_the_key_works_for_this_run_and_nothing_else_is_lost(qtbot, settings, no_keyring,
                                                                              monkeypatch):
    """No system keyring (keyring's own failing backend): the level is saved, the key is
    used by this run's tutor model (Claude chosen, the key sent), the window says how to
    keep it (ANTHROPIC_API_KEY), and the key is written nowhere."""
    from tests.fakes.anthropic_server import FakeAnthropicServer
    from tutor_app.app import App
    from tutor_app.core.types import ChatMessage
    from tutor_app.llm.factory import choose_backend, load_chat_model

    app = App(settings)
    app.__dict__["chat_model"] = "the offline model, chosen at start-up"
    app._chat_choice = app._chat_model_inputs()
    assert choose_backend(settings) == "local"
    dialog = SettingsDialog(_services(settings))
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.key_status.text().startswith("No key"), timeout=3000)
    _pick(dialog.level, "advanced")
    dialog.key_edit.setText(SECRET)
    dialog.save_button.click()
    qtbot.waitUntil(lambda: "ANTHROPIC_API_KEY" in dialog.key_result.text(), timeout=3000)
    assert "export ANTHROPIC_API_KEY=" in dialog.key_result.text()
    assert dialog.result() == 0  # not closed: the learner reads how to keep the key
    assert Settings.load(AppPaths.resolve(settings.paths.data_dir)).tutor.level == "advanced"
    qtbot.waitUntil(lambda: "until Tutor closes" in dialog.key_status.text(), timeout=3000)
    assert dialog.remove_key_button.isEnabled() and dialog.key_edit.text() == ""

    assert "chat_model" not in app.__dict__  # the next turn chooses the tutor model again
    assert choose_backend(settings) == "anthropic"
    with FakeAnthropicServer() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        fake.push("Hello!")
        model = load_chat_model(settings, None)
        assert "".join(model.stream("You are a tutor.", [ChatMessage("user", "Hi")])) == "Hello!"
        assert fake.last_request().api_key == SECRET
    for path in settings.paths.data_dir.rglob("*"):
        assert not path.is_file() or SECRET.encode() not in path.read_bytes(), path
