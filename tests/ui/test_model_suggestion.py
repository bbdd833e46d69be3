"""The Models page's suggested offline tutor model: shown for a faked hardware reading over
the real manifest's local models (the bundled one replaced by a small fake package), the
offline install of a hub model failing in one line, and "Use it" saving the setting."""
from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest

from tutor_app.llm.offload import Hardware
from tutor_app.llm.recommend import recommend_llm
from tutor_app.paths import source_root
from tutor_app.registry.install import install as real_install
from tutor_app.registry.manifest import MARKER, ModelRegistry
from tutor_app.settings import Settings
from tutor_app.ui.models_panel import ModelsPanel
from tutor_app.ui.services import UiServices

GGUF = b"GGUF" + b"\0" * 4000
DEFAULT = "smollm2-135m-instruct"


def _registry(tmp_path: Path, monkeypatch) -> ModelRegistry:
    pkg = tmp_path / "site" / "fake_local_llm_pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('never imported')\n")
    (pkg / "model.gguf").write_bytes(GGUF)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    real = ModelRegistry.load(tmp_path / "unused", manifest=source_root() / "models" / "models.toml")
    specs = []
    for spec in real.for_role("llm-local"):
        if spec.default:  # the bundled model, from a small fake package instead of 94 MB
            spec = replace(spec, package="fake-local-llm-pkg==1.0", module="fake_local_llm_pkg",
                           files={"model.gguf": hashlib.sha256(GGUF).hexdigest()})
        specs.append(spec)
    return ModelRegistry(specs, tmp_path / "models")


def machine(cores=2, ram=16384, vram=None, gpu=False) -> Hardware:
    return Hardware(cuda_probe=lambda: (gpu, "1 CUDA device(s)" if gpu else "no CUDA device found"),
                    gpu_build=lambda: (True, "llama.cpp built with GPU offload"),
                    free_vram_mb=lambda: vram, available_ram_mb=lambda: ram,
                    cpu_threads=lambda: max(1, cores - 1), cpu_cores=lambda: cores)


def _panel(qtbot, settings, registry, hw, install=real_install) -> ModelsPanel:
    panel = ModelsPanel(UiServices(settings=settings, registry=lambda: registry, install=install,
                                   recommend=lambda: recommend_llm(registry, hw)))
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.table.rowCount() == len(registry.specs) and bool(panel.suggestion.name), timeout=5000)
    return panel


def _row(panel, name: str) -> int:
    return next(r for r, st in enumerate(panel.statuses) if st.spec.name == name)


@pytest.mark.parametrize("hw, name, line", [
    (machine(cores=4, ram=8192), "qwen2.5-1.5b-instruct",
     "8 GB RAM free, no usable GPU, 4 CPU cores: qwen2.5-1.5b-instruct (1.1 GB) runs at a usable speed on the CPU"),
    (machine(cores=8, ram=16384), "gemma-3-4b-it",
     "16 GB RAM free, no usable GPU, 8 CPU cores: gemma-3-4b-it (2.5 GB) runs at a usable speed on the CPU"),
    (machine(cores=4, gpu=True, vram=8192), "qwen2.5-7b-instruct",
     "8 GB free on the GPU: qwen2.5-7b-instruct (4.7 GB) runs on the GPU and replies quickly"),
])
def test_the_suggestion_for_this_machine_is_shown(qtbot, settings, tmp_path, monkeypatch, hw, name, line):
    registry = _registry(tmp_path, monkeypatch)
    panel = _panel(qtbot, settings, registry, hw)
    card = panel.suggestion
    assert not card.isHidden() and card.name == name and card.line.text() == line
    # A hub model: not here yet, its unverified checksum said plainly, installable, not usable yet.
    assert card.note.text().startswith("Not installed yet.")
    assert "sha256 is recorded at the first download" in card.note.text()
    assert not card.install_button.isHidden() and card.install_button.text() == "Download and install"
    assert not card.use_button.isHidden() and not card.use_button.isEnabled()
    assert card.current.text() == f"The offline tutor now uses {DEFAULT} (the bundled offline default)."
    names = [panel.table.item(r, 0).text() for r in range(panel.table.rowCount())]
    assert f"{name}  ·  suggested" in names and f"{DEFAULT}  ·  bundled default" in names
    assert "recorded at the first download" in panel.table.item(_row(panel, name), 5).toolTip()


