"""The settings store: every run-time change is applied, saved once and announced; the
run's overrides are never written; a broken listener does not stop the rest."""
from __future__ import annotations

import logging
import threading
import tomllib

import pytest

from tutor_app.paths import AppPaths
from tutor_app.settings import Settings
from tutor_app.settings_store import FormEdit, SettingsStore, store_for
from tutor_app.tutor.rate import remember_rate


@pytest.fixture
def settings(tmp_path, monkeypatch) -> Settings:
    for name in ("TUTOR_APP_PROFILE", "TUTOR_APP_LLM", "TUTOR_APP_ANTHROPIC_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return Settings.load(AppPaths.resolve(tmp_path))


def on_disk(settings: Settings) -> dict:
    return tomllib.loads(settings.paths.settings_file.read_text(encoding="utf-8"))


def test_update_saves_once_then_notifies(settings, monkeypatch):
    store = SettingsStore(settings)
    saves, seen = [], []
    real_save = settings.save
    monkeypatch.setattr(settings, "save", lambda: saves.append(1) or real_save())
    store.subscribe(lambda s: seen.append((s.memory.enabled, len(saves))))
    store.update(lambda s: setattr(s.memory, "enabled", False))
    assert saves == [1]
    assert seen == [(False, 1)]  # told after the save, with the new value
    assert on_disk(settings)["memory"]["enabled"] is False


def test_overrides_are_not_saved(tmp_path, monkeypatch):
    monkeypatch.delenv("TUTOR_APP_PROFILE", raising=False)
    settings = Settings.load(AppPaths.resolve(tmp_path), llm_backend="local")
    store_for(settings).update(lambda s: setattr(s.tutor, "level", "advanced"))
    data = on_disk(settings)
    assert data["tutor"]["level"] == "advanced"
    assert data.get("llm", {}).get("backend", "") == ""  # the run's --llm stays out of the file
    assert settings.llm.backend == "local"  # and in effect for the run


def test_a_failing_subscriber_does_not_stop_the_others_or_the_save(settings, caplog):
    store = SettingsStore(settings)
    seen = []

    def broken(_s):
        raise RuntimeError("listener bug")

    store.subscribe(broken)
    store.subscribe(lambda s: seen.append(s.profile))
    with caplog.at_level(logging.ERROR, logger="tutor_app.settings_store"):
        store.update(lambda s: setattr(s, "profile", "kim"))
    assert seen == ["kim"]
    assert on_disk(settings)["profile"] == "kim"
    assert "listener bug" in caplog.text


def test_unsubscribe(settings):
    store = SettingsStore(settings)
    seen = []
    unsubscribe = store.subscribe(lambda s: seen.append(s.tutor.topic))
    store.update(lambda s: setattr(s.tutor, "topic", "travel"))
    unsubscribe()
    unsubscribe()  # twice is harmless
    store.update(lambda s: setattr(s.tutor, "topic", "news"))
    assert seen == ["travel"]


def test_a_failed_save_keeps_the_change_tells_everyone_and_raises(settings, monkeypatch):
    """A paused memory must stay paused for the run even when the file cannot be written."""
    store = SettingsStore(settings)
    seen = []
    store.subscribe(lambda s: seen.append(s.memory.enabled))

    def disk_full():
        raise OSError("disk full")

    monkeypatch.setattr(settings, "save", disk_full)
    with pytest.raises(OSError, match="disk full"):
        store.update(lambda s: setattr(s.memory, "enabled", False))
    assert settings.memory.enabled is False and seen == [False]


def test_one_store_per_settings_object(settings, tmp_path):
    assert store_for(settings) is store_for(settings)
    other = Settings.load(AppPaths.resolve(tmp_path / "other"))
    assert store_for(other) is not store_for(settings)
    assert "_settings_store" not in repr(settings) and settings == Settings.load(settings.paths)


def test_a_rate_asked_for_in_a_call_reaches_the_subscribers_from_the_call_thread(settings):
    seen = []
    store_for(settings).subscribe(lambda s: seen.append((s.speech.speaking_rate, threading.current_thread().name)))
    call = threading.Thread(target=remember_rate, args=(settings, 0.8), name="call-turns")
    call.start()
    call.join()
    assert seen == [(0.8, "call-turns")]  # the UI's watch moves it to the GUI thread
    assert on_disk(settings)["speech"]["speaking_rate"] == 0.8


def test_changes_from_two_threads_are_both_kept(settings):
    store = store_for(settings)
    start = threading.Barrier(2)

    def change(name, value):
        start.wait()
        for _ in range(20):
            store.update(lambda s: setattr(s.speech, name, value))

    threads = [threading.Thread(target=change, args=("thinking_ms", 1500)),
               threading.Thread(target=change, args=("silence_ms", 900))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    data = on_disk(settings)["speech"]
    assert (data["thinking_ms"], data["silence_ms"]) == (1500, 900)


def test_a_window_saves_only_what_was_changed_in_it(settings):
    edit = FormEdit(settings)  # the Settings window opens
    remember_rate(settings, 0.7)  # meanwhile, in a call: "could you speak much more slowly?"
    shown = {"tutor": {"level": "advanced", "accent": settings.tutor.accent},  # level changed in the window
             "speech": {"speaking_rate": 0.0}}  # the rate as the window showed it at opening
    store_for(settings).update(edit.change(shown))
    assert settings.tutor.level == "advanced" and settings.speech.speaking_rate == 0.7
    assert on_disk(settings)["speech"]["speaking_rate"] == 0.7


def test_a_value_changed_in_the_window_wins(settings):
    edit = FormEdit(settings)
    remember_rate(settings, 0.7)
    store_for(settings).update(edit.change({"speech": {"speaking_rate": 1.15}}))  # picked "Faster" there
    assert settings.speech.speaking_rate == 1.15 and on_disk(settings)["speech"]["speaking_rate"] == 1.15
