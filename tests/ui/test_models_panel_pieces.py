"""The Models page with the optional multilingual Whisper: shown with its size, licence and
source, not marked default; a model whose file comes in pieces installs (joined) from
its packages with the Install button."""
from __future__ import annotations

from PySide6.QtWidgets import QPushButton

from tests.unit.test_registry_pieces import WHOLE, _packages, _registry
from tutor_app.paths import source_root
from tutor_app.registry.install import install
from tutor_app.registry.manifest import ModelRegistry
from tutor_app.ui.models_panel import COLUMNS, ModelsPanel
from tutor_app.ui.services import UiServices


def _panel(qtbot, settings, registry) -> ModelsPanel:
    panel = ModelsPanel(UiServices(settings=settings, registry=lambda: registry, install=install,
                                   compute=lambda: "CPU, int8"))
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.table.rowCount() == len(registry.specs), timeout=10_000)
    return panel


def _row(panel: ModelsPanel, name: str) -> list[str]:
    for row in range(panel.table.rowCount()):
        if panel.table.item(row, 0).text().split("  ·  ")[0] == name:
            return [panel.table.item(row, c).text() for c in range(len(COLUMNS) - 1)]
    raise AssertionError(f"no row for {name}")


def test_whisper_base_is_listed_as_an_optional_model(qtbot, settings, tmp_path):
    registry = ModelRegistry.load(tmp_path / "models", source_root() / "models" / "models.toml")
    panel = _panel(qtbot, settings, registry)
    name, role, state, size, licence, source = _row(panel, "whisper-base")
    assert name == "whisper-base"  # no "default" mark: optional
    assert (role, size, licence, source) == ("Speech recognition", "148 MB", "MIT", "pip package")
    # From its two packages where they are installed (make setup does), else from the hub.
    here = registry.get("whisper-base").piece_paths() is not None
    assert state == ("Not installed" if here else "Not downloaded")
    assert _row(panel, "whisper-tiny.en")[0].endswith("default")


def test_a_model_in_pieces_installs_from_the_page(qtbot, settings, tmp_path, monkeypatch):
    _packages(tmp_path / "site", monkeypatch)
    registry = _registry(tmp_path)
    panel = _panel(qtbot, settings, registry)
    assert panel.table.item(0, 2).text() == "Not installed"
    button = panel.table.cellWidget(0, len(COLUMNS) - 1).findChild(QPushButton)
    assert button.text() == "Install"
    with qtbot.waitSignal(panel.installed, timeout=10_000):
        button.click()
    qtbot.waitUntil(lambda: panel.table.item(0, 2).text() == "Installed", timeout=10_000)
    assert (registry.models_dir / "pieces" / "model.bin").read_bytes() == WHOLE