def test_a_small_machine_keeps_the_bundled_model(qtbot, settings, tmp_path, monkeypatch):
    registry = _registry(tmp_path, monkeypatch)
    panel = _panel(qtbot, settings, registry, machine(cores=1, ram=400))
    card = panel.suggestion
    assert card.name == DEFAULT
    assert card.line.text() == ("0.4 GB RAM free, no usable GPU, 1 CPU core: the bundled "
                                f"{DEFAULT} (94 MB) is the one this machine runs well")
    assert card.note.text().startswith("In use. Bundled with the app")
    assert card.install_button.isHidden() and card.use_button.isHidden()  # nothing to do


def test_installing_a_hub_model_offline_fails_in_one_line(qtbot, settings, tmp_path, monkeypatch):
    import socket

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for proxy in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    registry = _registry(tmp_path, monkeypatch)
    panel = _panel(qtbot, settings, registry, machine(cores=4, ram=8192))
    name = panel.suggestion.name
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{probe.getsockname()[1]}")
        panel.suggestion.install_button.click()
        qtbot.waitUntil(lambda: panel.installing is None and "not installed" in panel.summary.text(),
                        timeout=5000)
    assert panel.summary.text() == (f"{name} was not installed: cannot download {name}: 127.0.0.1 cannot be "
                                    "reached (no network?); the bundled offline models work without it")
    qtbot.waitUntil(lambda: panel.table.item(_row(panel, name), 2).text() == "Install failed", timeout=5000)
    assert "\n" not in panel.problems.text() and panel.problems.text().startswith(f"{name}: cannot download")
    assert not list(registry.models_dir.iterdir())  # nothing half-downloaded left behind
    assert settings.llm.local_model == DEFAULT
    assert panel.suggestion.install_button.isEnabled()  # free to try again when online


def _installed_hub_model(registry: ModelRegistry, name: str) -> None:
    """What a finished download leaves: the file and the install record with its sha256."""
    spec = registry.get(name)
    folder = registry.models_dir / name
    folder.mkdir(parents=True)
    (folder / spec.hub_files[0]).write_bytes(GGUF)
    (folder / MARKER).write_text(json.dumps({"name": name, "role": spec.role, "source": "hub",
                                             "files": {spec.hub_files[0]: hashlib.sha256(GGUF).hexdigest()}}))


def test_use_it_saves_the_installed_suggestion(qtbot, settings, tmp_path, monkeypatch):
    registry = _registry(tmp_path, monkeypatch)
    _installed_hub_model(registry, "qwen2.5-1.5b-instruct")
    panel = _panel(qtbot, settings, registry, machine(cores=4, ram=8192))
    card = panel.suggestion
    assert card.name == "qwen2.5-1.5b-instruct" and card.note.text().startswith("Installed.")
    assert card.install_button.isHidden() and card.use_button.isEnabled()
    card.use_button.click()
    qtbot.waitUntil(lambda: panel.summary.text().startswith("Saved"), timeout=5000)
    assert settings.llm.local_model == "qwen2.5-1.5b-instruct"
    assert Settings.load(settings.paths).llm.local_model == "qwen2.5-1.5b-instruct"  # on disk
    assert card.use_button.isHidden() and card.note.text().startswith("In use.")
    assert card.current.text() == "The offline tutor now uses qwen2.5-1.5b-instruct."


def test_use_it_keeps_the_setting_when_saving_fails(qtbot, settings, tmp_path, monkeypatch):
    registry = _registry(tmp_path, monkeypatch)
    _installed_hub_model(registry, "qwen2.5-1.5b-instruct")
    settings.paths.settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings.paths.settings_file.mkdir()  # a folder where the file should go: the save fails
    panel = _panel(qtbot, settings, registry, machine(cores=4, ram=8192))
    panel.suggestion.use_button.click()
    qtbot.waitUntil(lambda: "could not be saved" in panel.summary.text(), timeout=5000)
    assert "\n" not in panel.summary.text()
    assert settings.llm.local_model == DEFAULT
    assert panel.suggestion.use_button.isEnabled()  # can try again
