"""Model registry: install from a package into a temp models dir, detect corruption."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tutor_app.errors import ModelMissingError, TutorError, UsageError
from tutor_app.registry.install import install
from tutor_app.registry.manifest import ModelRegistry

PAYLOAD = b"weights" * 1000


def _fake_package(tmp_path: Path, monkeypatch, payload: bytes = PAYLOAD) -> None:
    pkg = tmp_path / "site" / "fake_model_pkg"
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('model packages are located, never imported')\n")
    (pkg / "data" / "weights.bin").write_bytes(payload)
    (pkg / "data" / "config.json").write_text('{"dim": 4}')
    monkeypatch.syspath_prepend(str(tmp_path / "site"))


def _manifest(tmp_path: Path, sha: str | None = None) -> Path:
    sha = sha or hashlib.sha256(PAYLOAD).hexdigest()
    cfg = hashlib.sha256(b'{"dim": 4}').hexdigest()
    text = f"""
[[model]]
name = "fake-model"
role = "stt"
default = true
source = "package"
package = "fake-model-pkg==1.0"
module = "fake_model_pkg"
subdir = "data"
license = "MIT"
size_mb = 0.01
[model.files]
"weights.bin" = "{sha}"
"config.json" = "{cfg}"

[[model]]
name = "fake-online"
role = "tts"
source = "hub"
hub_id = "nobody/nothing"
"""
    path = tmp_path / "models.toml"
    path.write_text(text)
    return path


@pytest.fixture
def registry(tmp_path, monkeypatch) -> ModelRegistry:
    _fake_package(tmp_path, monkeypatch)
    return ModelRegistry.load(tmp_path / "models", _manifest(tmp_path))


def test_package_model_is_usable_before_install(registry):
    status = registry.status(registry.get("fake-model"))
    assert status.state == "in-package" and status.usable
    assert registry.path("fake-model").name == "data"


def test_install_copies_verifies_and_records(registry):
    seen = []
    result = install(registry, "fake-model", progress=lambda d, t, w: seen.append((d, t)))
    assert (result.path / "weights.bin").read_bytes() == PAYLOAD
    record = json.loads((result.path / ".installed.json").read_text())
    assert set(record["files"]) == {"weights.bin", "config.json"}
    assert registry.status(registry.get("fake-model")).state == "installed"
    assert seen and seen[-1][0] == seen[-1][1]  # progress reached 100 %
    assert registry.path("fake-model") == result.path


def test_corrupted_installed_file_is_detected(registry):
    result = install(registry, "fake-model")
    blob = bytearray((result.path / "weights.bin").read_bytes())
    blob[10] ^= 0xFF  # same size, different content
    (result.path / "weights.bin").write_bytes(bytes(blob))
    status = registry.status(registry.get("fake-model"))
    assert status.state == "corrupt" and "weights.bin" in status.detail
    # Reinstalling repairs it.
    install(registry, "fake-model")
    assert registry.status(registry.get("fake-model")).state == "installed"


def test_corrupt_package_file_is_refused_and_nothing_left(tmp_path, monkeypatch):
    _fake_package(tmp_path, monkeypatch)
    reg = ModelRegistry.load(tmp_path / "models", _manifest(tmp_path, sha="0" * 64))
    with pytest.raises(TutorError, match="wrong checksum"):
        install(reg, "fake-model")
    assert not (tmp_path / "models" / "fake-model").exists()
    assert not list((tmp_path / "models").glob(".*partial"))
    assert reg.status(reg.get("fake-model")).state == "corrupt"


def test_unknown_model_and_offline_hub(registry, monkeypatch):
    with pytest.raises(UsageError, match="unknown model 'nope'"):
        registry.get("nope")
    assert registry.status(registry.get("fake-online")).state == "online-only"
    with pytest.raises(ModelMissingError, match="models install fake-online"):
        registry.path("fake-online")
    assert not (registry.models_dir / "fake-online").exists()


def test_an_unreachable_hub_fails_at_once_with_one_line(registry, monkeypatch):
    """Offline, with or without HF_HUB_OFFLINE (the app sets it; an asked-for install is not
    bound by it): a refused connection is one line, not ~23 s of the hub library's retries
    (a bound port that does not listen refuses at once)."""
    import socket

    for proxy in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]  # bound, never listening: connections are refused
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{closed}")
        with pytest.raises(TutorError, match="cannot download fake-online: 127.0.0.1 cannot be reached"):
            install(registry, "fake-online")
    assert not (registry.models_dir / "fake-online").exists()


def test_models_cli_status_and_unknown_name(tmp_path):
    env_models = tmp_path / "m"
    env_models.mkdir()
    (env_models / "models.toml").write_text((Path(__file__).parents[2] / "models" / "models.toml").read_text())
    env = {"TUTOR_APP_MODELS_DIR": str(env_models), "TUTOR_APP_DATA_DIR": str(tmp_path / "d"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "tutor_app", "models", "status", "--json", "--quick"],
                         capture_output=True, text=True, env=env)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert {"name", "role", "state", "usable", "size_mb", "license"} <= set(rows[0])
    roles = {r["role"] for r in rows if r["default"]}
    assert roles == {"stt", "tts", "embedder", "emotion", "llm-local", "vad", "turn"}
    bad = subprocess.run([sys.executable, "-m", "tutor_app", "models", "install", "no-such-model"],
                         capture_output=True, text=True, env=env)
    assert bad.returncode == 2
    assert "unknown model 'no-such-model'" in bad.stderr and "Traceback" not in bad.stderr


def test_models_cli_downloads_a_hub_model_with_hub_offline_set(tmp_path):
    """`models install` of a hub model, with HF_HUB_OFFLINE=1 as the app sets it for every
    command: the asked-for download reaches the hub (a local fake named by HF_ENDPOINT)."""
    from tests.fakes.hub_server import FakeHub

    env_models = tmp_path / "m"
    env_models.mkdir()
    (env_models / "models.toml").write_text((Path(__file__).parents[2] / "models" / "models.toml").read_text())
    base = "rhasspy/piper-voices/en/en_GB/alan/medium/en_GB-alan-medium"
    files = {f"{base}.onnx": b"voice" * 100, f"{base}.onnx.json": b"{}"}
    with FakeHub(files) as hub:
        env = {"TUTOR_APP_MODELS_DIR": str(env_models), "TUTOR_APP_DATA_DIR": str(tmp_path / "d"),
               "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "HF_ENDPOINT": hub.url, "NO_PROXY": "127.0.0.1",
               "HF_HOME": str(tmp_path / "hf")}
        out = subprocess.run([sys.executable, "-m", "tutor_app", "models", "install", "piper-en_GB-alan-medium"],
                             capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert (env_models / "piper-en_GB-alan-medium" / "en_GB-alan-medium.onnx").read_bytes() == b"voice" * 100


def test_bundled_read_only_models_are_used_and_installs_go_to_the_user_folder(tmp_path, monkeypatch):
    """An installed app: its own models under a read-only folder, the user's folder empty."""
    _fake_package(tmp_path, monkeypatch)
    manifest = _manifest(tmp_path)
    bundled = tmp_path / "opt" / "models"
    install(ModelRegistry.load(bundled, manifest), "fake-model")
    bundled.chmod(0o555)
    try:
        user = tmp_path / "user-models"
        reg = ModelRegistry.load(user, manifest, bundled_dir=bundled)
        st = reg.status(reg.get("fake-model"))
        assert (st.state, st.path) == ("installed", bundled / "fake-model")
        assert reg.path("fake-model") == bundled / "fake-model"
        assert install(reg, "fake-model").path == bundled / "fake-model"  # nothing to do: says where it is
        assert not (user / "fake-model").exists()
        install(reg, "fake-model", force=True)  # e.g. a repair: lands in the user's folder
        assert reg.path("fake-model") == user / "fake-model"
        assert (user / "fake-model" / "weights.bin").read_bytes() == PAYLOAD
        assert (bundled / "fake-model" / "weights.bin").is_file()  # the bundled copy is left alone
    finally:
        bundled.chmod(0o755)


