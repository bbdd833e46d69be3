"""Command-line and environment overrides are for one run: a save never writes them into
the settings file (issue #14), but a value the user changes in the app is saved."""
from __future__ import annotations

import tomllib
from dataclasses import asdict

import pytest

from tutor_app.paths import AppPaths
from tutor_app.settings import Overrides, Settings
from tutor_app.tutor.rate import RateRequest, change_rate, remember_rate

ENV = ("TUTOR_APP_PROFILE", "TUTOR_APP_LLM", "TUTOR_APP_ANTHROPIC_MODEL")


@pytest.fixture
def paths(tmp_path, monkeypatch) -> AppPaths:
    """A data dir whose settings file says: profile "kim", backend "anthropic", model "claude-file"."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    p = AppPaths.resolve(tmp_path / "data")
    p.settings_file.parent.mkdir(parents=True, exist_ok=True)
    p.settings_file.write_text(
        'profile = "kim"\n[llm]\nbackend = "anthropic"\nanthropic_model = "claude-file"\n'
        '[tutor]\naccent = "uk"\n'
    )
    return p


def on_disk(paths: AppPaths) -> dict:
    """What the file says, as the app reads it: a value it leaves out is the default."""
    data = tomllib.loads(paths.settings_file.read_text(encoding="utf-8"))
    defaults = Settings(paths=paths)
    for name in Settings.SECTIONS:
        data[name] = {**asdict(getattr(defaults, name)), **data.get(name, {})}
    return data


def test_llm_argument_is_used_but_not_saved(paths):
    s = Settings.load(paths, llm_backend="local")
    assert s.llm.backend == "local"
    s.tutor.level = "advanced"  # any other change, saved as usual
    s.save()
    data = on_disk(paths)
    assert data["llm"]["backend"] == "anthropic"
    assert (data["tutor"]["level"], data["tutor"]["accent"]) == ("advanced", "uk")
    assert s.llm.backend == "local"  # the running app keeps its override
    assert Settings.load(paths).llm.backend == "anthropic"


@pytest.mark.parametrize(("env", "value", "key"), [
    ("TUTOR_APP_LLM", "local", ("llm", "backend")),
    ("TUTOR_APP_ANTHROPIC_MODEL", "claude-env", ("llm", "anthropic_model")),
])
def test_env_overrides_are_used_but_not_saved(paths, monkeypatch, env, value, key):
    monkeypatch.setenv(env, value)
    s = Settings.load(paths)
    section, name = key
    before = on_disk(paths)[section][name]
    assert getattr(getattr(s, section), name) == value
    s.save()
    assert on_disk(paths)[section][name] == before
    assert getattr(getattr(s, section), name) == value


@pytest.mark.parametrize("how", ["argument", "env"])
def test_profile_override_is_not_saved(paths, monkeypatch, how):
    if how == "env":
        monkeypatch.setenv("TUTOR_APP_PROFILE", "alice")
        s = Settings.load(paths)
    else:
        s = Settings.load(paths, profile="alice")
    assert s.profile == "alice"
    s.save()
    assert on_disk(paths)["profile"] == "kim"
    monkeypatch.delenv("TUTOR_APP_PROFILE", raising=False)
    assert Settings.load(paths).profile == "kim"


def test_argument_wins_over_env_and_both_are_recorded(paths, monkeypatch):
    monkeypatch.setenv("TUTOR_APP_LLM", "anthropic")
    monkeypatch.setenv("TUTOR_APP_PROFILE", "env-profile")
    s = Settings.load(paths, profile="alice", llm_backend="local")
    assert (s.profile, s.llm.backend) == ("alice", "local")
    assert set(s.overrides.keys()) == {"profile", "llm.backend"}
    assert s.overrides.get("llm.backend").underneath == "anthropic"
    assert s.overrides.get("profile").underneath == "kim"


def test_a_key_the_user_changes_after_an_override_is_saved(paths):
    s = Settings.load(paths, llm_backend="anthropic")
    s.llm.backend = "local"  # picked in the Settings window
    s.save()
    assert on_disk(paths)["llm"]["backend"] == "local"

    s = Settings.load(paths, llm_backend="local")  # the file now says local too
    s.llm.backend = "anthropic"
    s.save()
    assert on_disk(paths)["llm"]["backend"] == "anthropic"


def test_once_the_user_changed_a_key_their_later_choices_are_all_saved(paths):
    """After bob is saved, going back to alice is a choice too, not the override."""
    s = Settings.load(paths, profile="alice")
    s.profile = "bob"  # memory panel: switch_profile
    s.save()
    assert on_disk(paths)["profile"] == "bob"
    s.profile = "alice"
    s.save()
    assert on_disk(paths)["profile"] == "alice"


def test_a_profile_chosen_in_the_app_is_saved(paths):
    s = Settings.load(paths, profile="alice")
    s.profile = "bob"
    s.save()
    assert on_disk(paths)["profile"] == "bob"
    assert Settings.load(paths).profile == "bob"


def test_missing_key_with_an_override_saves_the_default(tmp_path, monkeypatch):
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    paths = AppPaths.resolve(tmp_path / "data")
    paths.settings_file.parent.mkdir(parents=True, exist_ok=True)
    paths.settings_file.write_text('[tutor]\nlevel = "beginner"\n')  # no llm.backend, no profile
    s = Settings.load(paths, profile="alice", llm_backend="local")
    s.save()
    data = on_disk(paths)
    assert data["llm"]["backend"] == ""  # "" = by the API key
    assert data["profile"] == "default"
    assert data["tutor"]["level"] == "beginner"


def test_no_file_at_all_with_an_override(tmp_path, monkeypatch):
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    paths = AppPaths.resolve(tmp_path / "data")
    s = Settings.load(paths, llm_backend="local")
    s.save()
    assert on_disk(paths)["llm"]["backend"] == ""


def test_to_dict_is_the_file_view_and_leaves_the_object_alone(paths):
    s = Settings.load(paths, profile="alice", llm_backend="local")
    out = s.to_dict()
    assert (out["profile"], out["llm"]["backend"]) == ("kim", "anthropic")
    assert (s.profile, s.llm.backend) == ("alice", "local")
    assert Settings.load(paths).overrides == Overrides()


def test_a_rate_request_in_a_call_saves_the_rate_not_the_override(paths):
    """tutor/rate.py saves the preference mid-call: the run's --llm must not go with it."""
    s = Settings.load(paths, profile="alice", llm_backend="local")
    new = change_rate(s, RateRequest("slower"))
    data = on_disk(paths)
    assert data["speech"]["speaking_rate"] == new
    assert (data["llm"]["backend"], data["profile"]) == ("anthropic", "kim")
    remember_rate(s, None)
    assert on_disk(paths)["speech"]["speaking_rate"] == 0.0
    assert on_disk(paths)["llm"]["backend"] == "anthropic"


def test_cli_options_reach_settings_and_stay_out_of_the_file(paths, monkeypatch):
    """End to end from the command line: no CLI command saves settings, so the options
    go through the real parser and App.from_args, then the call's rate request saves."""
    from tutor_app.app import App
    from tutor_app.cli import build_parser

    monkeypatch.setenv("TUTOR_APP_DATA_DIR", str(paths.data_dir))
    args = build_parser().parse_args(["--llm", "local", "--profile", "alice", "chat"])
    app = App.from_args(args)
    try:
        assert app.settings.paths.settings_file == paths.settings_file
        assert (app.settings.llm.backend, app.settings.profile) == ("local", "alice")
        change_rate(app.settings, RateRequest("faster"))
    finally:
        app.close()
    data = on_disk(paths)
    assert (data["llm"]["backend"], data["profile"]) == ("anthropic", "kim")
    assert data["speech"]["speaking_rate"] > 1.0


def test_an_unknown_backend_in_the_environment_is_ignored_with_a_warning(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("TUTOR_APP_LLM", "LOCAL")
    settings = Settings.load(AppPaths.resolve(tmp_path))
    assert settings.llm.backend == "" and settings.overrides.keys() == ()
    assert "TUTOR_APP_LLM" in caplog.text
