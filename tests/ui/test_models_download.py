"""The Models page's Download works inside the app: the app keeps huggingface_hub offline
(HF_HUB_OFFLINE=1, read once when the library is imported) so that nothing loads a model
from the network by accident, but an install the learner asked for reaches the hub. Here
the hub is a local fake (tests/fakes/hub_server.py) named by HF_ENDPOINT; offline (a
refused connection) the install fails in one line and leaves nothing behind."""
from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.fakes.hub_server import FakeHub
from tutor_app.registry.install import install as real_install
from tutor_app.registry.manifest import ModelRegistry
from tutor_app.ui.models_panel import ModelsPanel
from tutor_app.ui.services import UiServices

VOICE = b"fake onnx voice" * 500
CONFIG = b'{"audio": {"sample_rate": 22050}}'
REPO = "rhasspy/piper-voices"
FILES = {f"{REPO}/en/en_GB/alan/medium/en_GB-alan-medium.onnx": VOICE,
         f"{REPO}/en/en_GB/alan/medium/en_GB-alan-medium.onnx.json": CONFIG}


def _registry(tmp_path: Path) -> ModelRegistry:
    manifest = tmp_path / "models.toml"
    manifest.write_text(f"""
[[model]]
name = "piper-en_GB-alan-medium"
role = "tts"
license = "MIT"
source = "hub"
hub_id = "{REPO}"
hub_files = ["en/en_GB/alan/medium/en_GB-alan-medium.onnx", "en/en_GB/alan/medium/en_GB-alan-medium.onnx.json"]
size_mb = 63
""")
    return ModelRegistry.load(tmp_path / "models", manifest)


@pytest.fixture
def app_offline(monkeypatch):
    """The environment as the desktop app sets it for itself (app.App.from_args), with the
    hub library already imported under it: its offline switch is on."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    for proxy in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert constants.is_offline_mode()
    yield
    assert constants.is_offline_mode()  # still offline for everything else afterwards


def _panel(qtbot, settings, registry) -> ModelsPanel:
    panel = ModelsPanel(UiServices(settings=settings, registry=lambda: registry, install=real_install))
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1, timeout=5000)
    return panel


def _download_button(panel):
    from PySide6.QtWidgets import QPushButton

    button = panel.table.cellWidget(0, 6).findChild(QPushButton)
    assert button.text() == "Download"
    return button


def test_download_from_the_models_page_works_in_the_app(qtbot, settings, tmp_path, monkeypatch, app_offline):
    registry = _registry(tmp_path)
    with FakeHub(FILES) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        panel = _panel(qtbot, settings, registry)
        assert panel.table.item(0, 2).text() == "Not downloaded"
        _download_button(panel).click()
        # The list is re-checked after the install ("Checking..."), then the notice returns.
        qtbot.waitUntil(lambda: panel.installing is None and "installed." in panel.summary.text(), timeout=30_000)
    assert panel.summary.text() == "piper-en_GB-alan-medium installed."
    folder = registry.models_dir / "piper-en_GB-alan-medium"
    assert (folder / "en_GB-alan-medium.onnx").read_bytes() == VOICE
    assert (folder / "en_GB-alan-medium.onnx.json").read_bytes() == CONFIG
    assert ("GET", f"/{REPO}/resolve/main/en/en_GB/alan/medium/en_GB-alan-medium.onnx") in hub.requests
    qtbot.waitUntil(lambda: panel.table.item(0, 2).text() == "Installed", timeout=5000)


def test_download_offline_fails_in_one_line(qtbot, settings, tmp_path, monkeypatch, app_offline):
    registry = _registry(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{probe.getsockname()[1]}")
        panel = _panel(qtbot, settings, registry)
        _download_button(panel).click()
        qtbot.waitUntil(lambda: panel.installing is None and "not installed" in panel.summary.text(),
                        timeout=30_000)
    name = "piper-en_GB-alan-medium"
    assert panel.summary.text() == (f"{name} was not installed: cannot download {name}: 127.0.0.1 cannot "
                                    "be reached (no network?); the bundled offline models work without it")
    assert "\n" not in panel.summary.text()
    assert not list(registry.models_dir.iterdir())  # nothing half-downloaded left behind
