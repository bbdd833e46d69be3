from __future__ import annotations

from tutor_app.paths import AppPaths
from tutor_app.settings import Settings


def test_defaults_and_round_trip(tmp_path, monkeypatch):
    monkeypatch.delenv("TUTOR_APP_PROFILE", raising=False)
    monkeypatch.delenv("TUTOR_APP_LLM", raising=False)
    paths = AppPaths.resolve(tmp_path)
    s = Settings.load(paths)
    assert (s.tutor.accent, s.tutor.level, s.tutor.topic) == ("us", "intermediate", "daily")
    assert s.profile == "default" and s.llm.backend == ""
    s.tutor.accent = "uk"
    s.speech.silence_ms = 700
    s.save()
    again = Settings.load(paths)
    assert again.tutor.accent == "uk" and again.speech.silence_ms == 700


def test_the_file_keeps_only_what_differs_from_the_defaults(tmp_path, monkeypatch):
    """A value left at its default is not written: a later version's better default then
    reaches a learner who once saved their settings."""
    import tomllib

    monkeypatch.delenv("TUTOR_APP_PROFILE", raising=False)
    monkeypatch.delenv("TUTOR_APP_LLM", raising=False)
    paths = AppPaths.resolve(tmp_path)
    s = Settings.load(paths)
    s.speech.silence_ms = 700
    s.save()
    data = tomllib.loads(paths.settings_file.read_text(encoding="utf-8"))
    assert data["speech"] == {"silence_ms": 700}
    assert data["tutor"] == {} and data["profile"] == "default"
    s.speech.silence_ms = Settings(paths=paths).speech.silence_ms  # back to the default
    s.save()
    assert "silence_ms" not in tomllib.loads(paths.settings_file.read_text(encoding="utf-8"))["speech"]


def test_env_and_arguments_override_the_file(tmp_path, monkeypatch):
    paths = AppPaths.resolve(tmp_path)
    monkeypatch.setenv("TUTOR_APP_PROFILE", "minji")
    monkeypatch.setenv("TUTOR_APP_LLM", "local")
    monkeypatch.setenv("TUTOR_APP_ANTHROPIC_MODEL", "claude-test")
    s = Settings.load(paths)
    assert (s.profile, s.llm.backend, s.llm.anthropic_model) == ("minji", "local", "claude-test")
    assert Settings.load(paths, profile="kim", llm_backend="anthropic").profile == "kim"


def test_bad_file_values_fall_back_to_defaults(tmp_path):
    paths = AppPaths.resolve(tmp_path)
    paths.settings_file.parent.mkdir(parents=True)
    paths.settings_file.write_text('[tutor]\naccent = 5\nnope = "x"\n[speech]\nsilence_ms = 800\n')
    s = Settings.load(paths)
    assert s.tutor.accent == "us" and s.speech.silence_ms == 800
    paths.settings_file.write_text("this is [not toml")
    assert Settings.load(paths).tutor.accent == "us"


def test_data_dir_env_puts_everything_under_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TUTOR_APP_DATA_DIR", str(tmp_path / "d"))
    paths = AppPaths.resolve()
    assert paths.data_dir == tmp_path / "d"
    assert paths.settings_file.is_relative_to(tmp_path / "d")
    assert paths.log_file.is_relative_to(tmp_path / "d")


def test_pace_settings_round_trip_and_bounds(tmp_path, caplog):
    paths = AppPaths.resolve(tmp_path)
    s = Settings.load(paths)
    assert (s.speech.speaking_rate, s.speech.thinking_ms, s.speech.adapt_thinking) == (0.0, 0, True)  # by level
    s.speech.speaking_rate, s.speech.thinking_ms, s.speech.adapt_thinking = 0.8, 3500, False
    s.save()
    again = Settings.load(paths)
    assert (again.speech.speaking_rate, again.speech.thinking_ms, again.speech.adapt_thinking) == (0.8, 3500, False)

    paths.settings_file.write_text("[speech]\nspeaking_rate = 7.5\nthinking_ms = 60000\nsilence_ms = 700\n")
    with caplog.at_level("WARNING"):
        s = Settings.load(paths)
    assert (s.speech.speaking_rate, s.speech.thinking_ms, s.speech.silence_ms) == (0.0, 0, 700)
    assert "speech.speaking_rate" in caplog.text and "speech.thinking_ms" in caplog.text
    paths.settings_file.write_text("[speech]\nspeaking_rate = 1\nthinking_ms = 499\n")
    s = Settings.load(paths)
    assert (s.speech.speaking_rate, s.speech.thinking_ms) == (1.0, 0)  # an int rate is fine; 499 ms is not
    paths.settings_file.write_text('[speech]\nspeaking_rate = "fast"\nthinking_ms = -3\n')
    s = Settings.load(paths)
    assert (s.speech.speaking_rate, s.speech.thinking_ms) == (0.0, 0)