def _slim_bundle(tmp_path, monkeypatch, torch_only: str, omitted: list[str]) -> ModelRegistry:
    """A bundle built the way packaging/tutor-app.spec builds it: `weights.bin` left out and
    the install record saying so."""
    _fake_package(tmp_path, monkeypatch)
    manifest = _manifest(tmp_path)
    manifest.write_text(manifest.read_text().replace('size_mb = 0.01', f'size_mb = 0.01\ntorch_only = [{torch_only}]'))
    bundled = tmp_path / "opt" / "models"
    install(ModelRegistry.load(bundled, manifest), "fake-model")
    marker = bundled / "fake-model" / ".installed.json"
    record = json.loads(marker.read_text())
    record["files"].pop("weights.bin")
    record["omitted"] = omitted
    marker.write_text(json.dumps(record))
    (bundled / "fake-model" / "weights.bin").unlink()
    return ModelRegistry.load(tmp_path / "user-models", manifest, bundled_dir=bundled)


def test_a_torch_only_file_left_out_of_the_bundle_is_not_a_broken_install(tmp_path, monkeypatch):
    reg = _slim_bundle(tmp_path, monkeypatch, '"weights.bin"', ["weights.bin"])
    assert reg.status(reg.get("fake-model")).state == "installed"
    assert reg.status(reg.get("fake-model"), verify=False).state == "installed"


@pytest.mark.parametrize("torch_only, omitted", [('"other.bin"', ["weights.bin"]), ('"weights.bin"', [])])
def test_only_the_omissions_the_manifest_allows_are_accepted(tmp_path, monkeypatch, torch_only, omitted):
    """A record may not excuse a file the manifest needs; a missing file the record does not
    name as omitted is a broken install."""
    reg = _slim_bundle(tmp_path, monkeypatch, torch_only, omitted)
    st = reg.status(reg.get("fake-model"))
    assert st.state == "corrupt" and "weights.bin" in st.detail
