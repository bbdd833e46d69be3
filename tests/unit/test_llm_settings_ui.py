"""The local server's address and model name are set in the Settings window (LLM
section) and saved with the other settings; the factory then talks to that server."""
from __future__ import annotations

from tutor_app.llm.factory import load_chat_model
from tutor_app.llm.fallback import FallbackChatModel
from tutor_app.llm.openai_server import OpenAIServerChatModel
from tutor_app.paths import AppPaths, default_models_dir
from tutor_app.registry.manifest import ModelRegistry
from tutor_app.settings import Settings


def test_server_fields_round_trip(qtbot, data_dir, no_keyring):
    from tutor_app.ui.services import AudioDevices, UiServices
    from tutor_app.ui.settings_dialog import SettingsDialog

    registry = ModelRegistry.load(default_models_dir())
    settings = Settings.load(AppPaths.resolve(data_dir))
    services = UiServices(settings=settings, registry=lambda: registry,
                          audio_devices=lambda: AudioDevices(["Mic"], ["Speakers"], "Mic", "Speakers"))
    dialog = SettingsDialog(services)
    qtbot.addWidget(dialog)
    assert dialog.server_url.text() == "" and dialog.server_model.text() == ""
    dialog.server_url.setText("  http://127.0.0.1:11434  ")
    dialog.server_model.setText("qwen2.5:3b")
    dialog.backend.setCurrentIndex(dialog.backend.findData("local"))
    dialog.changes()(settings)
    settings.save()

    again = Settings.load(AppPaths.resolve(data_dir))
    assert (again.llm.local_server_url, again.llm.local_server_model) == ("http://127.0.0.1:11434", "qwen2.5:3b")
    model = load_chat_model(again, registry)
    assert isinstance(model, FallbackChatModel) and isinstance(model.primary, OpenAIServerChatModel)
    assert model.primary.url == "http://127.0.0.1:11434/v1"
    reopened = SettingsDialog(UiServices(settings=again, registry=lambda: registry,
                                         audio_devices=lambda: AudioDevices([], [], "", "")))
    qtbot.addWidget(reopened)
    assert reopened.server_url.text() == "http://127.0.0.1:11434" and reopened.server_model.text() == "qwen2.5:3b"
