"""Which tutor answers, in words for the call screen (llm/active.py): from the settings as
llm/factory.py chooses, nothing loaded."""
from __future__ import annotations

from tutor_app.llm.active import CLOUD, OFFLINE, SERVER, active_tutor
from tutor_app.paths import AppPaths
from tutor_app.settings import Settings


def _settings(data_dir, backend: str = "") -> Settings:
    return Settings.load(AppPaths.resolve(data_dir), llm_backend=backend or None)


def test_no_key_means_the_offline_tutor(data_dir):
    tutor = active_tutor(_settings(data_dir))
    assert (tutor.kind, tutor.label) == (OFFLINE, "Offline tutor: basic")


def test_a_key_means_claude_by_its_model_name(data_dir, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    settings = _settings(data_dir)
    settings.llm.anthropic_model = "claude-sonnet-4-5"
    tutor = active_tutor(settings)
    assert (tutor.kind, tutor.label) == (CLOUD, "Claude (claude-sonnet-4-5)")
    assert "offline tutor answers" in tutor.detail  # the fallback is said


def test_another_offline_model_and_a_local_server_are_named(data_dir):
    settings = _settings(data_dir, "local")
    settings.llm.local_model = "qwen2.5-0.5b-instruct"
    assert active_tutor(settings).label == "Offline tutor: qwen2.5-0.5b-instruct"
    settings.llm.local_server_url = "http://127.0.0.1:11434/v1"
    settings.llm.local_server_model = "llama3.2"
    tutor = active_tutor(settings)
    assert (tutor.kind, tutor.label) == (SERVER, "Local server: llama3.2")
