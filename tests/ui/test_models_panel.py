"""Models panel: status rows, install with progress, cancel, checksum failure shown.
A fake registry entry backed by a temp pip-like package folder (as tests/unit/test_registry.py)."""
from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from tutor_app.registry.install import install as real_install
from tutor_app.registry.manifest import ModelRegistry
from tutor_app.ui.models_panel import ModelsPanel
from tutor_app.ui.services import UiServices

PAYLOAD = b"weights" * 1000


def _registry(tmp_path: Path, monkeypatch, sha: str | None = None) -> ModelRegistry:
    pkg = tmp_path / "site" / "fake_ui_model_pkg"
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('never imported')\n")
    (pkg / "data" / "weights.bin").write_bytes(PAYLOAD)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    sha = sha or hashlib.sha256(PAYLOAD).hexdigest()
    manifest = tmp_path / "models.toml"
    manifest.write_text(f"""
[[model]]
name = "fake-stt"
role = "stt"
default = true
source = "package"
package = "fake-ui-model-pkg==1.0"
module = "fake_ui_model_pkg"
subdir = "data"
license = "MIT"
size_mb = 0.01
[model.files]
"weights.bin" = "{sha}"
""")
    return ModelRegistry.load(tmp_path / "models", manifest)


def _panel(qtbot, settings, registry, install):
    panel = ModelsPanel(UiServices(settings=settings, registry=lambda: registry, install=install,
                                   compute=lambda: "CPU, int8"))
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1, timeout=5000)
    return panel


def _state(panel) -> str:
    return panel.table.item(0, 2).text()


def _button(panel):
    from PySide6.QtWidgets import QPushButton

    return panel.table.cellWidget(0, 6).findChild(QPushButton)


def test_install_shows_progress_and_finishes(qtbot, settings, tmp_path, monkeypatch):
    registry = _registry(tmp_path, monkeypatch)
    panel = _panel(qtbot, settings, registry, real_install)
    assert _state(panel) == "Ready (bundled)" and panel.device_label.text().endswith("CPU, int8")
    values = []
    panel.progress.valueChanged.connect(values.append)
    with qtbot.waitSignal(panel.installed, timeout=5000) as got:
        _button(panel).click()
    assert got.args == ["fake-stt"]
    assert values and values[-1] == 1000  # reached 100 %
    qtbot.waitUntil(lambda: _state(panel) == "Installed", timeout=5000)
    assert panel.summary.text() == "fake-stt installed."
    assert not panel.progress.isVisible()
    assert (registry.models_dir / "fake-stt" / "weights.bin").read_bytes() == PAYLOAD


def test_cancel_stops_the_install(qtbot, settings, tmp_path, monkeypatch):
    registry = _registry(tmp_path, monkeypatch)
    first_progress = threading.Event()

    def slow_install(reg, name, progress, cancel, force):
        def held(done, total, what):
            progress(done, total, what)
            first_progress.set()
            cancel.wait(10)  # hold the install here until the user cancels

        return real_install(reg, name, progress=held, cancel=cancel, force=force)

    panel = _panel(qtbot, settings, registry, slow_install)
    panel.show()
    _button(panel).click()
    qtbot.waitUntil(lambda: panel.progress.value() == 1000 and panel.cancel_button.isVisible(), timeout=5000)
    assert panel.progress_label.text() == "fake-stt: 0.0 of 0.0 MB"
    panel.cancel_button.click()
    # After the install ends the list is re-checked ("Checking..."), then the notice returns.
    qtbot.waitUntil(lambda: panel.installing is None and "cancelled" in panel.summary.text(), timeout=5000)
    qtbot.waitUntil(lambda: _state(panel) == "Ready (bundled)", timeout=5000)
    assert not (registry.models_dir / "fake-stt").exists()  # nothing half-installed


def test_checksum_failure_is_shown(qtbot, settings, tmp_path, monkeypatch):
    registry = _registry(tmp_path, monkeypatch, sha="0" * 64)
    panel = _panel(qtbot, settings, registry, real_install)
    assert _state(panel) == "Damaged"  # the package copy fails its checksum already
    assert "wrong checksum" in panel.problems.text()
    _button(panel).click()
    qtbot.waitUntil(lambda: panel.installing is None and "not installed" in panel.summary.text(), timeout=5000)
    qtbot.waitUntil(lambda: _state(panel) == "Install failed", timeout=5000)
    assert "checksum" in panel.summary.text() and "checksum" in panel.problems.text()
